package io.github.wheeltimer.sample.orders;

import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.CompletionException;

import io.github.wheeltimer.durable.DurableCalls;

import io.github.wheeltimer.sample.shipping.ShipmentFailedException;
import io.github.wheeltimer.sample.shipping.Shipping;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.stereotype.Service;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Creates and pays orders. Every order gets a durable delayed call that cancels it unless it is
 * paid in time; a payment cancels that call, by the order's id, wherever it waits, and sends the
 * order to the warehouse.
 */
@Service
public class OrderService {

	private static final Log logger = LogFactory.getLog(OrderService.class);

	private final OrderBook orders;

	private final PaymentTimeouts paymentTimeouts;

	private final DurableCalls durableCalls;

	private final Shipping shipping;

	private final OrderProperties properties;

	private final Clock clock;

	private final TransactionTemplate transactions;

	OrderService(OrderBook orders, PaymentTimeouts paymentTimeouts, DurableCalls durableCalls, Shipping shipping,
			OrderProperties properties, Clock clock, PlatformTransactionManager transactionManager) {
		this.orders = orders;
		this.paymentTimeouts = paymentTimeouts;
		this.durableCalls = durableCalls;
		this.shipping = shipping;
		this.properties = properties;
		this.clock = clock;
		this.transactions = new TransactionTemplate(transactionManager);
	}

	/**
	 * Creates an order that awaits payment, and arms its cancellation, in one transaction: if the
	 * cancellation cannot be written, the order is not kept either.
	 * @param item what is ordered
	 * @return the new order
	 */
	@Transactional
	public Order create(String item) {
		Instant now = this.clock.instant();
		Order order = this.orders
			.add((id) -> Order.awaitingPayment(id, item, now, now.plus(this.properties.paymentTimeout())));
		this.paymentTimeouts.cancelIfUnpaid(order.id());
		// With tracing on, this line and the payment timeout's share a trace, through a link.
		logger.info("Order " + order.id() + " awaits payment; it cancels itself in " + this.properties.paymentTimeout()
				+ " unless paid");
		return order;
	}

	/**
	 * Pays an order, and cancels its cancellation in the same transaction. Paying a paid order
	 * again changes nothing.
	 * @param id the order's id
	 * @return the paid order
	 * @throws OrderNotFoundException if there is no such order
	 * @throws PaymentTooLateException if the order was already cancelled
	 */
	public Order pay(String id) {
		Order order = payNow(id);
		// After the commit: the warehouse is told only about a payment that stands.
		this.shipping.ship(id, (refused) -> this.orders.update(id,
				(current) -> current.shipment(ShipmentStatus.IN_PROGRESS, refused, null)))
			.whenComplete((attempts, failure) -> recordShipment(id, attempts, failure));
		// As it stands now: the warehouse may have taken it already.
		return this.orders.find(id).orElse(order);
	}

	private Order payNow(String id) {
		return this.transactions.execute((status) -> {
			OrderBook.Change change = this.orders.update(id, (order) -> order.pay(this.clock.instant()));
			Order order = change.after();
			if (order.status() == OrderStatus.CANCELLED) {
				throw new PaymentTooLateException(order);
			}
			if (change.changed()) {
				// Wherever the call waits: on this wheel, in the database, or on another instance.
				this.durableCalls.cancel(PaymentTimeouts.CANCEL_IF_UNPAID, id);
			}
			return order;
		});
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
