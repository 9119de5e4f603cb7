package io.github.wheeltimer.sample.orders;

import java.time.Clock;

import io.github.wheeltimer.annotation.DelayedExecution;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * Cancels orders that were not paid in time: the delayed call at the heart of the sample, and a
 * durable one: it is a row in the database until it has run, so a restart, a deploy or a crash
 * does not lose it.
 * <p>
 * It is a bean of its own, not a method of {@link OrderService}, because a delayed method only
 * runs later when it is called through the bean's proxy: {@code this.cancelIfUnpaid(id)} from
 * inside the same bean would run at once.
 */
@Component
public class PaymentTimeouts {

	private static final Log logger = LogFactory.getLog(PaymentTimeouts.class);

	/** The durable id of {@link #cancelIfUnpaid(String)}, by which a payment cancels it. */
	public static final String CANCEL_IF_UNPAID = "PaymentTimeouts.cancelIfUnpaid";

	private final OrderBook orders;

	private final Clock clock;

	PaymentTimeouts(OrderBook orders, Clock clock) {
		this.orders = orders;
		this.clock = clock;
	}

	/**
	 * Cancels the order unless it was paid. Calling it returns at once; the method runs
	 * {@code sample.orders.payment-timeout} later, on whichever instance of the shop is running
	 * then. The order id is the call's key: {@link OrderService#pay(String)} cancels the call by
	 * it. {@code @Transactional}: the order's change and the end of the delayed call commit
	 * together, so even a crash in between cannot cancel an order twice.
	 * @param orderId the order's id
	 */
	@DelayedExecution(delayString = "${sample.orders.payment-timeout}", durable = true, key = "#orderId")
	@Transactional
	public void cancelIfUnpaid(String orderId) {
		logger.info("Payment timeout of order " + orderId + ": cancelling it unless it was paid");
		this.orders.update(orderId, (current) -> current.cancel(this.clock.instant()));
	}

}
