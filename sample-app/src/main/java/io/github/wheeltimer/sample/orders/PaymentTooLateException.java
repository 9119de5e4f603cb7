package io.github.wheeltimer.sample.orders;

/**
 * Thrown when an order is paid after it was cancelled for want of payment; answered with
 * {@code 409}.
 */
public class PaymentTooLateException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	PaymentTooLateException(Order order) {
		super("Order " + order.id() + " was cancelled at " + order.cancelledAt()
				+ ": it was not paid before " + order.paymentDue());
	}

}
