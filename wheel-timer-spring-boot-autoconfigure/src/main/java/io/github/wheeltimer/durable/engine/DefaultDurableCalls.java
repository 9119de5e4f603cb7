package io.github.wheeltimer.durable.engine;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

import io.github.wheeltimer.durable.CallPage;
import io.github.wheeltimer.durable.CallState;
import io.github.wheeltimer.durable.DurableCalls;
import io.github.wheeltimer.durable.StoredCall;
import io.github.wheeltimer.durable.storage.CallRepository;
import org.jspecify.annotations.Nullable;

/**
 * The {@link DurableCalls} of this instance: checks the arguments, then asks the engine, which
 * owns the database's rows and this instance's wheels.
 */
public final class DefaultDurableCalls implements DurableCalls {

	private final DurableEngine engine;

	/**
	 * Creates the bean.
	 * @param engine this instance's durable calls
	 */
	public DefaultDurableCalls(DurableEngine engine) {
		this.engine = engine;
	}

	@Override
	public Optional<StoredCall> find(String methodId, Object key) {
		Objects.requireNonNull(methodId, "methodId must not be null");
		Objects.requireNonNull(key, "key must not be null");
		return Optional.ofNullable(this.engine.find(methodId, key));
	}

	@Override
	public Optional<StoredCall> find(UUID id) {
		Objects.requireNonNull(id, "id must not be null");
		return Optional.ofNullable(this.engine.find(id));
	}

	@Override
	public CallPage list(@Nullable String methodId, @Nullable CallState state, int page, int size) {
		return this.engine.list(new CallRepository.Filter(methodId, null, state), page, size);
	}

	@Override
	public Optional<StoredCall> reschedule(String methodId, Object key, Instant due) {
		Objects.requireNonNull(methodId, "methodId must not be null");
		Objects.requireNonNull(key, "key must not be null");
		Objects.requireNonNull(due, "due must not be null");
		return Optional.ofNullable(this.engine.reschedule(methodId, key, due));
	}

	@Override
	public Optional<StoredCall> reschedule(UUID id, Instant due) {
		Objects.requireNonNull(id, "id must not be null");
		Objects.requireNonNull(due, "due must not be null");
		return Optional.ofNullable(this.engine.reschedule(id, due));
	}

	@Override
	public boolean cancel(String methodId, Object key) {
		Objects.requireNonNull(methodId, "methodId must not be null");
		Objects.requireNonNull(key, "key must not be null");
		return this.engine.cancel(methodId, key);
	}

	@Override
	public Optional<StoredCall> cancel(UUID id) {
		Objects.requireNonNull(id, "id must not be null");
		return Optional.ofNullable(this.engine.cancel(id));
	}

	@Override
	public Instant now() {
		return this.engine.now();
	}

}
