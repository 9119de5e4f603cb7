package io.github.wheeltimer.sample.orders;

/**
 * Whether the warehouse has taken a paid order.
 */
public enum ShipmentStatus {

	/** The order is not paid, so nothing was sent. */
	NOT_REQUESTED,

	/** Sent to the warehouse, which has not accepted it yet: a retry may be waiting on the wheel. */
	IN_PROGRESS,

	/** The warehouse accepted the order. */
	SHIPPED,

	/** The warehouse refused every attempt. */
	FAILED

}
