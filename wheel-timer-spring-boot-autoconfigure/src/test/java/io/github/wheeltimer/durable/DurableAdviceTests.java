package io.github.wheeltimer.durable;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.wheeltimer.VirtualTime;
import io.github.wheeltimer.annotation.DelayedExecution;
import io.github.wheeltimer.autoconfigure.WheelTimerAutoConfiguration;
import io.github.wheeltimer.autoconfigure.WheelTimerDurableAutoConfiguration;
import io.github.wheeltimer.durable.engine.DurableEngine;
import io.github.wheeltimer.durable.run.CallCounts;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.junit.jupiter.api.Test;

import org.springframework.aop.framework.AopContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.EnableAspectJAutoProxy;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.resilience.annotation.EnableResilientMethods;
import org.springframework.resilience.annotation.Retryable;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A durable call reaches its method through the bean's other advice, once per run and on the
 * executor's thread, never through the advice that delays calls again: the call is not counted
 * twice nor delayed a second time, an aspect sees the arguments read back from the row, a retry
 * retries the method (not the whole call), and a transactional method deletes its row inside its
 * own transaction.
 */
class DurableAdviceTests {

	private static final Duration TICK = Duration.ofMillis(10);

	/** The delay of every delayed method here. */
	private static final Duration DELAY = Duration.ofMillis(100);

