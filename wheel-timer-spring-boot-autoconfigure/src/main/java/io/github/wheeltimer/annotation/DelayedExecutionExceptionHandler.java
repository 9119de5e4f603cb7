package io.github.wheeltimer.annotation;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * Handles exceptions thrown by {@link DelayedExecution} methods that return {@code void}, whose
 * caller has long returned and cannot see them. Define one bean of this type to report them your
 * way; without one, they are logged at ERROR with the method. (Methods that return a future
 * complete it exceptionally instead.)
 * <p>
 * Shaped like Spring's {@code AsyncUncaughtExceptionHandler}. It runs on the thread that ran the
 * method; an exception it throws itself is logged and goes no further.
 */
@FunctionalInterface
public interface DelayedExecutionExceptionHandler {

	/**
	 * Handles an exception thrown by a delayed method, or the refusal of the executor to run it.
	 * @param ex the exception
	 * @param method the delayed method
	 * @param params the arguments of the call
	 */
	void handleUncaughtException(Throwable ex, Method method, @Nullable Object... params);

}
