package io.github.wheeltimer.sample.shipping;

import java.util.concurrent.CompletableFuture;

import io.github.wheeltimer.annotation.DelayedExecution;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.resilience.annotation.Retryable;
import org.springframework.stereotype.Component;

/**
 * Sends an order the warehouse refused again, later, and again while it keeps refusing it: the
 * delayed retry of the timing-wheel literature (Dubbo retries failed registry calls this way),
 * written as Spring's {@link Retryable @Retryable} on a delayed method.
 * <p>
 * The timer honours {@code @Retryable} itself: a refused attempt ends, and the next one is a new
 * delayed call on the same timer after the retry delay, so no thread sleeps in between, and the
 * caller's future completes once, with the attempt the warehouse took or the last refusal. No
 * {@code @EnableResilientMethods} is needed for that.
 */
@Component
class WarehouseRetries {

	private static final Log logger = LogFactory.getLog(WarehouseRetries.class);

	private final Warehouse warehouse;

	WarehouseRetries(Warehouse warehouse) {
		this.warehouse = warehouse;
	}

	/**
	 * Sends the order again, {@code sample.shipping.retry-delay} after the call, on the sample's
	 * second timer, {@code retries} (see {@code application.yml}); while the warehouse refuses it,
	 * again after the same delay, {@code sample.shipping.max-retries} times in all. Each refusal
	 * is published as Spring's {@code MethodRetryEvent}, which {@link Shipping} listens to.
	 * <p>
	 * Its first run is already the order's first retry (the first attempt was {@link Shipping}'s,
	 * at once), so its own retries are one fewer than {@code max-retries}; none, not -1, when
	 * {@code max-retries} is 0, for which {@link Shipping} does not call it at all.
	 * @param shipment the order, and its attempts so far
	 * @return a future that completes with the number of attempts it took in all, or exceptionally
	 * with the warehouse's last {@link WarehouseUnavailableException}
	 */
	@DelayedExecution(delayString = "${sample.shipping.retry-delay}", timer = "retries")
	@Retryable(includes = WarehouseUnavailableException.class, delayString = "${sample.shipping.retry-delay}",
			maxRetriesString = "#{T(Math).max(0, ${sample.shipping.max-retries} - 1)}")
	public CompletableFuture<Integer> sendAgain(Shipment shipment) {
		int attempt = shipment.startAttempt();
		// With tracing on, in the trace of the request that paid the order, as a child span.
		logger.info("Sending order " + shipment.orderId() + " to the warehouse again (attempt " + attempt + ")");
		this.warehouse.ship(shipment.orderId());
		return CompletableFuture.completedFuture(attempt);
	}

}
