package io.github.wheeltimer.test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.wheeltimer.annotation.DelayedExecution;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.resilience.annotation.Retryable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code @Retryable} delayed method on virtual time: five retries over an hour of exponential
 * backoff, checked at each retry's due time, in milliseconds of real time.
 */
@SpringBootTest(classes = VirtualWheelTimeRetryTests.Payments.class, properties = "wheel-timer.tick-duration=100ms")
@VirtualWheelTime
class VirtualWheelTimeRetryTests {

	@Autowired
	Gateway gateway;

	@Autowired
	VirtualWheelClock clock;

	@Test
	void aCallRetriedFiveTimesOverAnHourOfBackoffRunsEachAttemptOnItsDueTime() throws Exception {
		long realStart = System.nanoTime();
		Duration calledAt = this.clock.elapsed();
		CompletableFuture<String> captured = this.gateway.capture("payment-1");
		// The call falls due after a second, then each retry 2, 4, 8, 16 and 32 minutes after a failure.
		Duration due = calledAt.plusSeconds(1);
		List<Duration> expected = List.of(due, due.plusMinutes(2), due.plusMinutes(6), due.plusMinutes(14),
				due.plusMinutes(30), due.plusMinutes(62));
		for (int attempt = 1; attempt <= expected.size(); attempt++) {
			Duration at = expected.get(attempt - 1);
			this.clock.advance(at.minus(this.clock.elapsed()).minusMillis(100));
			assertThat(this.gateway.attempts()).as("attempt %d, never early", attempt).hasSize(attempt - 1);
			this.clock.advance(Duration.ofMillis(100));
			assertThat(this.gateway.attempts()).as("attempt %d, on its due time", attempt).hasSize(attempt);
			assertThat(this.gateway.attempts().get(attempt - 1)).isEqualTo(at);
		}
		assertThat(captured).isCompletedWithValue("captured payment-1 at attempt 6");
		System.out.printf("An hour of retries took %d ms of real time%n",
				TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - realStart));
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Payments {

		@Bean
		Gateway gateway(VirtualWheelClock clock) {
			return new Gateway(clock);
		}

	}

	static class Gateway {

		private final VirtualWheelClock clock;

		/** The virtual time of each attempt. */
		private final List<Duration> attempts = new CopyOnWriteArrayList<>();

		Gateway(VirtualWheelClock clock) {
			this.clock = clock;
		}

		/** Refused five times, then captured. */
		@DelayedExecution(delay = 1000)
		@Retryable(maxRetries = 5, delay = 2, multiplier = 2, timeUnit = TimeUnit.MINUTES)
		public CompletableFuture<String> capture(String paymentId) {
			this.attempts.add(this.clock.elapsed());
			int attempt = this.attempts.size();
			if (attempt <= 5) {
				throw new IllegalStateException("gateway busy at attempt " + attempt);
			}
			return CompletableFuture.completedFuture("captured " + paymentId + " at attempt " + attempt);
		}

		List<Duration> attempts() {
			return this.attempts;
		}

	}

}
