package io.github.wheeltimer.actuate;

/**
 * Thrown by {@link DurableCallsOperations} when the database of the durable calls cannot answer
 * a request of the endpoint; over HTTP, a 503 that says why. A type of the endpoint's own, so that
 * the endpoint names no class of Spring JDBC.
 */
public class DurableCallsUnavailableException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates the exception.
	 * @param message what is wrong with the database
	 * @param cause the failure, if any
	 */
	public DurableCallsUnavailableException(String message, Throwable cause) {
		super(message, cause);
	}

}
