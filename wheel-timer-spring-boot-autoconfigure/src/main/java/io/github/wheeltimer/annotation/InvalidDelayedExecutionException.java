package io.github.wheeltimer.annotation;

import java.lang.reflect.Method;

/**
 * Thrown at startup when a {@link DelayedExecution} method cannot be set up: its delay is missing,
 * negative or unparsable, its timer does not exist, its return type is not supported, or a proxy
 * cannot intercept it. The message names the method and says what is wrong.
 */
public class InvalidDelayedExecutionException extends IllegalStateException {

	private final transient Method method;

	private final String reason;

	/**
	 * Creates an exception for a method.
	 * @param method the annotated method
	 * @param reason what is wrong and what is allowed
	 */
	public InvalidDelayedExecutionException(Method method, String reason) {
		this(method, reason, null);
	}

	/**
	 * Creates an exception for a method, with its cause.
	 * @param method the annotated method
	 * @param reason what is wrong and what is allowed
	 * @param cause the underlying failure, if any
	 */
	public InvalidDelayedExecutionException(Method method, String reason, Throwable cause) {
		super("@DelayedExecution on " + MethodNames.describe(method) + " is invalid: " + reason, cause);
		this.method = method;
		this.reason = reason;
	}

	/**
	 * Returns the annotated method.
	 * @return the method
	 */
	public Method getMethod() {
		return this.method;
	}

	/**
	 * Returns what is wrong, without the method.
	 * @return the reason
	 */
	public String getReason() {
		return this.reason;
	}

}