	/** {@link Warehouse#pick}'s backoff. */
	private static final Duration BACKOFF = Duration.ofMillis(10);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
				WheelTimerAutoConfiguration.class, DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
				JacksonAutoConfiguration.class, WheelTimerDurableAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:advice-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"wheel-timer.tick-duration=10ms", "wheel-timer.durable.poll-interval=200ms")
		.withUserConfiguration(AdviceConfiguration.class, VirtualTime.class);

	@Test
	void aDurableRunPassesTheBeansOtherAdviceOnceWithTheArgumentsReadBackAndIsNotDelayedAgain() {
		this.contextRunner.run((context) -> {
			Shipments shipments = context.getBean(Shipments.class);
			Audit audit = context.getBean(Audit.class);
			String thread = Thread.currentThread().getName();
			shipments.ship("order-1", 3);
			assertThat(audit.events).as("the aspect runs when the call runs, not when it is made").isEmpty();
			VirtualTime.advance(context, DELAY.minus(TICK));
			assertThat(shipments.runs()).as("never before its delay").isEmpty();
			assertThat(audit.events).isEmpty();
			VirtualTime.advance(context, TICK);
			assertThat(audit.events).singleElement().asString().startsWith("around ship(order-1, 3) on ")
				.doesNotEndWith(" on " + thread);
			assertThat(shipments.runs()).singleElement().asString().isEqualTo("order-1 x3 in a transaction");
			assertThat(rows(new JdbcTemplate(context.getBean(javax.sql.DataSource.class)))).isZero();
			// The run did not go through the delaying advice: one call accepted, one started, nothing rescheduled.
			CallCounts counts = context.getBean(DurableEngine.class).counts();
			assertThat(counts.scheduled()).isEqualTo(1);
			assertThat(counts.started()).isEqualTo(1);
			assertThat(counts.ran()).isEqualTo(1);
			assertThat(audit.events).hasSize(1);
		});
	}

	@Test
	void aRetryableDurableMethodIsRetriedOnTheWheelOneRunPerAttemptAndItsRowFinishesOnce() {
		this.contextRunner.run((context) -> {
			Warehouse warehouse = context.getBean(Warehouse.class);
			CompletableFuture<String> picked = warehouse.pick("order-2");
			assertThat(warehouse.attempts()).as("nothing at call time").isEmpty();
			// Each attempt at its due time, never before: the call's delay, then each backoff from the
			// failed attempt, which on virtual time ends the instant it starts.
			for (int attempt = 1; attempt <= 3; attempt++) {
				VirtualTime.advance(context, ((attempt == 1) ? DELAY : BACKOFF).minus(TICK));
				assertThat(warehouse.attempts()).as("attempt %d, never early", attempt).hasSize(attempt - 1);
				VirtualTime.advance(context, TICK);
				assertThat(warehouse.attempts()).as("attempt %d, on its tick", attempt).hasSize(attempt);
			}
			assertThat(picked).isCompletedWithValue("picked order-2 at attempt 3");
			CallCounts counts = context.getBean(DurableEngine.class).counts();
			assertThat(counts.ran()).isOne();
			assertThat(counts.started()).as("a run per attempt, each a delayed call of its own").isEqualTo(3);
			assertThat(counts.failed()).isZero();
			assertThat(rows(new JdbcTemplate(context.getBean(javax.sql.DataSource.class)))).isZero();
		});
	}

	@Test
	void aDurableMethodOfABeanWhoseProxyExposesItselfSeesThatProxyAsTheCurrentOne() {
		this.contextRunner.withUserConfiguration(ExposingConfiguration.class).run((context) -> {
			Invoices invoices = context.getBean(Invoices.class);
			invoices.issue("order-3");
			VirtualTime.advance(context, DELAY.minus(TICK));
			assertThat(invoices.proxies()).isEmpty();
			VirtualTime.advance(context, TICK);
			assertThat(invoices.proxies()).singleElement().isSameAs(invoices);
		});
	}

	private static long rows(JdbcTemplate jdbc) {
		Long rows = jdbc.queryForObject("SELECT COUNT(*) FROM WHEEL_TIMER_CALL", Long.class);
		return (rows != null) ? rows : -1;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableResilientMethods
	static class AdviceConfiguration {

		@Bean
		Shipments shipments() {
			return new Shipments();
		}

		@Bean
		Warehouse warehouse() {
			return new Warehouse();
		}

		@Bean
		Audit audit() {
			return new Audit();
		}

	}

	static class Shipments {

		private final List<String> runs = new CopyOnWriteArrayList<>();

		/** Through the proxy: its own fields are not the bean's. */
		public List<String> runs() {
			return this.runs;
		}

		@DelayedExecution(delay = 100, durable = true)
		@Transactional
		public void ship(String orderId, int parcels) {
			this.runs.add(orderId + " x" + parcels
					+ (TransactionSynchronizationManager.isActualTransactionActive() ? " in a transaction" : ""));
		}

	}

	static class Warehouse {

		private final List<String> attempts = new CopyOnWriteArrayList<>();

		public List<String> attempts() {
			return this.attempts;
		}

		@DelayedExecution(delay = 100, durable = true)
		@Retryable(maxRetries = 4, delay = 10)
		public CompletableFuture<String> pick(String orderId) {
			this.attempts.add(Thread.currentThread().getName());
			if (this.attempts.size() < 3) {
				throw new IllegalStateException("the warehouse is busy");
			}
			return CompletableFuture.completedFuture("picked " + orderId + " at attempt " + this.attempts.size());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAspectJAutoProxy(exposeProxy = true)
	static class ExposingConfiguration {

		@Bean
		Invoices invoices() {
			return new Invoices();
		}

	}

	static class Invoices {

		private final List<Object> proxies = new CopyOnWriteArrayList<>();

		@DelayedExecution(delay = 100, durable = true)
		@Transactional
		public void issue(String orderId) {
			this.proxies.add(AopContext.currentProxy());
		}

		public List<Object> proxies() {
			return this.proxies;
		}

	}

	@Aspect
	static class Audit {

		final List<String> events = new CopyOnWriteArrayList<>();

		@Around("execution(* io.github.wheeltimer.durable.DurableAdviceTests.Shipments.ship(..)) && args(orderId, parcels)")
		public Object around(ProceedingJoinPoint joinPoint, String orderId, int parcels) throws Throwable {
			this.events.add("around ship(" + orderId + ", " + parcels + ") on " + Thread.currentThread().getName());
			return joinPoint.proceed();
		}

	}

}
