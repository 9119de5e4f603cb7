package io.github.wheeltimer.durable;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.wheeltimer.annotation.DelayedExecution;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.resilience.annotation.Retryable;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.interceptor.TransactionAspectSupport;

/**
 * An application with durable delayed methods that record each run in a table of the same
 * database, {@code test_run}, so that runs can be counted across instances and JVMs. A run's row
 * is written in the method's own transaction: a duplicate run would break the primary key.
 */
@SpringBootConfiguration
@DurableAutoConfiguration
public class DurableApp {

	/** Starts an instance on {@code url} with the test settings, plus {@code extra} properties. */
	public static ConfigurableApplicationContext start(String url, String... extra) {
		return start(new Class<?>[0], url, extra);
	}

	/**
	 * Starts an instance as {@link #start(String, String...)} does, with {@code hooks} among its
	 * beans: a test's own, such as one that wraps the calls' repository.
	 */
	public static ConfigurableApplicationContext start(Class<?>[] hooks, String url, String... extra) {
		String[] properties = { "spring.datasource.url=" + url, "spring.datasource.username=" + TestDatabases.user(url),
				"spring.datasource.password=", "spring.datasource.hikari.maximum-pool-size=6",
				"wheel-timer.tick-duration=10ms", "wheel-timer.durable.horizon=1s",
				"wheel-timer.durable.poll-interval=200ms", "wheel-timer.durable.heartbeat-interval=200ms",
				"wheel-timer.durable.lease=1s", "wheel-timer.durable.jdbc.initialize-schema=always",
				"wheel-timer.shutdown.await-termination=5s", "spring.main.banner-mode=off" };
		return new SpringApplicationBuilder(DurableApp.class).sources(hooks)
			.web(WebApplicationType.NONE)
			.properties(properties)
			.properties(extra)
			.run();
	}

	/** @return the property that sets {@link Orders#far}'s delay, for {@link #start(String, String...)} */
	public static String farDelay(Duration delay) {
		return "test.far-delay=" + delay.toMillis() + "ms";
	}

	@Bean
	Orders orders(JdbcTemplate jdbc, ObjectProvider<DurableCalls> durableCalls) {
		jdbc.execute("CREATE TABLE IF NOT EXISTS test_run (call_id VARCHAR(100) PRIMARY KEY, method VARCHAR(50) NOT NULL,"
				+ " called_at BIGINT, ran_at BIGINT NOT NULL, attempt INTEGER NOT NULL)");
		return new Orders(jdbc, durableCalls);
	}

	public static class Orders {

		private final JdbcTemplate jdbc;

		/** Whose {@code now()} a run records: the wall clock, or the {@link io.github.wheeltimer.VirtualTime} of a test on it. */
		private final ObjectProvider<DurableCalls> durableCalls;

		Orders(JdbcTemplate jdbc, ObjectProvider<DurableCalls> durableCalls) {
			this.jdbc = jdbc;
			this.durableCalls = durableCalls;
		}

		/** Due after {@code test.near-delay}, 400 ms unless a test sets it. */
		@DelayedExecution(delayString = "${test.near-delay:400ms}", durable = true, key = "#orderId")
		@Transactional
		public void cancelIfUnpaid(String orderId, Instant calledAt) {
			record(orderId, "cancel", calledAt);
		}

		@DelayedExecution(delay = 30, timeUnit = TimeUnit.MINUTES, durable = true, id = "orders.remind",
				key = "#order.id")
		public void remind(Order order) {
			if (order.cents() < 0) {
				throw new IllegalArgumentException("no reminder for a refund of order " + order.id());
			}
			record(order.id(), "remind", null);
		}

		/** Within the default horizon, so born on the caller's wheel, and long enough to be seen there. */
		@DelayedExecution(delay = 8, timeUnit = TimeUnit.SECONDS, durable = true, id = "orders.expire",
				key = "#orderId")
		public void expire(String orderId) {
			record(orderId, "expire", null);
		}

		/**
		 * Due after {@code test.burst-delay}, 1.5 s unless a test sets it. Ends outside any
		 * transaction: its row goes in a batch.
		 */
		@DelayedExecution(delayString = "${test.burst-delay:1500ms}", durable = true, id = "orders.burst")
		public void burst(String callId) {
			record(callId, "burst", null);
		}

