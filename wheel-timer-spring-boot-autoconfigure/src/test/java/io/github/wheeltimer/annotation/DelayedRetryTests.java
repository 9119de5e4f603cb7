package io.github.wheeltimer.annotation;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.Timeout;
import io.github.wheeltimer.VirtualTime;
import io.github.wheeltimer.autoconfigure.WheelTimerAutoConfiguration;
import io.github.wheeltimer.virtualtime.VirtualTicker;
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

/**
 * Spring's {@code @Retryable} on an in-memory delayed method: each retry is a delayed call of its
 * own on the method's timer, with or without {@code @EnableResilientMethods}, and exactly one
 * retry policy applies. On virtual time: each attempt is checked at its due time, and never before.
 */
class DelayedRetryTests {

	/** The timers' tick. */
	private static final Duration TICK = Duration.ofMillis(10);

	/** {@link Warehouse#ship}'s delay. */
	private static final Duration DELAY = Duration.ofMillis(20);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
				WheelTimerAutoConfiguration.class))
		.withPropertyValues("wheel-timer.tick-duration=10ms")
		.withUserConfiguration(WarehouseConfiguration.class, VirtualTime.class);

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
			VirtualTime.advance(context, DELAY);
			assertThat(warehouse.attempts()).hasSize(1);
			assertThat(ship.inFlight()).isZero();
			assertThat(ship.failedCalls()).isOne();
			VirtualTime.advance(context, Duration.ofHours(1).minus(TICK));
			assertThat(warehouse.attempts()).as("the retry waits its whole backoff").hasSize(1);
			assertThat(timer.pendingTimeouts()).as("the retry, a timeout of its own").isOne();
			assertThat(Thread.getAllStackTraces().values()).as("no thread sleeps through the backoff")
				.noneSatisfy((stack) -> assertThat(stack).anySatisfy((frame) -> assertThat(frame.getClassName())
					.startsWith("org.springframework.core.retry")));
			assertThat(shipped).isNotDone();
			// Cancelling the caller's future cancels the waiting retry.
			assertThat(shipped.cancel(false)).isTrue();
			assertThat(timer.pendingTimeouts()).isZero();
			VirtualTime.advance(context, Duration.ofHours(1));
			assertThat(warehouse.attempts()).as("the cancelled retry never ran").hasSize(1);
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
			VirtualTime.advance(context, DELAY);
			assertThat(warehouse.attempts()).hasSize(1);
			assertThat(timer.pendingTimeouts()).isOne();
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
			Duration calledAt = context.getBean(VirtualTicker.class).elapsed();
			CompletableFuture<String> shipped = warehouse.ship("order-2", 3);
			Duration backoff = Duration.ofMillis(100);
			// The call's delay, then each retry's backoff from the failed attempt's end, which on
			// virtual time is the instant it began.
			for (int attempt = 1; attempt <= 3; attempt++) {
				VirtualTime.advance(context, ((attempt == 1) ? DELAY : backoff).minus(TICK));
				assertThat(warehouse.attempts()).as("attempt %d, never early", attempt).hasSize(attempt - 1);
				assertThat(shipped).isNotDone();
				VirtualTime.advance(context, TICK);
				assertThat(warehouse.attempts()).as("attempt %d, on its tick", attempt).hasSize(attempt);
			}
			assertThat(warehouse.attempts()).containsExactly(calledAt.plus(DELAY), calledAt.plus(DELAY).plus(backoff),
					calledAt.plus(DELAY).plus(backoff.multipliedBy(2)));
			assertThat(shipped).isCompletedWithValue("shipped order-2 at attempt 3");
		});
	}

	@Test
	void withResilientMethodsEnabledOnlyTheWheelRetriesAndTheLastFailureReachesTheCaller() {
		this.contextRunner.withUserConfiguration(ResilientConfiguration.class)
			.withPropertyValues("test.retry-delay=20ms")
			.run((context) -> {
				Warehouse warehouse = context.getBean(Warehouse.class);
				CompletableFuture<String> shipped = warehouse.ship("order-3", 99);
				Duration retryDelay = Duration.ofMillis(20);
				VirtualTime.advance(context, DELAY.plus(retryDelay.multipliedBy(3)).minus(TICK));
				assertThat(warehouse.attempts()).hasSize(3);
				assertThat(shipped).isNotDone();
				VirtualTime.advance(context, TICK);
				assertThat(shipped).failsWithin(Duration.ZERO)
					.withThrowableOfType(ExecutionException.class)
					.havingCause()
					.isInstanceOf(IllegalStateException.class)
					.withMessage("busy at attempt 4 for order-3");
				VirtualTime.advance(context, Duration.ofSeconds(1));
				assertThat(warehouse.attempts()).as("maxRetries = 3: four attempts, no retries of retries").hasSize(4);
				RetryEvents events = context.getBean(RetryEvents.class);
				assertThat(events.events).hasSize(5);
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
			CompletableFuture<String> excluded = warehouse.ship("order-4", -1);
			CompletableFuture<String> refused = warehouse.ship("order-5", -2);
			VirtualTime.advance(context, DELAY);
			assertThat(excluded).failsWithin(Duration.ZERO)
				.withThrowableOfType(ExecutionException.class)
				.havingCause()
				.isInstanceOf(IllegalArgumentException.class);
			assertThat(refused).failsWithin(Duration.ZERO)
				.withThrowableOfType(ExecutionException.class)
				.havingCause()
				.withMessageContaining("permanently");
			VirtualTime.advance(context, Duration.ofSeconds(1));
			assertThat(warehouse.attempts()).as("one attempt each").hasSize(2);
		});
	}

	@Test
	void aRetryListenerThatThrowsChangesNothingOfTheRetries() {
		this.contextRunner.withUserConfiguration(ThrowingListenerConfiguration.class)
			.withPropertyValues("test.retry-delay=20ms")
			.run((context) -> {
				Warehouse warehouse = context.getBean(Warehouse.class);
				CompletableFuture<String> shipped = warehouse.ship("order-7", 2);
				Duration retryDelay = Duration.ofMillis(20);
				VirtualTime.advance(context, DELAY);
				assertThat(warehouse.attempts()).hasSize(1);
				VirtualTime.advance(context, retryDelay);
				assertThat(shipped).isCompletedWithValue("shipped order-7 at attempt 2");
			});
	}

	/**
	 * Its timeout is measured on the timer's clock, as its backoffs are: a minute apart, the third
	 * attempt fails two minutes after the first began, and a fourth would start past 2.5 minutes.
	 */
	@Test
	void aRetryableTimeoutIsMeasuredOnTheTimersClockAsItsBackoffsAre() {
		this.contextRunner.run((context) -> {
			Warehouse warehouse = context.getBean(Warehouse.class);
			Duration calledAt = context.getBean(VirtualTicker.class).elapsed();
			CompletableFuture<String> shipped = warehouse.shipWithinTimeout("order-8");
			VirtualTime.advance(context, Duration.ofHours(1));
			Duration first = calledAt.plus(DELAY);
			assertThat(warehouse.attempts()).containsExactly(first, first.plusMinutes(1), first.plusMinutes(2));
			assertThat(shipped).failsWithin(Duration.ZERO)
				.withThrowableOfType(ExecutionException.class)
				.havingCause()
				.withMessage("busy at attempt 3 for order-8");
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
		Warehouse warehouse(VirtualTicker clock) {
			return new Warehouse(clock);
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

		private final VirtualTicker clock;

		/** When each attempt began, on the virtual clock. */
		final List<Duration> attempts = new CopyOnWriteArrayList<>();

		Warehouse(VirtualTicker clock) {
			this.clock = clock;
		}

		/**
		 * Fails until the attempt given; never, if negative: -1 with an exception it excludes, -2 with
		 * one its predicate refuses.
		 */
		@DelayedExecution(delay = 20)
		@Retryable(maxRetries = 3, delayString = "${test.retry-delay:50ms}", excludes = IllegalArgumentException.class,
				predicate = NotPermanent.class)
		public CompletableFuture<String> ship(String orderId, int succeedsAt) {
			this.attempts.add(this.clock.elapsed());
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

		/** Always fails; its retries end once the next would start past its timeout. */
		@DelayedExecution(delay = 20)
		@Retryable(maxRetries = 10, delay = 60_000, timeout = 150_000)
		public CompletableFuture<String> shipWithinTimeout(String orderId) {
			this.attempts.add(this.clock.elapsed());
			throw new IllegalStateException("busy at attempt " + this.attempts.size() + " for " + orderId);
		}

		public List<Duration> attempts() {
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
