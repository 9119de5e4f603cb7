package io.github.wheeltimer.sample.shipping;

/**
 * An order could not be shipped: the warehouse refused every attempt, or a retry could not wait
 * for its turn because the timer stopped.
 */
public class ShipmentFailedException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final int attempts;

	ShipmentFailedException(String message, int attempts, Throwable cause) {
		super(message, cause);
		this.attempts = attempts;
	}

	static ShipmentFailedException refusedEveryTime(String orderId, int attempts, Throwable lastRefusal) {
		return new ShipmentFailedException("The warehouse refused order " + orderId + " " + times(attempts)
				+ "; no attempt is left", attempts, lastRefusal);
	}

	static ShipmentFailedException notRetried(String orderId, int attempts, Throwable why) {
		return new ShipmentFailedException(
				"Order " + orderId + " was refused " + times(attempts) + " and cannot be retried: the timer has stopped",
				attempts, why);
	}

	private static String times(int attempts) {
		return attempts + ((attempts == 1) ? " time" : " times");
	}

	/**
	 * Returns how many times the order was sent.
	 * @return the number of attempts
	 */
	public int attempts() {
		return this.attempts;
	}

}
