package io.github.wheeltimer.annotation;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.Timeout;
import io.github.wheeltimer.autoconfigure.WheelTimerAutoConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.core.retry.RetryException;
import org.springframework.resilience.annotation.EnableResilientMethods;
import org.springframework.resilience.annotation.Retryable;
import org.springframework.resilience.retry.MethodRetryEvent;
import org.springframework.resilience.retry.MethodRetryPredicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Spring's {@code @Retryable} on an in-memory delayed method: each retry is a delayed call of its
 * own on the method's timer, with or without {@code @EnableResilientMethods}, and exactly one
 * retry policy applies.
 */
class DelayedRetryTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
				WheelTimerAutoConfiguration.class))
		.withPropertyValues("wheel-timer.tick-duration=10ms")
		.withUserConfiguration(WarehouseConfiguration.class);

	@Test
	void aFailedAttemptEndsAndItsRetryWaitsOnTheTimerWithNoThreadAsleep() {
		this.contextRunner.withPropertyValues("test.retry-delay=1h").run((context) -> {
			Warehouse warehouse = context.getBean(Warehouse.class);
			HashedWheelTimer timer = context.getBean(HashedWheelTimer.class);
			DelayedMethod ship = context.getBean(DelayedMethodRegistry.class).methods().stream()
				.filter((method) -> method.method().getName().equals("ship"))
				.findFirst()
				.orElseThrow();
			CompletableFuture<String> shipped = warehouse.ship("order-1", 3);
			await().atMost(Duration.ofSeconds(10)).until(() -> warehouse.attempts().size() == 1);
			await().atMost(Duration.ofSeconds(10)).until(() -> ship.inFlight() == 0 && ship.failedCalls() == 1);
			assertThat(timer.pendingTimeouts()).as("the retry, a timeout of its own").isOne();
			assertThat(Thread.getAllStackTraces().values()).as("no thread sleeps through the backoff")
				.noneSatisfy((stack) -> assertThat(stack).anySatisfy((frame) -> assertThat(frame.getClassName())
					.startsWith("org.springframework.core.retry")));
			assertThat(shipped).isNotDone();
			// Cancelling the caller's future cancels the waiting retry.
			assertThat(shipped.cancel(false)).isTrue();
			await().atMost(Duration.ofSeconds(5)).until(() -> timer.pendingTimeouts() == 0);
			assertThat(warehouse.attempts()).hasSize(1);
			assertThat(context.getBean(RetryEvents.class).events).extracting(MethodRetryEvent::isRetryAborted)
				.as("its failure, then the end of its retries").containsExactly(false, true);
		});
	}

	@Test
	void aTimerStoppedWhileARetryWaitsReportsItUnprocessedAndCancelsTheCallersFuture() {
		this.contextRunner.withPropertyValues("test.retry-delay=1h").run((context) -> {
			Warehouse warehouse = context.getBean(Warehouse.class);
			HashedWheelTimer timer = context.getBean(HashedWheelTimer.class);
			CompletableFuture<String> shipped = warehouse.ship("order-6", 3);
			await().atMost(Duration.ofSeconds(10)).until(() -> timer.pendingTimeouts() == 1
					&& warehouse.attempts().size() == 1);
			Set<Timeout> unprocessed = timer.stop();
			assertThat(unprocessed).singleElement()
				.satisfies((timeout) -> assertThat(DelayedTask.methodOf(timeout).description())
					.isEqualTo("DelayedRetryTests.Warehouse.ship(String, int)"))
				.satisfies((timeout) -> assertThat(((DelayedTask) timeout.task()).attempt()).isEqualTo(2));
			assertThat(shipped).isCancelled();
			assertThat(context.getBean(RetryEvents.class).events).extracting(MethodRetryEvent::isRetryAborted)
				.as("its failure, then the end of its retries").containsExactly(false, true);
		});
	}

	@Test
	void aRetriedCallCompletesItsFutureOnceWithTheSuccessfulAttemptAndNoRetryComesEarly() {
		this.contextRunner.withPropertyValues("test.retry-delay=100ms").run((context) -> {
			Warehouse warehouse = context.getBean(Warehouse.class);
			assertThat(warehouse.ship("order-2", 3).get(10, TimeUnit.SECONDS)).isEqualTo("shipped order-2 at attempt 3");
			assertThat(warehouse.attempts()).hasSize(3);
			for (int i = 1; i < 3; i++) {
				assertThat(warehouse.attempts().get(i) - warehouse.attempts().get(i - 1))
					.as("attempt %d began its backoff after attempt %d began", i + 1, i)
					.isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(100));
			}
		});
	}

	@Test
	void withResilientMethodsEnabledOnlyTheWheelRetriesAndTheLastFailureReachesTheCaller() {
		this.contextRunner.withUserConfiguration(ResilientConfiguration.class)
			.withPropertyValues("test.retry-delay=20ms")
			.run((context) -> {
				Warehouse warehouse = context.getBean(Warehouse.class);
				CompletableFuture<String> shipped = warehouse.ship("order-3", 99);
				assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> shipped.get(10, TimeUnit.SECONDS))
					.havingCause()
					.isInstanceOf(IllegalStateException.class)
					.withMessage("busy at attempt 4 for order-3");
				assertThat(warehouse.attempts()).as("maxRetries = 3: four attempts, no retries of retries").hasSize(4);
				RetryEvents events = context.getBean(RetryEvents.class);
				await().atMost(Duration.ofSeconds(5)).until(() -> events.events.size() == 5);
				assertThat(events.events).filteredOn((event) -> !event.isRetryAborted()).hasSize(4);
				assertThat(events.events.get(4).isRetryAborted()).isTrue();
				assertThat(events.events.get(4).getFailure()).isInstanceOf(RetryException.class)
					.hasCauseInstanceOf(IllegalStateException.class);
			});
	}

	@Test
	void anExceptionThatRetryableExcludesOrItsPredicateRefusesIsNotRetried() {
		this.contextRunner.withPropertyValues("test.retry-delay=20ms").run((context) -> {
			Warehouse warehouse = context.getBean(Warehouse.class);
			assertThatExceptionOfType(ExecutionException.class)
				.isThrownBy(() -> warehouse.ship("order-4", -1).get(10, TimeUnit.SECONDS))
				.havingCause()
				.isInstanceOf(IllegalArgumentException.class);
			assertThatExceptionOfType(ExecutionException.class)
				.isThrownBy(() -> warehouse.ship("order-5", -2).get(10, TimeUnit.SECONDS))
				.havingCause()
				.withMessageContaining("permanently");
			assertThat(warehouse.attempts()).as("one attempt each").hasSize(2);
		});
	}

	@Test
	void aRetryListenerThatThrowsChangesNothingOfTheRetries() {
		this.contextRunner.withUserConfiguration(ThrowingListenerConfiguration.class)
			.withPropertyValues("test.retry-delay=20ms")
			.run((context) -> {
				Warehouse warehouse = context.getBean(Warehouse.class);
				assertThat(warehouse.ship("order-7", 2).get(10, TimeUnit.SECONDS)).isEqualTo("shipped order-7 at attempt 2");
			});
	}

	@Test
	void aRetryableAttributeThatIsNotADurationFailsStartupNamingTheMethodAndTheValue() {
		this.contextRunner.withPropertyValues("test.retry-delay=soon").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasStackTraceContaining(InvalidDelayedExecutionException.class.getName())
				.hasStackTraceContaining("Warehouse.ship(String, int)")
				.hasStackTraceContaining("delayString \"${test.retry-delay:50ms}\" (resolved to \"soon\")")
				.hasStackTraceContaining("is not a duration");
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class WarehouseConfiguration {

		@Bean
		Warehouse warehouse() {
			return new Warehouse();
		}

		@Bean
		RetryEvents retryEvents() {
			return new RetryEvents();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableResilientMethods
	static class ResilientConfiguration {

	}

	@Configuration(proxyBeanMethods = false)
	static class ThrowingListenerConfiguration {

		@EventListener
		void on(MethodRetryEvent event) {
			throw new IllegalStateException("a listener that fails on " + event);
		}

	}

	static class Warehouse {

		/** When each attempt began (System.nanoTime()). */
		final List<Long> attempts = new CopyOnWriteArrayList<>();

		/**
		 * Fails until the attempt given; never, if negative: -1 with an exception it excludes, -2 with
		 * one its predicate refuses.
		 */
		@DelayedExecution(delay = 20)
		@Retryable(maxRetries = 3, delayString = "${test.retry-delay:50ms}", excludes = IllegalArgumentException.class,
				predicate = NotPermanent.class)
		public CompletableFuture<String> ship(String orderId, int succeedsAt) {
			this.attempts.add(System.nanoTime());
			int attempt = this.attempts.size();
			if (succeedsAt == -1) {
				throw new IllegalArgumentException("no such order " + orderId);
			}
			if (succeedsAt == -2) {
				throw new IllegalStateException("refused permanently for " + orderId);
			}
			if (attempt < succeedsAt) {
				throw new IllegalStateException("busy at attempt " + attempt + " for " + orderId);
			}
			return CompletableFuture.completedFuture("shipped " + orderId + " at attempt " + attempt);
		}

		public List<Long> attempts() {
			return this.attempts;
		}

	}

	static class NotPermanent implements MethodRetryPredicate {

		@Override
		public boolean shouldRetry(java.lang.reflect.Method method, Throwable failure) {
			return !String.valueOf(failure.getMessage()).contains("permanently");
		}

	}

	static class RetryEvents {

		final List<MethodRetryEvent> events = new CopyOnWriteArrayList<>();

		@EventListener
		void on(MethodRetryEvent event) {
			this.events.add(event);
		}

	}

}
