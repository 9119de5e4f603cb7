package io.github.wheeltimer;

/**
 * The work a {@link Timer} runs when a {@link Timeout} falls due.
 *
 * <p>On a {@link HashedWheelTimer} without a task executor, tasks run one after another on the
 * timer's single worker thread: a task that blocks delays every other timeout. Keep tasks short,
 * or give the timer an executor.
 */
@FunctionalInterface
public interface TimerTask {

	/**
	 * Runs the task. An exception thrown here is logged and counted as a failure; it never stops
	 * the timer.
	 * @param timeout the handle this task was scheduled with
	 * @throws Exception if the task fails
	 */
	void run(Timeout timeout) throws Exception;

	/**
	 * Called when its caller cancelled the timeout with {@link Timeout#cancel()}: the task will never
	 * run. Netty 4.2's contract, so Netty code ports as it is: called once, on the timer's worker
	 * thread, after the timeout has left the wheel (within about a tick of the cancel), also when the
	 * timer stops before getting to it. It is not called for a timeout that ran, nor for one that the
	 * timer's stop cancelled ({@link #unprocessed(Timeout)} is).
	 * <p>
	 * Use it to release what the task holds. Keep it short: it runs on the worker thread, between
	 * ticks. An exception thrown here is logged and goes no further. The default does nothing.
	 * @param timeout the handle this task was scheduled with, now cancelled
	 */
	default void cancelled(Timeout timeout) {
	}

	/**
	 * Called instead of {@link #run(Timeout)} when the timer stopped before the timeout fell due:
	 * the timeout is cancelled, counted as unprocessed, and this task will never run. It is called
	 * once per such timeout, before {@link Timer#stop()} returns, on the thread that ends the timer
	 * (its worker thread, normally), including when the worker thread dies. It is not called for a
	 * timeout its caller cancelled with {@link Timeout#cancel()}, nor for one that ran.
	 * <p>
	 * Use it to release whoever waits for the task, such as completing a future exceptionally.
	 * Keep it short: {@code stop()} waits for it. An exception thrown here is logged and goes no
	 * further. The default does nothing.
	 * @param timeout the handle this task was scheduled with, now cancelled
	 */
	default void unprocessed(Timeout timeout) {
	}

}
