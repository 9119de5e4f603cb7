package io.github.wheeltimer.sample.orders;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * An order, as {@code GET /orders/{id}} shows it. Immutable: each change makes a new one, and
 * {@link OrderBook} swaps it in atomically.
 *
 * @param id the order's number
 * @param item what was ordered
 * @param status where the order stands
 * @param createdAt when the order was created
 * @param paymentDue when it is cancelled unless paid before
 * @param paidAt when it was paid, or {@code null}
 * @param cancelledAt when it was cancelled, or {@code null}
 * @param shipment whether the warehouse has taken it
 * @param shipmentAttempts how many times it was sent to the warehouse so far
 * @param shipmentProblem why the shipment failed, or {@code null}
 */
public record Order(String id, String item, OrderStatus status, Instant createdAt, Instant paymentDue,
		@Nullable Instant paidAt, @Nullable Instant cancelledAt, ShipmentStatus shipment, int shipmentAttempts,
		@Nullable String shipmentProblem) {

	static Order awaitingPayment(String id, String item, Instant createdAt, Instant paymentDue) {
		return new Order(id, item, OrderStatus.AWAITING_PAYMENT, createdAt, paymentDue, null, null,
				ShipmentStatus.NOT_REQUESTED, 0, null);
	}

	/**
	 * Returns this order paid at the given instant, or this order unchanged if it no longer awaits
	 * payment.
	 */
	Order pay(Instant now) {
		if (this.status != OrderStatus.AWAITING_PAYMENT) {
			return this;
		}
		return new Order(this.id, this.item, OrderStatus.PAID, this.createdAt, this.paymentDue, now, null,
				ShipmentStatus.IN_PROGRESS, 0, null);
	}

	/**
	 * Returns this order cancelled at the given instant, or this order unchanged if it no longer
	 * awaits payment.
	 */
	Order cancel(Instant now) {
		if (this.status != OrderStatus.AWAITING_PAYMENT) {
			return this;
		}
		return new Order(this.id, this.item, OrderStatus.CANCELLED, this.createdAt, this.paymentDue, null, now,
				ShipmentStatus.NOT_REQUESTED, 0, null);
	}

	Order shipment(ShipmentStatus shipment, int attempts, @Nullable String problem) {
		return new Order(this.id, this.item, this.status, this.createdAt, this.paymentDue, this.paidAt,
				this.cancelledAt, shipment, attempts, problem);
	}

}
