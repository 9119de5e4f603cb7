package io.github.wheeltimer.sample.shipping;

import java.util.concurrent.ThreadLocalRandom;

import org.springframework.stereotype.Component;

/**
 * A stand-in for a remote warehouse that refuses a share of its requests
 * ({@code sample.shipping.warehouse-failure-rate}), so that the sample has retries to show.
 */
@Component
class FlakyWarehouse implements Warehouse {

	private final double failureRate;

	FlakyWarehouse(ShippingProperties properties) {
		this.failureRate = properties.warehouseFailureRate();
	}

	@Override
	public void ship(String orderId) {
		if (ThreadLocalRandom.current().nextDouble() < this.failureRate) {
			throw new WarehouseUnavailableException("The warehouse is busy: order " + orderId + " not taken");
		}
	}

}
