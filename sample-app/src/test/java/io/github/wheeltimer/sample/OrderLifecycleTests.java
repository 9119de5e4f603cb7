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
import org.junit.jupiter.api.BeforeEach;
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
 * Orders over HTTP on real time: a paid order never cancels itself, payments racing the delayed
 * cancellation from several threads settle each order once, and bad requests say what is wrong.
 * The payment timeout itself is tested on virtual time, in {@link PaymentTimeoutTests}.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "wheel-timer.tick-duration=10ms", "sample.orders.payment-timeout=3s",
				"sample.shipping.warehouse-failure-rate=0" })
@AutoConfigureRestTestClient
class OrderLifecycleTests {

	/** Long enough to create and pay an order over HTTP on a loaded machine. */
	private static final Duration PAYMENT_TIMEOUT = Duration.ofSeconds(3);

	@Autowired
	private RestTestClient client;

	private OrdersOverHttp http;

	@Autowired
	private OrderService orderService;

	@Autowired
	private OrderBook orders;

	@Autowired
	private HashedWheelTimer wheelTimer;

	@BeforeEach
	void callTheShopOverHttp() {
		this.http = new OrdersOverHttp(this.client);
	}

	@Test
	void aPaidOrderStaysPaidAndItsCancellationLeavesTheWheel() {
		WheelSnapshot.Counters before = this.wheelTimer.counters();
		Order created = this.http.create("a lamp");

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
			.until(() -> this.http.get(created.id()).shipment() == ShipmentStatus.SHIPPED);
		await().during(PAYMENT_TIMEOUT.plusMillis(500))
			.atMost(PAYMENT_TIMEOUT.plusSeconds(5))
			.until(() -> this.http.get(created.id()).status() == OrderStatus.PAID);
	}

	@Test
	void payingAnOrderTwiceChangesNothing() {
		Order created = this.http.create("a rug");
		Order first = this.orderService.pay(created.id());
		Order second = this.orderService.pay(created.id());
		assertThat(second.paidAt()).isEqualTo(first.paidAt());
	}

	@Test
	void anUnknownOrderIsNotFound() {
		this.client.get().uri("/orders/42").exchange().expectStatus().isNotFound().expectBody()
			.jsonPath("$.detail").isEqualTo("No order 42");
		this.client.post().uri("/orders/42/pay").exchange().expectStatus().isNotFound();
	}

	@Test
	void theListShowsTheNewestOrdersFirstAndRefusesAnAbsurdLimit() {
		Order older = this.http.create("a clock");
		Order newer = this.http.create("a plant");
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
		// The orders of other tests must not be counted with these: none waits, and none runs (a call
		// counts as it ends, after its gate and its method).
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.wheelTimer.pendingTimeouts() == 0 && this.wheelTimer.counters().running() == 0);
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
			// A start gate that finds a payment's transaction holding the row sends the call back to its
			// wheel for another try: that fire is withdrawn, and the call scheduled once more.
			long retried = (after.scheduled() - before.scheduled()) - count;
			assertThat(retried).isNotNegative();
			// A payment that comes after the call fell due, before its start gate, withdraws it there.
			assertThat((after.cancelled() - before.cancelled()) + (after.withdrawn() - before.withdrawn())
					+ (after.completed() - before.completed()) - retried)
				.as("every order's delayed cancellation was either cancelled by the payment or ran")
				.isEqualTo(count);
			assertThat(after.failed() - before.failed()).isZero();
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

}
