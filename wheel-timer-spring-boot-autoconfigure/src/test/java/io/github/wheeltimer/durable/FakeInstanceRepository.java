package io.github.wheeltimer.durable;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

import io.github.wheeltimer.durable.storage.CallRepository;
import io.github.wheeltimer.durable.storage.InstanceRepository;
import io.github.wheeltimer.durable.storage.InstanceStatus;
import io.github.wheeltimer.durable.storage.MethodShapes;
import io.github.wheeltimer.durable.storage.StoredText;
import org.jspecify.annotations.Nullable;

/**
 * The instances' table in memory, as {@code JdbcInstanceRepository} keeps it, and the fake
 * database's clock, which {@link FakeCallRepository} shares: every lease decision reads it, and it
 * moves only when a test sets or advances it, whatever the virtual ticker does. So a test makes a
 * lease lapse by moving this clock, never by waiting.
 * <p>
 * Thread-safe: one lock (this object's monitor) guards both repositories' rows.
 */
public final class FakeInstanceRepository implements InstanceRepository {

	/** Where the fake database's clock starts: any instant will do, as long as tests read it here. */
	static final Instant START = Instant.parse("2030-01-01T00:00:00Z");

	private final Map<UUID, Instance> rows = new LinkedHashMap<>();

	private final FakeStatements statements = new FakeStatements();

	/** Guarded by this. */
	private Instant now = START;

	/** Counts the calls each instance holds; set once by the call repository that shares the lock. */
	private volatile @Nullable FakeCallRepository calls;

	/** A row of the instances' table. */
	private record Instance(UUID id, String name, Instant startedAt, Instant heartbeat, List<String> methods,
			String shapes) {

		Instance beat(Instant at, String shapes) {
			return new Instance(this.id, this.name, this.startedAt, at, this.methods, shapes);
		}

	}

	/** @return the statements sent to this table, and the failures to inject into them */
	FakeStatements statements() {
		return this.statements;
	}

	void attach(FakeCallRepository calls) {
		this.calls = calls;
	}

	/** @return the database's time ({@code CURRENT_TIMESTAMP}) */
	synchronized Instant now() {
		return this.now;
	}

	synchronized void setNow(Instant now) {
		this.now = now;
	}

	/** Moves the database's clock, and with it every lease; the virtual ticker stays where it is. */
	synchronized void advanceClock(Duration amount) {
		this.now = this.now.plus(amount);
	}

	/**
	 * Writes an instance's heartbeat as of {@code at} by the database's clock, as another instance
	 * would have: in the past to make it dead.
	 */
	synchronized void beatAt(UUID instance, String name, Instant at) {
		Instance row = this.rows.get(instance);
		this.rows.put(instance, (row != null) ? row.beat(at, row.shapes()) : new Instance(instance, name, at, at, List.of(), ""));
	}

	/** @return the instance's last heartbeat, or {@code null} if it has no row */
	synchronized @Nullable Instant heartbeatOf(UUID instance) {
		Instance row = this.rows.get(instance);
		return (row != null) ? row.heartbeat() : null;
	}

	/**
	 * The lease check of the gate and of the take-over: {@code heartbeat_at > CURRENT_TIMESTAMP -
	 * lease}. Lock held by the caller.
	 */
	boolean isAliveLocked(UUID instance, Duration lease) {
		Instance row = this.rows.get(instance);
		return row != null && row.heartbeat().isAfter(this.now.minus(lease));
	}

	@Override
	public void heartbeat(UUID instance, String name, Collection<String> methods, String shapes,
			boolean shapesChanged) {
		this.statements.sent("heartbeat");
		synchronized (this) {
			Instance row = this.rows.get(instance);
			this.rows.put(instance, (row != null) ? row.beat(this.now, shapesChanged ? shapes : row.shapes())
					: new Instance(instance, StoredText.of(name, CallRepository.NAME_LENGTH), this.now, this.now,
							List.copyOf(methods), shapes));
		}
	}

	@Override
	public void unregister(UUID instance) {
		this.statements.sent("unregister");
		synchronized (this) {
			this.rows.remove(instance);
		}
	}

	@Override
	public int deleteSilentFor(Duration silence) {
		this.statements.sent("deleteSilentFor");
		synchronized (this) {
			Instant before = this.now.minus(silence);
			int count = 0;
			for (var rows = this.rows.values().iterator(); rows.hasNext();) {
				if (rows.next().heartbeat().isBefore(before)) {
					rows.remove();
					count++;
				}
			}
			return count;
		}
	}

	@Override
	public List<Map<String, MethodShapes>> alive(Duration lease) {
		this.statements.sent("alive");
		synchronized (this) {
			List<Map<String, MethodShapes>> alive = new ArrayList<>();
			this.rows.values()
				.stream()
				.filter((row) -> isAliveLocked(row.id(), lease))
				.forEach((row) -> alive.add(Objects.requireNonNull(MethodShapes.parse(row.shapes()))));
			return alive;
		}
	}

	@Override
	public List<InstanceStatus> instances(Duration lease) {
		this.statements.sent("instances");
		synchronized (this) {
			FakeCallRepository calls = this.calls;
			List<InstanceStatus> statuses = new ArrayList<>();
			for (Instance row : this.rows.values()) {
				long held = (calls != null) ? calls.ownedByLocked(row.id()) : 0;
				statuses.add(new InstanceStatus(row.id(), row.name(), row.heartbeat(), isAliveLocked(row.id(), lease),
						held, row.methods(), MethodShapes.parse(row.shapes())));
			}
			statuses.sort(Comparator.comparing(InstanceStatus::name).thenComparing(InstanceStatus::id));
			return statuses;
		}
	}

}
