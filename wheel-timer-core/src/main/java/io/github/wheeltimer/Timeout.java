package io.github.wheeltimer;

import java.time.Duration;

/**
 * The handle of one scheduled run of a {@link TimerTask}, returned by
 * {@link Timer#newTimeout(TimerTask, long, java.util.concurrent.TimeUnit)}.
 *
 * <p>A timeout ends in exactly one way: it <em>expires</em> (its task is handed to be run), or it
 * is <em>cancelled</em>, by {@link #cancel()} or by the timer's stop. Its {@code toString()}
 * names the task, the deadline and the state, for logs and diagnostics.
 */
public interface Timeout {

	/**
	 * Returns the timer that created this handle.
	 * @return the timer
	 */
	Timer timer();

	/**
	 * Returns the task this handle runs.
	 * @return the task
	 */
	TimerTask task();

	/**
	 * Returns whether the deadline passed and the task was handed to be run (it may still be
	 * running, or have failed).
	 * @return whether this timeout expired
	 */
	boolean isExpired();

	/**
	 * Returns whether this timeout was cancelled, by {@link #cancel()} or by the timer's stop.
	 * @return whether this timeout was cancelled
	 */
	boolean isCancelled();

	/**
	 * Cancels this timeout so that its task never runs. Cheap, safe from any thread, and
	 * idempotent; the timer releases the timeout within about one tick.
	 * @return {@code true} if this call cancelled it; {@code false} if it had already expired or
	 * been cancelled
	 */
	boolean cancel();

	/**
	 * Returns how long until the deadline: negative once the deadline has passed. The task runs
	 * on the first tick at or after the deadline, so it may run up to one tick later than this says.
	 * @return the time left until the deadline
	 */
	Duration remainingDelay();

}
