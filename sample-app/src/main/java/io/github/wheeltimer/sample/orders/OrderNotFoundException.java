package io.github.wheeltimer.sample.orders;

/**
 * Thrown when no order has the given id; answered with {@code 404}.
 */
public class OrderNotFoundException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	OrderNotFoundException(String id) {
		super("No order " + id);
	}

}
