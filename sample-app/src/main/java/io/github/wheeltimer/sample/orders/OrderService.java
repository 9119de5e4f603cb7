package io.github.wheeltimer.sample.orders;

import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Future;

import io.github.wheeltimer.sample.shipping.ShipmentFailedException;
import io.github.wheeltimer.sample.shipping.Shipping;

import org.springframework.core.task.TaskRejectedException;
import org.springframework.stereotype.Service;

/**
 * Creates and pays orders. Every order gets a delayed call that cancels it unless it is paid in
 * time; a payment cancels that call and sends the order to the warehouse.
 */
@Service
public class OrderService {

	private final OrderBook orders;

	private final PaymentTimeouts paymentTimeouts;

	private final Shipping shipping;

	private final OrderProperties properties;

	private final Clock clock;

	// The delayed cancellation of each unpaid order, so that paying it can take the call off the
	// wheel. Removed when the call completes, whichever way.
	private final ConcurrentMap<String, Future<OrderStatus>> pendingCancellations = new ConcurrentHashMap<>();

	OrderService(OrderBook orders, PaymentTimeouts paymentTimeouts, Shipping shipping, OrderProperties properties,
			Clock clock) {
		this.orders = orders;
		this.paymentTimeouts = paymentTimeouts;
		this.shipping = shipping;
		this.properties = properties;
		this.clock = clock;
	}

	/**
	 * Creates an order that awaits payment, and arms its cancellation.
	 * @param item what is ordered
	 * @return the new order
	 * @throws TaskRejectedException if the timer refuses the delayed cancellation (it was
	 * stopped); the order is then not kept
	 */
	public Order create(String item) {
		Instant now = this.clock.instant();
		Order order = this.orders
			.add((id) -> Order.awaitingPayment(id, item, now, now.plus(this.properties.paymentTimeout())));
		CompletableFuture<OrderStatus> cancellation;
		try {
			cancellation = this.paymentTimeouts.cancelIfUnpaid(order.id());
		}
		catch (TaskRejectedException ex) {
			// Without its cancellation the order would await payment for ever.
			this.orders.remove(order.id());
			throw ex;
		}
		// A payment that slips in before this line leaves the call on the wheel: when it runs, it
		// finds the order paid and changes nothing.
		this.pendingCancellations.put(order.id(), cancellation);
		cancellation.whenComplete((status, failure) -> this.pendingCancellations.remove(order.id(), cancellation));
		return order;
	}

	/**
	 * Pays an order. Paying a paid order again changes nothing.
	 * @param id the order's id
	 * @return the paid order
	 * @throws OrderNotFoundException if there is no such order
	 * @throws PaymentTooLateException if the order was already cancelled
	 */
	public Order pay(String id) {
		OrderBook.Change change = this.orders.update(id, (order) -> order.pay(this.clock.instant()));
		Order order = change.after();
		if (order.status() == OrderStatus.CANCELLED) {
			throw new PaymentTooLateException(order);
		}
		if (change.changed()) {
			Future<OrderStatus> cancellation = this.pendingCancellations.remove(id);
			if (cancellation != null) {
				// false: if the cancellation is already running, let it finish; it will see the
				// order paid.
				cancellation.cancel(false);
			}
			this.shipping.ship(id, (refused) -> this.orders.update(id,
					(current) -> current.shipment(ShipmentStatus.IN_PROGRESS, refused, null)))
				.whenComplete((attempts, failure) -> recordShipment(id, attempts, failure));
		}
		// As it stands now: the warehouse may have taken it already.
		return this.orders.find(id).orElse(order);
	}

	private void recordShipment(String id, Integer attempts, Throwable failure) {
		if (failure == null) {
			this.orders.update(id, (order) -> order.shipment(ShipmentStatus.SHIPPED, attempts, null));
			return;
		}
		Throwable cause = (failure instanceof CompletionException) ? failure.getCause() : failure;
		this.orders.update(id, (order) -> order.shipment(ShipmentStatus.FAILED,
				(cause instanceof ShipmentFailedException failed) ? failed.attempts() : order.shipmentAttempts(),
				cause.getMessage()));
	}

}
