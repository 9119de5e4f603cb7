package io.github.wheeltimer.test.docs;

import io.github.wheeltimer.annotation.DelayedExecution;
import io.github.wheeltimer.durable.DurableCalls;

import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

import static java.util.concurrent.TimeUnit.MINUTES;

/**
 * {@code docs/durable-calls.md}, its first example: a durable call, and a payment that cancels
 * it by its method's id and key.
 */
@Component
public class PaymentTimeouts {

	private final Orders orders;

	private final DurableCalls durableCalls;

	PaymentTimeouts(Orders orders, DurableCalls durableCalls) {
		this.orders = orders;
		this.durableCalls = durableCalls;
	}

	// example: start
	@DelayedExecution(delay = 30, timeUnit = MINUTES, durable = true, key = "#orderId")
	@Transactional
	public void cancelIfUnpaid(String orderId) {          // id: PaymentTimeouts.cancelIfUnpaid
		orders.cancelUnlessPaid(orderId);
	}

	@Transactional
	public void pay(String orderId) {
		orders.markPaid(orderId);
		durableCalls.cancel("PaymentTimeouts.cancelIfUnpaid", orderId);   // from any instance, after any restart
	}
	// example: end

}
