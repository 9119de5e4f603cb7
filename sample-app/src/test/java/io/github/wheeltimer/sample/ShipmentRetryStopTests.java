package io.github.wheeltimer.sample;

import java.time.Duration;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.sample.ShipmentRetryTests.ScriptedWarehouse;
import io.github.wheeltimer.sample.ShipmentRetryTests.WarehouseScript;
import io.github.wheeltimer.sample.orders.Order;
import io.github.wheeltimer.sample.orders.OrderBook;
import io.github.wheeltimer.sample.orders.OrderService;
import io.github.wheeltimer.sample.orders.ShipmentStatus;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A retry that the timer, stopped, never runs: the shipment ends as failed, saying why. The retry
 * waits a minute, so that it is still on the wheel when the test stops the timer, however slowly
 * a loaded machine gets there ({@link ShipmentRetryTests} retries after 300 ms).
 */
@SpringBootTest(properties = { "wheel-timer.tick-duration=10ms", "sample.shipping.retry-delay=1m",
		"sample.shipping.max-retries=2" })
@Import(WarehouseScript.class)
@DirtiesContext
class ShipmentRetryStopTests {

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
	void aRetryCutShortByTheTimerStoppingEndsTheShipmentAsFailedNotForgotten() {
		Order order = this.orderService.create("a lamp");
		this.warehouse.refuse(order.id(), Integer.MAX_VALUE);
		this.orderService.pay(order.id());
		assertThat(this.warehouse.attempts(order.id())).hasSize(1);

		assertThat(this.retries.stop()).as("the retry waiting on the wheel").hasSize(1);

		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.orders.find(order.id()).orElseThrow().shipment() == ShipmentStatus.FAILED);
		Order failed = this.orders.find(order.id()).orElseThrow();
		assertThat(failed.shipmentAttempts()).isOne();
		assertThat(failed.shipmentProblem())
			.isEqualTo("Order " + order.id() + " was refused 1 time and cannot be retried: the timer has stopped");
		assertThat(this.warehouse.attempts(order.id())).hasSize(1);
	}

}
