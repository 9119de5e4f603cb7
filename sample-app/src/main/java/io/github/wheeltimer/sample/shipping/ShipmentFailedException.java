package io.github.wheeltimer.sample.shipping;

/**
 * The warehouse refused every attempt to ship an order.
 */
public class ShipmentFailedException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final int attempts;

	ShipmentFailedException(String orderId, int attempts, Throwable lastFailure) {
		super("Order " + orderId + " was refused by the warehouse " + attempts + " times", lastFailure);
		this.attempts = attempts;
	}

	/**
	 * Returns how many times the order was sent.
	 * @return the number of attempts
	 */
	public int attempts() {
		return this.attempts;
	}

}
