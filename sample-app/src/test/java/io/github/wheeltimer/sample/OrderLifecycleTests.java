package io.github.wheeltimer.sample;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.WheelSnapshot;
import io.github.wheeltimer.sample.orders.Order;
import io.github.wheeltimer.sample.orders.OrderBook;
import io.github.wheeltimer.sample.orders.OrderService;
import io.github.wheeltimer.sample.orders.OrderStatus;
import io.github.wheeltimer.sample.orders.PaymentTooLateException;
import io.github.wheeltimer.sample.orders.ShipmentStatus;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Orders over HTTP: an unpaid order cancels itself once its payment timeout has passed, never
 * before; a paid one never does.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "wheel-timer.tick-duration=10ms", "sample.orders.payment-timeout=1s",
				"sample.shipping.warehouse-failure-rate=0" })
@AutoConfigureRestTestClient
class OrderLifecycleTests {

	private static final Duration PAYMENT_TIMEOUT = Duration.ofSeconds(1);

	@Autowired
	private RestTestClient client;

	@Autowired
	private OrderService orderService;

	@Autowired
	private OrderBook orders;

	@Autowired
	private HashedWheelTimer wheelTimer;

	@Test
	void anUnpaidOrderIsCancelledOnceItsPaymentTimeoutHasPassedAndNotBefore() {
		Order created = create("a teapot");
		assertThat(created.status()).isEqualTo(OrderStatus.AWAITING_PAYMENT);
		assertThat(created.paymentDue()).isEqualTo(created.createdAt().plus(PAYMENT_TIMEOUT));

		await().atMost(Duration.ofSeconds(10)).until(() -> get(created.id()).status() == OrderStatus.CANCELLED);

		Order cancelled = get(created.id());
		assertThat(cancelled.cancelledAt()).as("never before the payment was due")
			.isAfterOrEqualTo(created.paymentDue());
		assertThat(cancelled.paidAt()).isNull();
	}

