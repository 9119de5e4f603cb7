package io.github.wheeltimer.sample.orders;

import java.time.Clock;
import java.util.concurrent.CompletableFuture;

import io.github.wheeltimer.annotation.DelayedExecution;

import org.springframework.stereotype.Component;

/**
 * Cancels orders that were not paid in time: the delayed call at the heart of the sample.
 * <p>
 * It is a bean of its own, not a method of {@link OrderService}, because a delayed method only
 * runs later when it is called through the bean's proxy: {@code this.cancelIfUnpaid(id)} from
 * inside the same bean would run at once.
 */
@Component
public class PaymentTimeouts {

	private final OrderBook orders;

	private final Clock clock;

	PaymentTimeouts(OrderBook orders, Clock clock) {
		this.orders = orders;
		this.clock = clock;
	}

	/**
	 * Cancels the order unless it was paid. Calling it returns at once; the method runs
	 * {@code sample.orders.payment-timeout} later. The future lets {@link OrderService} cancel the
	 * delayed call when the order is paid, so a paid order does not keep it on the wheel.
	 * @param orderId the order's id
	 * @return the order's status once the method has run: {@code CANCELLED}, or {@code PAID} if the
	 * payment came first
	 */
	@DelayedExecution(delayString = "${sample.orders.payment-timeout}")
	public CompletableFuture<OrderStatus> cancelIfUnpaid(String orderId) {
		Order order = this.orders.update(orderId, (current) -> current.cancel(this.clock.instant())).after();
		return CompletableFuture.completedFuture(order.status());
	}

}
