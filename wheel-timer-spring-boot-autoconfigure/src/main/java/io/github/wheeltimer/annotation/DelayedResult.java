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
	 * Written by the scheduling thread before the future is returned to anyone, and again by the
	 * thread that schedules a retry ({@link DelayedRetry}), which then checks whether a cancel
	 * came meanwhile. Only read by {@link #cancel}.
	 */
	private volatile @Nullable Timeout timeout;

	/**
	 * The attempt whose timeout {@link #timeout} is. A short retry may run, fail and schedule the
	 * next before the thread that scheduled it records its timeout: a later attempt's is never
	 * replaced by an earlier one's. Guarded by this future's lock, taken by retries only.
	 */
	private int attempt = 1;

	/** The first attempt's timeout, recorded before the future is returned to anyone. */
	void cancelsTimeout(Timeout timeout) {
		this.timeout = timeout;
	}

	/** A retry's timeout, recorded unless a later attempt's is already. */
	synchronized void cancelsRetry(Timeout timeout, int attempt) {
		if (attempt > this.attempt) {
			this.attempt = attempt;
			this.timeout = timeout;
		}
	}

	@Override
	public boolean cancel(boolean mayInterruptIfRunning) {
		boolean cancelled = super.cancel(mayInterruptIfRunning);
		Timeout timeout = this.timeout;
		if (cancelled && timeout != null) {
			timeout.cancel();
			// Observed here, on the canceller's thread, when the call is off the timer (by this cancel or
			// a racing one of its timeout); otherwise the timer had fired it, and the executor's thread
			// finds the future cancelled.
			if (timeout.isCancelled() && timeout.task() instanceof InMemoryCall call) {
				call.cancelledByCaller();
			}
		}
		return cancelled;
	}

	/**
	 * The timer let go of the call without it (its timeout was cancelled, or the timer stopped): the
	 * caller must not wait for nothing. The call observes that itself, so nothing is observed here.
	 */
	void cancelledByTimer() {
		super.cancel(false);
	}

}
