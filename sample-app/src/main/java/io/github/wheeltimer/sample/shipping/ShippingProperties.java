package io.github.wheeltimer.sample.shipping;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the shipping of paid orders, under {@code sample.shipping}.
 *
 * @param retryDelay how long to wait before sending an order the warehouse refused again; the
 * delay of {@link WarehouseRetries#shipAgain(String)}
 * @param maxAttempts how many times to send an order before giving up, at least 1
 * @param warehouseFailureRate the share of requests the simulated warehouse refuses, from 0 to 1
 */
@ConfigurationProperties("sample.shipping")
public record ShippingProperties(Duration retryDelay, int maxAttempts, double warehouseFailureRate) {

	public ShippingProperties {
		if (retryDelay == null || retryDelay.isNegative()) {
			throw new IllegalArgumentException(
					"sample.shipping.retry-delay must be zero or more, such as 2s, but was " + retryDelay);
		}
		if (maxAttempts < 1) {
			throw new IllegalArgumentException("sample.shipping.max-attempts must be at least 1, but was " + maxAttempts);
		}
		if (!(warehouseFailureRate >= 0 && warehouseFailureRate <= 1)) {
			throw new IllegalArgumentException(
					"sample.shipping.warehouse-failure-rate must be between 0 and 1, but was " + warehouseFailureRate);
		}
	}

}
