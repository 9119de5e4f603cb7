package io.github.wheeltimer.test.docs;

import java.time.Duration;

import io.github.wheeltimer.durable.DurableCalls;
import io.github.wheeltimer.test.VirtualWheelClock;
import io.github.wheeltimer.test.VirtualWheelTime;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the durable examples of {@code docs/annotation.md} ({@link OrderService}) and
 * {@code docs/durable-calls.md} ({@link PaymentTimeouts}) say they do, on H2 and virtual time.
 */
@SpringBootTest(classes = DurableExamplesTests.Shop.class,
		properties = { "spring.datasource.url=jdbc:h2:mem:docs-durable;DB_CLOSE_DELAY=-1",
				"wheel-timer.tick-duration=100ms" })
@VirtualWheelTime
class DurableExamplesTests {

	@Autowired
	OrderService orderService;

	@Autowired
	PaymentTimeouts paymentTimeouts;

	@Autowired
	Orders orders;

	@Autowired
	DurableCalls durableCalls;

	@Autowired
	VirtualWheelClock clock;

	@Test
	void aCallThroughTheBeansOwnProxyIsDelayedNotRunAtOnce() {
		this.orderService.create("o-1");
		assertThat(this.orders.state("o-1")).isEqualTo("AWAITING_PAYMENT");
		this.clock.advance(Duration.ofMinutes(29));
		assertThat(this.orders.state("o-1")).isEqualTo("AWAITING_PAYMENT");
		this.clock.advance(Duration.ofMinutes(1));
		assertThat(this.orders.state("o-1")).isEqualTo("CANCELLED");
	}

	@Test
	void aPaymentCancelsTheWaitingCallByItsMethodsIdAndTheOrdersId() {
		this.orders.save("o-2");
		this.paymentTimeouts.cancelIfUnpaid("o-2");
		assertThat(this.durableCalls.find("PaymentTimeouts.cancelIfUnpaid", "o-2")).isPresent();
		this.clock.advance(Duration.ofMinutes(10));
		this.paymentTimeouts.pay("o-2");
		assertThat(this.durableCalls.find("PaymentTimeouts.cancelIfUnpaid", "o-2")).isEmpty();
		this.clock.advance(Duration.ofMinutes(30));
		assertThat(this.orders.state("o-2")).isEqualTo("PAID");
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import({ Orders.class, OrderService.class, PaymentTimeouts.class })
	static class Shop {

	}

}