	@Test
	void aPaidOrderStaysPaidAndItsCancellationLeavesTheWheel() {
		WheelSnapshot.Counters before = this.wheelTimer.counters();
		Order created = create("a lamp");

		Order paid = this.client.post()
			.uri("/orders/{id}/pay", created.id())
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(Order.class)
			.returnResult()
			.getResponseBody();

		assertThat(paid.status()).isEqualTo(OrderStatus.PAID);
		WheelSnapshot.Counters after = this.wheelTimer.counters();
		assertThat(after.cancelled() - before.cancelled()).as("the payment cancelled the delayed call").isEqualTo(1);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> get(created.id()).shipment() == ShipmentStatus.SHIPPED);
		await().during(PAYMENT_TIMEOUT.plusMillis(500))
			.atMost(PAYMENT_TIMEOUT.plusSeconds(5))
			.until(() -> get(created.id()).status() == OrderStatus.PAID);
	}

	@Test
	void payingAnOrderTwiceChangesNothing() {
		Order created = create("a rug");
		Order first = this.orderService.pay(created.id());
		Order second = this.orderService.pay(created.id());
		assertThat(second.paidAt()).isEqualTo(first.paidAt());
	}

	@Test
	void payingACancelledOrderIsAConflictThatSaysWhy() {
		Order created = create("a chair");
		await().atMost(Duration.ofSeconds(10)).until(() -> get(created.id()).status() == OrderStatus.CANCELLED);

		this.client.post()
			.uri("/orders/{id}/pay", created.id())
			.exchange()
			.expectStatus()
			.isEqualTo(409)
			.expectBody()
			.jsonPath("$.detail")
			.value(String.class, (detail) -> assertThat(detail).startsWith("Order " + created.id() + " was cancelled at ")
				.contains("it was not paid before " + created.paymentDue()));
		assertThat(get(created.id()).status()).isEqualTo(OrderStatus.CANCELLED);
	}

	@Test
	void anUnknownOrderIsNotFound() {
		this.client.get().uri("/orders/42").exchange().expectStatus().isNotFound().expectBody()
			.jsonPath("$.detail").isEqualTo("No order 42");
		this.client.post().uri("/orders/42/pay").exchange().expectStatus().isNotFound();
	}

	@Test
	void theListShowsTheNewestOrdersFirstAndRefusesAnAbsurdLimit() {
		Order older = create("a clock");
		Order newer = create("a plant");
		Order[] newest = this.client.get()
			.uri("/orders?limit=2")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(Order[].class)
			.returnResult()
			.getResponseBody();
		assertThat(newest).extracting(Order::id).containsExactly(newer.id(), older.id());
		this.client.get().uri("/orders?limit=0").exchange().expectStatus().isBadRequest().expectBody()
			.jsonPath("$.detail").isEqualTo("limit must be between 1 and 100, but was 0");
		this.client.get().uri("/orders?limit=abc").exchange().expectStatus().isBadRequest().expectBody()
			.jsonPath("$.detail").isEqualTo("limit must be a whole number, but was 'abc'");
	}

	@Test
	void aBodyThatIsNotAnOrderIsABadRequestThatSaysWhatIsExpected() {
		int before = this.orders.newest(100).size();
		this.client.post().uri("/orders").contentType(MediaType.APPLICATION_JSON).body("{\"item\": ")
			.exchange().expectStatus().isBadRequest().expectBody()
			.jsonPath("$.detail").isEqualTo("The body must be empty or a JSON object such as {\"item\": \"a teapot\"}");
		this.client.post().uri("/orders").contentType(MediaType.APPLICATION_JSON).body(Map.of("item", "x".repeat(101)))
			.exchange().expectStatus().isBadRequest().expectBody()
			.jsonPath("$.detail").isEqualTo("item must be at most 100 characters, but had 101");
		assertThat(this.orders.newest(100)).as("nothing created").hasSize(before);
	}

	/**
	 * Four threads pay orders around the moment their payment falls due, racing the delayed
	 * cancellation: each order ends exactly one way, and the payer is told which.
	 */
	@Test
	void paymentsRacingTheCancellationSettleEachOrderExactlyOnce() throws Exception {
		int count = 400;
		// The orders of other tests must not be counted with these.
		await().atMost(Duration.ofSeconds(10)).until(() -> this.wheelTimer.pendingTimeouts() == 0);
		WheelSnapshot.Counters before = this.wheelTimer.counters();
		List<Order> created = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			created.add(this.orderService.create("item " + i));
		}
		List<Order> shuffled = new ArrayList<>(created);
		Collections.shuffle(shuffled);
		Map<String, Boolean> paidInTime = new ConcurrentHashMap<>();
		ExecutorService payers = Executors.newFixedThreadPool(4);
		try {
			List<Future<?>> done = new ArrayList<>();
			for (int payer = 0; payer < 4; payer++) {
				List<Order> share = shuffled.subList(payer * count / 4, (payer + 1) * count / 4);
				done.add(payers.submit(() -> payAround(share, paidInTime)));
			}
			for (Future<?> future : done) {
				future.get(30, TimeUnit.SECONDS);
			}
		}
		finally {
			payers.shutdownNow();
		}

		await().atMost(Duration.ofSeconds(10))
			.until(() -> created.stream()
				.allMatch((order) -> this.orders.find(order.id()).orElseThrow().status() != OrderStatus.AWAITING_PAYMENT));
		for (Order order : created) {
			OrderStatus status = this.orders.find(order.id()).orElseThrow().status();
			assertThat(status).as("order %s", order.id())
				.isEqualTo(paidInTime.get(order.id()) ? OrderStatus.PAID : OrderStatus.CANCELLED);
		}
		assertThat(paidInTime.values()).as("both outcomes happened").contains(true, false);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			WheelSnapshot.Counters after = this.wheelTimer.counters();
			assertThat((after.cancelled() - before.cancelled()) + (after.expired() - before.expired()))
				.as("every order's delayed cancellation was either cancelled by the payment or ran")
				.isEqualTo(count);
		});
	}

	/**
	 * Pays each order at a moment spread from half its payment timeout to one and a half.
	 */
	private void payAround(List<Order> share, Map<String, Boolean> paidInTime) {
		for (int i = 0; i < share.size(); i++) {
			Order order = share.get(i);
			Instant payAt = order.createdAt().plus(PAYMENT_TIMEOUT.multipliedBy(share.size() + 2 * i).dividedBy(2L * share.size()));
			long wait = Duration.between(Instant.now(), payAt).toNanos();
			if (wait > 0) {
				LockSupport.parkNanos(wait);
			}
			try {
				this.orderService.pay(order.id());
				paidInTime.put(order.id(), true);
			}
			catch (PaymentTooLateException ex) {
				paidInTime.put(order.id(), false);
			}
		}
	}

	private Order create(String item) {
		return this.client.post()
			.uri("/orders")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("item", item))
			.exchange()
			.expectStatus()
			.isCreated()
			.expectHeader()
			.value("Location", (location) -> assertThat(location).matches(".*/orders/\\d+"))
			.expectBody(Order.class)
			.returnResult()
			.getResponseBody();
	}

	private Order get(String id) {
		return this.client.get().uri("/orders/{id}", id).exchange().expectBody(Order.class).returnResult().getResponseBody();
	}

}
