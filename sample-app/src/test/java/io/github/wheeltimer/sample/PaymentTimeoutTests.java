package io.github.wheeltimer.sample;

import java.time.Clock;
import java.time.Duration;

import io.github.wheeltimer.sample.orders.Order;
import io.github.wheeltimer.sample.orders.OrderService;
import io.github.wheeltimer.sample.orders.OrderStatus;
import io.github.wheeltimer.sample.orders.ShipmentStatus;
import io.github.wheeltimer.test.VirtualWheelClock;
import io.github.wheeltimer.test.VirtualWheelTime;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's own 30-second payment timeout, on virtual time: each test moves the clock instead
 * of waiting, and the shop stamps its orders with the same virtual time as the timer.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = "sample.shipping.warehouse-failure-rate=0")
@AutoConfigureRestTestClient
@VirtualWheelTime
class PaymentTimeoutTests {

	private static final Duration PAYMENT_TIMEOUT = Duration.ofSeconds(30);

	@Autowired
	private VirtualWheelClock clock;

	@Autowired
	private OrderService orderService;

	@Autowired
	private RestTestClient client;

	private OrdersOverHttp http;

	@BeforeEach
	void callTheShopOverHttp() {
		this.http = new OrdersOverHttp(this.client);
	}

	@Test
	void anUnpaidOrderIsCancelledThirtySecondsAfterItWasCreatedNotBefore() {
		Order created = this.http.create("a teapot");
		assertThat(created.paymentDue()).isEqualTo(created.createdAt().plus(PAYMENT_TIMEOUT));

		this.clock.advance(PAYMENT_TIMEOUT.minusMillis(100));
		assertThat(this.http.get(created.id()).status()).isEqualTo(OrderStatus.AWAITING_PAYMENT);

		this.clock.advance(Duration.ofMillis(100));
		Order cancelled = this.http.get(created.id());
		assertThat(cancelled.status()).isEqualTo(OrderStatus.CANCELLED);
		assertThat(cancelled.cancelledAt()).as("exactly when the payment fell due").isEqualTo(created.paymentDue());
	}

	@Test
	void anOrderPaidInTimeIsShippedAndNeverCancelled() {
		Order created = this.http.create("a lamp");
		this.clock.advance(PAYMENT_TIMEOUT.minusSeconds(1));
		this.orderService.pay(created.id());
		this.clock.advance(Duration.ofHours(1));
		Order paid = this.http.get(created.id());
		assertThat(paid.status()).isEqualTo(OrderStatus.PAID);
		assertThat(paid.shipment()).isEqualTo(ShipmentStatus.SHIPPED);
	}

	@Test
	void payingOnceTheOrderWasCancelledIsAConflictThatSaysWhy() {
		Order created = this.http.create("a chair");
		this.clock.advance(PAYMENT_TIMEOUT);

		this.client.post()
			.uri("/orders/{id}/pay", created.id())
			.exchange()
			.expectStatus()
			.isEqualTo(409)
			.expectBody()
			.jsonPath("$.detail")
			.value(String.class, (detail) -> assertThat(detail)
				.isEqualTo("Order " + created.id() + " was cancelled at " + created.paymentDue()
						+ ": it was not paid before " + created.paymentDue()));
	}

	/**
	 * The shop's clock on the timer's virtual time, so that its timestamps agree with the wheel; in
	 * whole microseconds, as the shop's own clock and the database.
	 */
	@TestConfiguration(proxyBeanMethods = false)
	static class VirtualShopClock {

		@Bean
		@Primary
		Clock virtualShopClock(VirtualWheelClock clock) {
			return Clock.tick(clock.asClock(), Duration.ofNanos(1000));
		}

	}

}
