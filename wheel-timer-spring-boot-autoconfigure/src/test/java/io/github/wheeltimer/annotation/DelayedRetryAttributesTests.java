package io.github.wheeltimer.annotation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.mock.env.MockEnvironment;
import org.springframework.resilience.annotation.Retryable;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Each attribute of Spring's {@code @Retryable} means, for a delayed method, what Spring's
 * reference says: read as Spring reads it, decided by Spring's own policy and backoff.
 */
class DelayedRetryAttributesTests {

	private final MockEnvironment environment = new MockEnvironment().withProperty("retry.delay", "3s")
		.withProperty("retry.max", "2");

	@Test
	void maxRetriesCountsRetriesNotAttempts() {
		DelayedRetry retry = retry("twoRetries");
		assertThat(retry.next(new IllegalStateException(), 1, Duration.ZERO).delay()).isEqualTo(Duration.ofMillis(10));
		assertThat(retry.next(new IllegalStateException(), 2, Duration.ZERO).retries()).isTrue();
		assertThat(retry.next(new IllegalStateException(), 3, Duration.ZERO).stop()).contains("its retries are spent (maxRetries = 2)");
	}

	@Test
	void theMultiplierGrowsTheDelayUpToMaxDelay() {
		DelayedRetry retry = retry("growing");
		assertThat(retry.next(new IllegalStateException(), 1, Duration.ZERO).delay()).isEqualTo(Duration.ofMillis(100));
		assertThat(retry.next(new IllegalStateException(), 2, Duration.ZERO).delay()).isEqualTo(Duration.ofMillis(500));
		assertThat(retry.next(new IllegalStateException(), 3, Duration.ZERO).delay()).isEqualTo(Duration.ofMillis(500));
	}

	@Test
	void jitterAddsUpToItsValueAndNeverGoesBelowTheDelay() {
		DelayedRetry retry = retry("jittered");
		for (int i = 0; i < 200; i++) {
			assertThat(retry.next(new IllegalStateException(), 1, Duration.ZERO).delay())
				.isBetween(Duration.ofMillis(1000), Duration.ofMillis(1200));
		}
	}

	@Test
	void aTimeoutEndsTheRetriesWhenTheNextTryWouldStartPastIt() {
		DelayedRetry retry = retry("timed");
		assertThat(retry.next(new IllegalStateException(), 1, Duration.ofMillis(500)).delay())
			.isEqualTo(Duration.ofMillis(400));
		assertThat(retry.next(new IllegalStateException(), 1, Duration.ofMillis(700)).stop())
			.contains("would pass its timeout of 1000 ms");
	}

	@Test
	void includesAndExcludesMatchTheExceptionAndItsCauses() {
		DelayedRetry retry = retry("onInputOutput");
		assertThat(retry.next(new IOException(), 1, Duration.ZERO).retries()).isTrue();
		assertThat(retry.next(new IllegalStateException(new IOException()), 1, Duration.ZERO).retries())
			.as("an included cause").isTrue();
		assertThat(retry.next(new IllegalStateException(), 1, Duration.ZERO).retries()).isFalse();
		assertThat(retry.next(new UncheckedIOException(new IOException()), 1, Duration.ZERO).stop())
			.as("an excluded type").contains("not one @Retryable retries");
	}

	@Test
	void theStringFormsResolvePlaceholdersInTheTimeUnit() {
		DelayedRetry retry = retry("configured");
		assertThat(retry.maxRetries()).isEqualTo(2);
		assertThat(retry.next(new IllegalStateException(), 1, Duration.ZERO).delay()).isEqualTo(Duration.ofSeconds(3));
		assertThat(retry("inMinutes").next(new IllegalStateException(), 1, Duration.ZERO).delay())
			.isEqualTo(Duration.ofMinutes(2));
	}

	@Test
	void anAnnotationOnTheClassAppliesToItsDelayedMethods() {
		Method method = ReflectionUtils.findMethod(RetriedAll.class, "send");
		DelayedRetry retry = DelayedRetry.resolve(method, RetriedAll.class, this.environment::resolvePlaceholders,
				new DefaultListableBeanFactory(), null);
		assertThat(retry).isNotNull();
		assertThat(retry.maxRetries()).isEqualTo(7);
	}

	@Test
	void aValueSpringRefusesFailsNamingTheMethod() {
		assertThatExceptionOfType(InvalidDelayedExecutionException.class).isThrownBy(() -> retry("negative"))
			.withMessageContaining("Retried.negative()")
			.withMessageContaining("its @Retryable is not valid")
			.withMessageContaining("maxRetries");
	}

	private DelayedRetry retry(String name) {
		Method method = ReflectionUtils.findMethod(Retried.class, name);
		DelayedRetry retry = DelayedRetry.resolve(method, Retried.class, this.environment::resolvePlaceholders,
				new DefaultListableBeanFactory(), null);
		assertThat(retry).as("@Retryable on %s", name).isNotNull();
		return retry;
	}

	static class Retried {

		@Retryable(maxRetries = 2, delay = 10)
		public void twoRetries() {
		}

		@Retryable(delay = 100, multiplier = 10, maxDelay = 500)
		public void growing() {
		}

		@Retryable(delay = 1000, jitter = 200)
		public void jittered() {
		}

		@Retryable(delay = 400, timeout = 1000)
		public void timed() {
		}

		@Retryable(value = IOException.class, excludes = UncheckedIOException.class)
		public void onInputOutput() {
		}

		@Retryable(maxRetriesString = "${retry.max}", delayString = "${retry.delay}")
		public void configured() {
		}

		@Retryable(delay = 2, timeUnit = TimeUnit.MINUTES)
		public void inMinutes() {
		}

		@Retryable(maxRetries = -1)
		public void negative() {
		}

	}

	@Retryable(maxRetries = 7)
	static class RetriedAll {

		public void send() {
		}

	}

}
