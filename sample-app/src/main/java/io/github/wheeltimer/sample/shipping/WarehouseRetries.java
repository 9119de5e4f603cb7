package io.github.wheeltimer.sample.shipping;

import java.util.concurrent.CompletableFuture;

import io.github.wheeltimer.annotation.DelayedExecution;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.stereotype.Component;

/**
 * Sends an order to the warehouse again, later: the delayed retry of the timing-wheel literature
 * (Dubbo retries failed registry calls this way).
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
	 * second timer, {@code retries} (see {@code application.yml}). The returned
	 * future completes when it has been sent, or exceptionally with the warehouse's
	 * {@link WarehouseUnavailableException}: that is what lets {@link Shipping} chain the next
	 * attempt without blocking a thread in between.
	 */
	@DelayedExecution(delayString = "${sample.shipping.retry-delay}", timer = "retries")
	public CompletableFuture<Void> shipAgain(String orderId) {
		// With tracing on, in the trace of the request that paid the order, as a child span.
		logger.info("Sending order " + orderId + " to the warehouse again");
		this.warehouse.ship(orderId);
		return CompletableFuture.completedFuture(null);
	}

}
