package io.github.wheeltimer.annotation;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * Keeps the calls of a {@link DelayedExecution} method until they fall due: on the method's
 * timer, in memory, or as rows in the database for durable methods. The advice hands each call to
 * its method's scheduler, on the caller's thread; the call path decides nothing else.
 */
public interface DelayedCallScheduler {

	/**
	 * Accepts a call, on the caller's thread, and returns at once.
	 * @param method the resolved method
	 * @param invocation the call
	 * @return {@code null} for a {@code void} method, else the caller's future
	 * @throws RuntimeException if the call cannot be accepted, saying why
	 */
	@Nullable Object schedule(DelayedMethod method, MethodInvocation invocation);

	/**
	 * Returns whether calls are kept in the database rather than in memory.
	 * @return {@code true} for durable calls
	 */
	default boolean durable() {
		return false;
	}

}
