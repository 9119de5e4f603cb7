package io.github.wheeltimer;

import java.util.concurrent.locks.LockSupport;

/**
 * The timer's source of time, and the way its worker thread waits for it.
 *
 * <p>The default, {@link #system()}, reads {@link System#nanoTime()} and parks with
 * {@link LockSupport}. A test (or a simulation) can pass its own ticker to drive a
 * {@link HashedWheelTimer} through hours of virtual time without sleeping: advancing the clock
 * must wake threads parked in {@link #park(long)} whose wait has run out.
 *
 * <p>Implementations must be thread-safe: any thread reads the time, the worker parks, and the
 * threads that schedule and cancel timeouts unpark it.
 */
public interface Ticker {

	/**
	 * Returns the current value of a monotonic clock, in nanoseconds. Only differences between
	 * two readings are meaningful; the value may be negative and may wrap around.
	 * @return the current reading
	 */
	long nanoTime();

	/**
	 * Blocks the calling thread for up to {@code nanos} of this ticker's time, or until another
	 * thread calls {@link #unpark(Thread)} for it, or until it is interrupted. Like
	 * {@link LockSupport#parkNanos(long)}, an unpark that comes before the park makes the park
	 * return at once, and the call may return early for no reason: callers re-check their
	 * condition.
	 * @param nanos the longest time to wait; {@link Long#MAX_VALUE} means without limit
	 */
	void park(long nanos);

	/**
	 * Wakes {@code thread} if it is parked in {@link #park(long)}, or makes its next park return
	 * at once.
	 * @param thread the thread to wake; ignored when {@code null}
	 */
	void unpark(Thread thread);

	/**
	 * Tells this ticker that {@code worker} is a timer's worker thread, which from now on reads
	 * and parks on it. A timer calls it once, right after starting its worker. The system ticker
	 * ignores it; a ticker that drives timers in tests uses it to know which threads it must see
	 * parked before it can say that everything due has been done.
	 * @param worker the worker thread, already started
	 */
	default void attach(Thread worker) {
	}

	/**
	 * Returns the ticker that reads {@link System#nanoTime()} and parks with {@link LockSupport}.
	 * @return the system ticker
	 */
	static Ticker system() {
		return SystemTicker.INSTANCE;
	}

}
