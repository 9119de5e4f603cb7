package io.github.wheeltimer.sample.shipping;

/**
 * The warehouse could not take an order now; it may later.
 */
public class WarehouseUnavailableException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	public WarehouseUnavailableException(String message) {
		super(message);
	}

}
