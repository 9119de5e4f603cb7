package io.github.wheeltimer.sample.orders;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the orders, under {@code sample.orders}.
 *
 * @param paymentTimeout how long an order waits for its payment before it is cancelled; also the
 * delay of {@link PaymentTimeouts#cancelIfUnpaid(String)}
 */
@ConfigurationProperties("sample.orders")
public record OrderProperties(Duration paymentTimeout) {

	public OrderProperties {
		if (paymentTimeout == null || paymentTimeout.isNegative() || paymentTimeout.isZero()) {
			throw new IllegalArgumentException(
					"sample.orders.payment-timeout must be positive, such as 30s or 30m, but was " + paymentTimeout);
		}
	}

}
