package io.github.wheeltimer;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Runs a {@link TimerTask} once, after a delay.
 *
 * <p>Implementations are safe to call from any thread. {@link HashedWheelTimer} is the
 * implementation this library provides.
 */
public interface Timer {

	/**
	 * Schedules {@code task} to run once after {@code delay}.
	 * <p>A zero or negative delay means "as soon as possible": for a wheel, the next tick.
	 * @param task what to run; not {@code null}
	 * @param delay how long to wait, in {@code unit}
	 * @param unit the unit of {@code delay}; not {@code null}
	 * @return the handle that cancels or inspects the scheduled run
	 * @throws IllegalStateException if the timer has been stopped
	 * @throws RejectedExecutionException if the timer cannot accept more pending timeouts
	 */
	Timeout newTimeout(TimerTask task, long delay, TimeUnit unit);

	/**
	 * Schedules {@code task} to run once after {@code delay}; see
	 * {@link #newTimeout(TimerTask, long, TimeUnit)}. A delay too long to be expressed in
	 * nanoseconds (about 292 years) is treated as that maximum, which never fires in practice.
	 * @param task what to run; not {@code null}
	 * @param delay how long to wait; not {@code null}
	 * @return the handle that cancels or inspects the scheduled run
	 */
	default Timeout newTimeout(TimerTask task, Duration delay) {
		Objects.requireNonNull(delay, "delay must not be null");
		return newTimeout(task, Durations.saturatedNanos(delay), TimeUnit.NANOSECONDS);
	}

	/**
	 * Stops the timer: it accepts no new timeouts, cancels every timeout that has not run yet and
	 * returns them, so the caller can see (and, if it wants, re-schedule elsewhere) what never ran.
	 * Before it returns, each of their tasks is told through {@link TimerTask#unprocessed(Timeout)}.
	 * @return the timeouts that were pending when the timer stopped, each now cancelled; empty
	 * when the timer was already stopped
	 */
	Set<Timeout> stop();

}
