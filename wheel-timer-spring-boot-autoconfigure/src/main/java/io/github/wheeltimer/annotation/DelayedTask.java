package io.github.wheeltimer.annotation;

import java.util.UUID;

import io.github.wheeltimer.Timeout;
import io.github.wheeltimer.TimerTask;
import org.jspecify.annotations.Nullable;

/**
 * What a timer holds for one call of a {@link DelayedExecution} method: an in-memory call, or a
 * durable call this instance claimed. Reports and monitoring read a timeout's method, and a durable
 * call's key and id, through it.
 */
public interface DelayedTask extends TimerTask {

	/**
	 * Returns the {@link DelayedExecution} method whose call a timeout holds, such as one listed
	 * by {@link io.github.wheeltimer.HashedWheelTimer#nextTimeouts(int, java.time.Duration)} or returned by a stop.
	 * @param timeout a timeout of any timer
	 * @return the method, or {@code null} if the timeout runs a plain {@link TimerTask}
	 */
	static @Nullable DelayedMethod methodOf(Timeout timeout) {
		return (timeout.task() instanceof DelayedTask call) ? call.method() : null;
	}

	/**
	 * Describes what a timeout runs: the {@link DelayedMethod#description()} of its delayed method,
	 * or the class name of a plain {@link TimerTask}.
	 * @param timeout a timeout of any timer
	 * @return the description
	 */
	static String describe(Timeout timeout) {
		DelayedMethod method = methodOf(timeout);
		return (method != null) ? method.description() : timeout.task().getClass().getName();
	}

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

	/**
	 * Returns the key of a durable call made with one ({@link DelayedExecution#key()}), such as an
	 * order's id: what operators know a call by.
	 * @return the key, or {@code null} for an in-memory call or a durable call without one
	 */
	default @Nullable String key() {
		return null;
	}

	/**
	 * Returns the id of a durable call: its row's, the one the {@code wheeltimer} endpoint lists
	 * failed calls by. Not the method's durable id.
	 * @return the id, or {@code null} for an in-memory call
	 */
	default @Nullable UUID id() {
		return null;
	}

	/**
	 * Returns the attempt this call's timeout runs: 1 for a call's first run, more for a retry
	 * ({@link DelayedRetry}); a durable call counts every run of its row, on any instance.
	 * @return the attempt, from 1
	 */
	default int attempt() {
		return 1;
	}

}
