package io.github.wheeltimer.sample.shipping;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the shipping of paid orders, under {@code sample.shipping}. An order is sent to the
 * warehouse at once when it is paid; each time the warehouse refuses it, it is sent again
 * {@code retry-delay} later, up to {@code max-retries} times, so at most {@code max-retries + 1}
 * attempts in all.
 *
 * @param retryDelay how long to wait before sending an order the warehouse refused again, zero or
 * more: the delay of {@link WarehouseRetries#sendAgain(Shipment)} and of its {@code @Retryable}
 * @param maxRetries how many times to send an order the warehouse refused again before giving up,
 * zero or more; zero sends each order once
 * @param warehouseFailureRate the share of requests the simulated warehouse refuses, from 0 to 1
 */
@ConfigurationProperties("sample.shipping")
public record ShippingProperties(Duration retryDelay, int maxRetries, double warehouseFailureRate) {

	public ShippingProperties {
		if (retryDelay == null || retryDelay.isNegative()) {
			throw new IllegalArgumentException(
					"sample.shipping.retry-delay must be zero or more, such as 2s, but was " + retryDelay);
		}
		if (maxRetries < 0) {
			throw new IllegalArgumentException("sample.shipping.max-retries must be zero or more, but was " + maxRetries);
		}
		if (!(warehouseFailureRate >= 0 && warehouseFailureRate <= 1)) {
			throw new IllegalArgumentException(
					"sample.shipping.warehouse-failure-rate must be between 0 and 1, but was " + warehouseFailureRate);
		}
	}

}
