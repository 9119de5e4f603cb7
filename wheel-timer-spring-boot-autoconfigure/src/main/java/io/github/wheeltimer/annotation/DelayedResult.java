package io.github.wheeltimer.annotation;

import java.util.concurrent.CompletableFuture;

import io.github.wheeltimer.Timeout;
import org.jspecify.annotations.Nullable;

/**
 * The future a caller gets from a future-returning {@link DelayedExecution} method. Cancelling it
 * also cancels the pending timeout, so the timer lets go of the call at once.
 */
final class DelayedResult extends CompletableFuture<@Nullable Object> {

	/**
	 * Written by the scheduling thread before the future is returned to anyone, so a thread that
	 * was handed the future sees it through that hand-off. Only read by {@link #cancel}.
	 */
	private @Nullable Timeout timeout;

	void cancelsTimeout(Timeout timeout) {
		this.timeout = timeout;
	}

	@Override
	public boolean cancel(boolean mayInterruptIfRunning) {
		boolean cancelled = super.cancel(mayInterruptIfRunning);
		Timeout timeout = this.timeout;
		// Observed here, on the canceller's thread, when this cancel took the call off the timer;
		// otherwise the timer had fired it, and the executor's thread finds the future cancelled.
		if (cancelled && timeout != null && timeout.cancel() && timeout.task() instanceof DelayedCall call) {
			call.cancelledByCaller();
		}
		return cancelled;
	}

}