		/** Due after {@code test.far-delay}, 1.5 s unless a test sets it. */
		@DelayedExecution(delayString = "${test.far-delay:1500ms}", durable = true, id = "orders.far")
		@Transactional
		public void far(String callId, Instant calledAt) {
			record(callId, "far", calledAt);
		}

		@DelayedExecution(delay = 300, durable = true)
		public CompletableFuture<String> quote(String orderId) {
			record(orderId, "quote", null);
			return CompletableFuture.completedFuture("quote for " + orderId);
		}

		/** Records its run, then rolls its own transaction back without throwing. */
		@DelayedExecution(delay = 200, durable = true)
		@Transactional
		public void changeItsMind(String orderId) {
			record(orderId, "changed its mind", null);
			TransactionAspectSupport.currentTransactionStatus().setRollbackOnly();
		}

		/** Holds the first attempt of {@link #slow(String)} open until a test lets it end. */
		static volatile CountDownLatch firstAttemptMayEnd = new CountDownLatch(0);

		/** Records each attempt as {@code callId#attempt}; the first one waits for the test. */
		@DelayedExecution(delay = 200, durable = true)
		@Transactional
		public void slow(String callId) throws InterruptedException {
			int attempt = DurableCalls.currentAttempt();
			record(callId + "#" + attempt, "slow", null);
			if (attempt == 1) {
				firstAttemptMayEnd.await(20, TimeUnit.SECONDS);
			}
		}

		/** Holds every run of {@link #queued(String)} until a test lets them go. */
		static volatile CountDownLatch queueMayMove = new CountDownLatch(0);

		/** Waits for the test, holding no connection, then records its run. */
		@DelayedExecution(delay = 200, durable = true, id = "orders.queued")
		public void queued(String callId) throws InterruptedException {
			queueMayMove.await(20, TimeUnit.SECONDS);
			record(callId, "queued", null);
		}

		/**
		 * Records each attempt as {@code orderId#attempt}, and fails until the attempt given (never,
		 * if negative, with an exception its {@code @Retryable} excludes). Retried on the wheel, after
		 * {@code test.retry-delay}.
		 */
		@DelayedExecution(delay = 200, durable = true, id = "orders.flaky", key = "#orderId")
		@Retryable(maxRetries = 3, delayString = "${test.retry-delay:300ms}", excludes = IllegalArgumentException.class)
		public void flaky(String orderId, int succeedsAt) {
			int attempt = DurableCalls.currentAttempt();
			record(orderId + "#" + attempt, "flaky", null);
			if (succeedsAt < 0) {
				throw new IllegalArgumentException("never for " + orderId);
			}
			if (attempt < succeedsAt) {
				throw new IllegalStateException("busy at attempt " + attempt + " for " + orderId);
			}
		}

		/** Holds the first attempt of {@link #failsSlowly(String, String)} until a test lets it fail. */
		static volatile CountDownLatch firstFailureMayEnd = new CountDownLatch(0);

		/**
		 * Records each attempt as {@code tag#attempt}; the first attempt of the call tagged
		 * {@code old} waits for the test, then fails. Due after {@code test.fails-slowly-delay},
		 * 200 ms unless a test sets it.
		 */
		@DelayedExecution(delayString = "${test.fails-slowly-delay:200ms}", durable = true, id = "orders.failsSlowly",
				key = "#orderId")
		@Retryable(maxRetries = 2, delay = 300)
		public void failsSlowly(String orderId, String tag) throws InterruptedException {
			int attempt = DurableCalls.currentAttempt();
			record(tag + "#" + attempt, "failsSlowly", null);
			if (tag.equals("old") && attempt == 1) {
				firstFailureMayEnd.await(20, TimeUnit.SECONDS);
				throw new IllegalStateException("slow failure of " + orderId);
			}
		}

		@DelayedExecution(delay = 200, durable = true)
		public void explode(String orderId) {
			throw new IllegalStateException("boom for " + orderId);
		}

		private void record(String callId, String method, Instant calledAt) {
			this.jdbc.update("INSERT INTO test_run (call_id, method, called_at, ran_at, attempt) VALUES (?, ?, ?, ?, ?)",
					callId, method, (calledAt != null) ? TestDatabases.micros(calledAt) : null,
					TestDatabases.micros(this.durableCalls.getObject().now()), DurableCalls.currentAttempt());
		}

	}

	/** An argument that goes through JSON by value. */
	public record Order(String id, long cents) {
	}

}
