package io.github.wheeltimer.test.docs;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.wheeltimer.annotation.DelayedExecution;
import io.github.wheeltimer.test.VirtualWheelClock;
import io.github.wheeltimer.test.VirtualWheelTime;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.resilience.annotation.Retryable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code docs/testing.md}, "Testing your delayed methods": an hour of {@code @Retryable} backoff,
 * on virtual time. Its two marked regions are the page's example.
 */
@SpringBootTest(classes = PaymentCaptureTests.Payments.class)
@VirtualWheelTime
class PaymentCaptureTests {

	@Autowired
	Gateway gateway;

	@Autowired
	PaymentProvider provider;

	@Autowired
	VirtualWheelClock clock;

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Payments {

		@Bean
		PaymentProvider provider() {
			return new PaymentProvider();
		}

		@Bean
		Gateway gateway(PaymentProvider provider) {
			return new Gateway(provider);
		}

	}

	static class Gateway {

		private final PaymentProvider provider;

		Gateway(PaymentProvider provider) {
			this.provider = provider;
		}

		// example: start
		@DelayedExecution(delay = 1000)
		@Retryable(maxRetries = 5, delay = 2, multiplier = 2, timeUnit = TimeUnit.MINUTES)
		public CompletableFuture<String> capture(String paymentId) {
			return CompletableFuture.completedFuture(provider.capture(paymentId));   // busy five times
		}

		// example: end
	}

	/** Refuses five captures, then captures. */
	static class PaymentProvider {

		final AtomicInteger attempts = new AtomicInteger();

		String capture(String paymentId) {
			if (this.attempts.incrementAndGet() <= 5) {
				throw new IllegalStateException("busy");
			}
			return "captured " + paymentId;
		}

	}

	@Test
	void aCaptureRefusedFiveTimesCompletesWithTheSixthAttemptsValueAfterSixtyThreeMinutes() {
		// example: start
		CompletableFuture<String> captured = gateway.capture("payment-1");
		clock.advance(Duration.ofMinutes(63));           // 1 s, then retries after 2, 4, 8, 16 and 32 minutes
		assertThat(captured).isCompletedWithValue("captured payment-1");   // the sixth attempt's value
		// example: end
		assertThat(this.provider.attempts).hasValue(6);
	}

}
