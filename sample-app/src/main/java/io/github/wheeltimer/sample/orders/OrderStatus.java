package io.github.wheeltimer.sample.orders;

/**
 * Where an order stands. An order starts {@link #AWAITING_PAYMENT} and moves exactly once, to
 * {@link #PAID} or to {@link #CANCELLED}.
 */
public enum OrderStatus {

	/** Created; cancelled automatically unless paid within {@code sample.orders.payment-timeout}. */
	AWAITING_PAYMENT,

	/** Paid in time. */
	PAID,

	/** Not paid in time: cancelled by the delayed call. */
	CANCELLED

}
