package io.github.wheeltimer.sample;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.sample.orders.Order;
import io.github.wheeltimer.sample.orders.OrderBook;
import io.github.wheeltimer.sample.orders.OrderService;
import io.github.wheeltimer.sample.orders.ShipmentStatus;
import io.github.wheeltimer.sample.shipping.Warehouse;
import io.github.wheeltimer.sample.shipping.WarehouseUnavailableException;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.test.annotation.DirtiesContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A paid order the warehouse refuses is sent again after the retry delay, by a delayed method
 * that the timer runs again after each refusal, as its {@code @Retryable} says: two retries here,
 * so three attempts in all.
 */
@SpringBootTest(properties = { "wheel-timer.tick-duration=10ms", "sample.shipping.retry-delay=300ms",
		"sample.shipping.max-retries=2" })
class ShipmentRetryTests {

	private static final Duration RETRY_DELAY = Duration.ofMillis(300);

	@Autowired
	private OrderService orderService;

	@Autowired
	private OrderBook orders;

	@Autowired
	private ScriptedWarehouse warehouse;

	/** The sample's second timer, from wheel-timer.timers: the shipping retries wait on it. */
	@Autowired
	private HashedWheelTimer retries;

	@Test
	void aRefusedOrderIsSentAgainAfterTheRetryDelayUntilTheWarehouseTakesIt() {
		Order order = this.orderService.create("a kettle");
		this.warehouse.refuse(order.id(), 2);

		Order paid = this.orderService.pay(order.id());

		assertThat(paid.shipment()).isEqualTo(ShipmentStatus.IN_PROGRESS);
		assertThat(paid.shipmentAttempts()).as("the first attempt, refused").isOne();
		CountDownLatch third = this.warehouse.hold(order.id(), 3);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.warehouse.attempts(order.id()).size() == 3);
		assertThat(this.orders.find(order.id()).orElseThrow())
			.as("the second attempt's refusal, counted while the third is under way")
			.satisfies((sending) -> assertThat(sending.shipment()).isEqualTo(ShipmentStatus.IN_PROGRESS))
			.satisfies((sending) -> assertThat(sending.shipmentAttempts()).isEqualTo(2));
		third.countDown();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.orders.find(order.id()).orElseThrow().shipment() == ShipmentStatus.SHIPPED);
		assertThat(this.orders.find(order.id()).orElseThrow().shipmentAttempts()).isEqualTo(3);
		assertThat(this.warehouse.gapsBetweenAttempts(order.id())).as("never sooner than the retry delay")
			.hasSize(2)
			.allSatisfy((gap) -> assertThat(gap).isGreaterThanOrEqualTo(RETRY_DELAY));
	}

	@Test
	void anOrderTheWarehouseKeepsRefusingFailsAfterTheLastAttempt() {
		Order order = this.orderService.create("a mug");
		this.warehouse.refuse(order.id(), Integer.MAX_VALUE);

		this.orderService.pay(order.id());

		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.orders.find(order.id()).orElseThrow().shipment() == ShipmentStatus.FAILED);
		Order failed = this.orders.find(order.id()).orElseThrow();
		assertThat(failed.shipmentAttempts()).isEqualTo(3);
		assertThat(failed.shipmentProblem())
			.isEqualTo("The warehouse refused order " + order.id() + " 3 times; no attempt is left");
		assertThat(this.warehouse.attempts(order.id())).hasSize(3);
		assertThat(this.retries.pendingTimeouts()).as("no retry left behind").isZero();
	}

	@Test
	@DirtiesContext
	void aRetryTheStoppedTimerNoLongerTakesEndsTheShipmentAsFailedNotForgotten() {
		Order order = this.orderService.create("a stool");
		this.warehouse.refuse(order.id(), Integer.MAX_VALUE);
		CountDownLatch second = this.warehouse.hold(order.id(), 2);
		this.orderService.pay(order.id());
		await().atMost(Duration.ofSeconds(10)).until(() -> this.warehouse.attempts(order.id()).size() == 2);

		assertThat(this.retries.stop()).as("nothing waits: the second attempt runs").isEmpty();
		second.countDown();

		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.orders.find(order.id()).orElseThrow().shipment() == ShipmentStatus.FAILED);
		Order failed = this.orders.find(order.id()).orElseThrow();
		assertThat(failed.shipmentAttempts()).isEqualTo(2);
		assertThat(failed.shipmentProblem())
			.isEqualTo("Order " + order.id() + " was refused 2 times and cannot be retried: the timer has stopped");
		assertThat(this.warehouse.attempts(order.id())).hasSize(2);
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class WarehouseScript {

		@Bean
		@Primary
		ScriptedWarehouse scriptedWarehouse() {
			return new ScriptedWarehouse();
		}

	}

	/**
	 * Refuses each order a given number of times, notes when each attempt came, and holds an
	 * attempt until the test lets it answer.
	 */
	static class ScriptedWarehouse implements Warehouse {

		private final Map<String, Integer> refusalsLeft = new ConcurrentHashMap<>();

		private final Map<String, List<Long>> attempts = new ConcurrentHashMap<>();

		private final Map<String, Map<Integer, CountDownLatch>> holds = new ConcurrentHashMap<>();

		void refuse(String orderId, int times) {
			this.refusalsLeft.put(orderId, times);
		}

		/** Holds the given attempt of an order, once it has been counted, until the latch is counted down. */
		CountDownLatch hold(String orderId, int attempt) {
			CountDownLatch latch = new CountDownLatch(1);
			this.holds.computeIfAbsent(orderId, (id) -> new ConcurrentHashMap<>()).put(attempt, latch);
			return latch;
		}

		@Override
		public void ship(String orderId) {
			List<Long> times = this.attempts.computeIfAbsent(orderId, (id) -> new CopyOnWriteArrayList<>());
			times.add(System.nanoTime());
			CountDownLatch hold = this.holds.getOrDefault(orderId, Map.of()).get(times.size());
			if (hold != null) {
				try {
					assertThat(hold.await(10, TimeUnit.SECONDS)).as("released by the test").isTrue();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			if (this.refusalsLeft.merge(orderId, -1, Integer::sum) >= 0) {
				throw new WarehouseUnavailableException("refused by the script");
			}
		}

		List<Long> attempts(String orderId) {
			return this.attempts.getOrDefault(orderId, List.of());
		}

		List<Duration> gapsBetweenAttempts(String orderId) {
			List<Long> times = attempts(orderId);
			return java.util.stream.IntStream.range(1, times.size())
				.mapToObj((i) -> Duration.ofNanos(times.get(i) - times.get(i - 1)))
				.toList();
		}

	}

}
