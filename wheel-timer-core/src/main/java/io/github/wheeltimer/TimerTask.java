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

}
