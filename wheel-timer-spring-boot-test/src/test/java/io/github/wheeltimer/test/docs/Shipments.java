package io.github.wheeltimer.test.docs;

import java.util.concurrent.TimeUnit;

import io.github.wheeltimer.annotation.DelayedExecution;

import org.springframework.resilience.annotation.Retryable;

/**
 * {@code docs/annotation.md}, "Failures and retries": a durable delayed method that Spring's
 * {@code @Retryable} retries on the wheel. Compiled, not run (the sample's
 * {@code ShipmentRetryTests} runs its retries).
 */
class Shipments {

	private final Warehouse warehouse;

	Shipments(Warehouse warehouse) {
		this.warehouse = warehouse;
	}

	// example: start
	@DelayedExecution(delay = 5, timeUnit = TimeUnit.SECONDS, durable = true, key = "#orderId")
	@Retryable(includes = WarehouseUnavailableException.class, maxRetries = 4, delay = 2000, multiplier = 2,
			maxDelay = 60000)
	public void ship(String orderId) {
		warehouse.ship(orderId);          // throws WarehouseUnavailableException while it is busy
	}
	// example: end

	interface Warehouse {

		void ship(String orderId);

	}

	static class WarehouseUnavailableException extends RuntimeException {

	}

}
