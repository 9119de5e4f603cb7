package io.github.wheeltimer.sample.shipping;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

/**
 * One order on its way to the warehouse, from its first attempt to its last: the argument of
 * {@link WarehouseRetries#sendAgain(Shipment)}, which counts its attempts here.
 * <p>
 * A retry of a delayed call runs with the same arguments as the attempt before it (an in-memory
 * call holds them by reference), so each attempt finds the count that the one before left. A
 * shipment of its own for each call, rather than a count per order id, keeps two shipments of the
 * same order apart. Thread-safe: the attempts run on the timer's executor, one after the other,
 * and the caller reads the count when the last one has ended.
 */
final class Shipment {

	private final String orderId;

	private final IntConsumer refused;

	private final AtomicInteger attempts = new AtomicInteger();

	/**
	 * @param orderId the order's id
	 * @param refused told the number of attempts so far, after each refusal
	 */
	Shipment(String orderId, IntConsumer refused) {
		this.orderId = orderId;
		this.refused = refused;
	}

	String orderId() {
		return this.orderId;
	}

	/**
	 * Counts an attempt that starts.
	 * @return its number, from 1
	 */
	int startAttempt() {
		return this.attempts.incrementAndGet();
	}

	/**
	 * Returns how many attempts have started so far.
	 * @return the number of attempts
	 */
	int attempts() {
		return this.attempts.get();
	}

	/** The warehouse refused the latest attempt. */
	void refused() {
		this.refused.accept(attempts());
	}

	@Override
	public String toString() {
		return "shipment of order " + this.orderId;
	}

}
