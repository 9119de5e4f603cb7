package io.github.wheeltimer.durable;

import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

/**
 * The future a caller gets from a future-returning durable method. Cancelling it cancels the call
 * (its row is deleted, wherever it waits); it completes only if the call runs in this JVM.
 */
final class DurableResult extends CompletableFuture<@Nullable Object> {

	private final DurableClient client;

	private final DurableMethod method;

	private final UUID id;

	DurableResult(DurableClient client, DurableMethod method, UUID id) {
		this.client = client;
		this.method = method;
		this.id = id;
	}

	/**
	 * Cancels the call if it has not started: its row is deleted, in the canceller's transaction
	 * if it has one on the same {@code DataSource}.
	 */
	@Override
	public boolean cancel(boolean mayInterruptIfRunning) {
		if (isDone() || !this.client.cancel(this.method, this.id)) {
			return false;
		}
		return super.cancel(mayInterruptIfRunning);
	}

	/** The caller's transaction rolled back: the call never happens. */
	void rolledBack() {
		super.cancel(false);
	}

}
