package io.github.wheeltimer.annotation;

import io.github.wheeltimer.TimerTask;

/**
 * What a timer holds for one call of a {@link DelayedExecution} method: an in-memory call, or a
 * durable call this instance claimed. Reports and monitoring read a timeout's method through it.
 */
public interface DelayedTask extends TimerTask {

	/**
	 * Returns the method this call runs.
	 * @return the method
	 */
	DelayedMethod method();

	/**
	 * Returns whether the call is durable: kept in the database, so that if the timer stops
	 * before it runs, it is handed back there rather than lost.
	 * @return {@code true} for a durable call
	 */
	default boolean durable() {
		return false;
	}

}
