package io.github.wheeltimer.durable.run;

import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

import org.jspecify.annotations.Nullable;

/**
 * The future a caller gets from a future-returning durable method. Cancelling it cancels the call
 * (its row is deleted, wherever it waits); it completes only if the call runs in this JVM.
 */
public final class DurableResult extends CompletableFuture<@Nullable Object> {

	private final BooleanSupplier cancelCall;

	/**
	 * @param cancelCall deletes the call's row if it has not started, and says whether it did
	 */
	public DurableResult(BooleanSupplier cancelCall) {
		this.cancelCall = cancelCall;
	}

	/**
	 * Cancels the call if it has not started: its row is deleted, in the canceller's transaction
	 * if it has one on the same {@code DataSource}.
	 */
	@Override
	public boolean cancel(boolean mayInterruptIfRunning) {
		if (isDone() || !this.cancelCall.getAsBoolean()) {
			return false;
		}
		return super.cancel(mayInterruptIfRunning);
	}

	/** The caller's transaction rolled back: the call never happens. */
	public void rolledBack() {
		super.cancel(false);
	}

}
