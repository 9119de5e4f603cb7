package io.github.wheeltimer.sample;

import java.io.IOException;
import java.time.Duration;
import java.util.Collections;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.WheelSnapshot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The page at {@code GET /}, in a real browser: headless Chromium against the sample on a random
 * port, with the sample's own {@code application.yml}.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		// Far payment timeouts, so nothing fires while the test looks; a warehouse that takes every
		// order, so no retry joins the wheel.
		properties = { "sample.orders.payment-timeout=10m",
				// Within the horizon, so the durable payment timeouts go on the wheel the page draws.
				"wheel-timer.durable.horizon=15m", "sample.shipping.warehouse-failure-rate=0" })
@ExtendWith(HeadlessChromium.class)
class WheelPageBrowserTests {

	static final Duration PAGE_WAIT = Duration.ofSeconds(15);

	@LocalServerPort
	private int port;

	@Autowired
	private HashedWheelTimer wheelTimer;

	@Autowired
	private JdbcTemplate jdbc;

	private WheelPage page;

	@BeforeEach
	void openThePage() {
		this.page = new WheelPage(this.port);
	}

	@AfterEach
	void closeThePage() throws IOException {
		if (this.page != null) {
			try (WheelPage page = this.page) {
				page.screenshot("wheel-page");
			}
		}
	}

	@Test
	void thePickerListsEveryTimerAndThePageDrawsThePickedOne() {
		await().atMost(PAGE_WAIT).untilAsserted(() -> {
			assertThat(this.page.timerChoices()).as("as the endpoint lists them, by name").containsExactly("retries", "wheelTimer");
			assertThat(this.page.pickedTimer()).isEqualTo("wheelTimer");
		});
		try (WheelPage retries = new WheelPage(this.port, "?timer=retries")) {
			await().atMost(PAGE_WAIT).untilAsserted(() -> {
				assertThat(retries.pickedTimer()).isEqualTo("retries");
				assertThat(retries.text("state")).isEqualTo("STARTED");
				assertThat(retries.segmentCount()).as("one segment per bucket of the retries' wheel").isEqualTo(256);
			});
			assertThat(retries.text("geometry")).startsWith("10 ms ticks × 256 buckets");
		}
	}

	@Test
	void upperLevelsAreOuterRingsWithTheirHandsAndATooltipPerSlot() {
		await().atMost(PAGE_WAIT).until(() -> this.page.segmentCount() == 128);
		this.page.answerTimerReadsWith("wheelTimer", """
				{ "state": "STARTED", "tickDuration": "PT0.1S", "ticksPerWheel": 128, "tick": 1000, "hand": 104,
				  "pendingTimeouts": 10, "maxPendingTimeouts": 0,
				  "counters": { "scheduled": 10, "completed": 0, "failed": 0, "withdrawn": 0, "cancelled": 0, "rejected": 0,
				                "running": 0, "unprocessed": 0 },
				  "tickLag": "PT0S", "maxTickLag": "PT0S", "meanLateness": "PT0S",
				  "worker": { "name": "wheel-timer", "alive": true },
				  "buckets": { "occupied": 1, "largest": { "index": 110, "timeouts": 3, "dueIn": "PT0.6S" } },
				  "levels": [
				    { "index": 0, "slotSpan": "PT0.1S", "slots": 128, "hand": 104, "timeouts": 3, "nextDue": "PT0.6S",
				      "moves": 0, "occupied": [ { "index": 110, "timeouts": 3, "dueIn": "PT0.6S" } ] },
				    { "index": 1, "slotSpan": "PT12.8S", "slots": 64, "hand": 3, "timeouts": 6, "nextDue": "PT4.5S",
				      "moves": 12, "occupied": [ { "index": 4, "timeouts": 1, "dueIn": "PT4.5S" },
				                                 { "index": 5, "timeouts": 5, "dueIn": "PT17.4S" } ] },
				    { "index": 2, "slotSpan": "PT13M39.2S", "slots": 64, "hand": 0, "timeouts": 1, "nextDue": "PT1H2M",
				      "moves": 0, "occupied": [ { "index": 4, "timeouts": 1, "dueIn": "PT1H2M" } ] },
				    { "index": 3, "slotSpan": "PT14H33M48.8S", "slots": 64, "hand": 0, "timeouts": 0, "moves": 0,
				      "occupied": [] } ],
				  "nextTimeouts": [], "delayedMethods": [] }""");

		await().atMost(PAGE_WAIT).untilAsserted(() -> {
			assertThat(this.page.upperRingSlots()).as("levels 1 to 3, around level 0").containsExactly(64, 64, 64);
			assertThat(this.page.timeoutsOnTheRings()).isEqualTo(10);
		});
		assertThat(this.page.segmentCount()).isEqualTo(128);
		assertThat(this.page.occupiedTooltips()).containsExactly(
				"level 0 · bucket 110 (100 ms): 3 timeouts, the first due in 600 ms",
				"level 1 · slot 4 of 64 (12.8 s each): 1 timeout, due in 4.5 s",
				"level 1 · slot 5 of 64 (12.8 s each): 5 timeouts, the first due in 17.4 s",
				"level 2 · slot 4 of 64 (13 min 39 s each): 1 timeout, due in 1 h 2 min");
		assertThat(this.page.handSlotTooltip(1)).isEqualTo("level 1 · slot 3 of 64 (12.8 s each) · the hand is here: empty");
		assertThat(this.page.handSlotTooltip(3)).startsWith("level 3 · slot 0 of 64 (14 h 34 min each) · the hand is here");
		assertThat(this.page.levelRows()).containsExactly(
				"0\t128 × 100 ms\t12.8 s\t104\t3\t600 ms\t–",
				"1\t64 × 12.8 s\t13 min 39 s\t3\t6\t4.5 s\t12",
				"2\t64 × 13 min 39 s\t14 h 34 min\t0\t1\t1 h 2 min\t0",
				"3\t64 × 14 h 34 min\t38 d 20 h\t0\t0\t–\t0");
	}

	/** Durable calls of the payment timeouts waiting in the database, for the next start. */
	private long pendingCancellations() {
		Long count = this.jdbc.queryForObject(
				"SELECT COUNT(*) FROM WHEEL_TIMER_CALL WHERE method_id = 'PaymentTimeouts.cancelIfUnpaid'"
						+ " AND state = 'PENDING'", Long.class);
		return (count != null) ? count : -1;
	}

	@Test
	void thePageDrawsTheWheelFillsItWithOrdersAndStopsTheTimer() {
		int levels = this.wheelTimer.snapshot().levels().size();
		await().atMost(PAGE_WAIT).untilAsserted(() -> {
			assertThat(this.page.text("state")).isEqualTo("STARTED");
			assertThat(this.page.segmentCount()).as("one segment per bucket").isEqualTo(128);
			assertThat(this.page.upperRingSlots()).as("a ring of 64 slots around it per upper level")
				.isEqualTo(Collections.nCopies(levels - 1, 64));
			assertThat(this.page.levelRows()).as("a row per level").hasSize(levels);
		});
		assertThat(this.page.text("geometry")).isEqualTo("100 ms ticks × 128 buckets = 12.8 s per turn");
		assertThat(this.page.occupiedSegmentStyles()).isEmpty();
		String handBefore = this.page.handTransform();
		await("the hand sweeps round").atMost(PAGE_WAIT).until(() -> !this.page.handTransform().equals(handBefore));

		this.page.click("create-orders");
		await().atMost(PAGE_WAIT).untilAsserted(() -> {
			assertThat(this.page.number("counter-scheduled")).isEqualTo(3);
			assertThat(this.page.number("counter-pending")).isEqualTo(3);
			assertThat(this.page.occupiedSegmentStyles()).isNotEmpty()
				.allSatisfy((style) -> assertThat(style).contains("fill"));
			assertThat(this.page.timeoutsOnTheRings()).as("the rings hold the three timeouts").isEqualTo(3);
			assertThat(this.page.nextTimeouts()).hasSize(3)
				.allSatisfy((line) -> assertThat(line).startsWith("PaymentTimeouts.cancelIfUnpaid(String)"));
			assertThat(this.page.ordersWithStatus("AWAITING_PAYMENT")).hasSize(3);
		});
		assertThat(this.page.text("message")).startsWith("Created orders 1001, 1002, 1003");

		this.page.click("pay-order");
		await().atMost(PAGE_WAIT).untilAsserted(() -> {
			assertThat(this.page.number("counter-cancelled")).as("the payment took its cancellation off the wheel")
				.isEqualTo(1);
			assertThat(this.page.number("counter-pending")).isEqualTo(2);
			assertThat(this.page.timeoutsOnTheRings()).isEqualTo(2);
			assertThat(this.page.ordersWithStatus("PAID")).hasSize(1);
		});
		assertThat(this.page.text("message")).isEqualTo(
				"Paid order 1001: its cancellation was taken off the wheel (cancelled +1), and the warehouse took it.");

		this.page.click("stop-timer");
		await().atMost(PAGE_WAIT).untilAsserted(() -> {
			assertThat(this.page.text("state")).isEqualTo("SHUTDOWN");
			assertThat(this.page.number("counter-unprocessed")).isEqualTo(2);
			assertThat(this.page.number("counter-pending")).isZero();
			assertThat(this.page.occupiedSegmentStyles()).isEmpty();
			assertThat(this.page.text("message"))
				.contains("2 handed back to the database (PaymentTimeouts.cancelIfUnpaid(String) × 2), to run at the next"
						+ " start: counted as unprocessed");
		});
		assertThat(this.page.isEnabled("stop-timer")).isFalse();
		WheelSnapshot.Counters counters = this.wheelTimer.counters();
		assertThat(counters.scheduled()).isEqualTo(3);
		assertThat(counters.cancelled()).isEqualTo(1);
		assertThat(counters.unprocessed()).isEqualTo(2);

		// Durable calls are still accepted: the stopped wheel refuses them, and they wait in the database.
		this.page.click("create-orders");
		await().atMost(PAGE_WAIT).untilAsserted(() -> {
			assertThat(this.page.text("message")).startsWith("Created orders 1004, 1005, 1006: each one wrote a durable"
					+ " call to cancelIfUnpaid to the database. The timer is stopped");
			assertThat(this.page.number("counter-rejected")).isEqualTo(3);
			assertThat(this.page.ordersWithStatus("AWAITING_PAYMENT")).hasSize(5)
				.allSatisfy((row) -> assertThat(row)
					.contains("timer stopped: its cancellation waits in the database for the next start"));
		});
		assertThat(this.page.number("counter-scheduled")).isEqualTo(3);
		assertThat(pendingCancellations()).isEqualTo(5);

		this.page.click("pay-order");
		await().atMost(PAGE_WAIT).untilAsserted(() -> assertThat(this.page.text("message")).isEqualTo(
				"Paid order 1002: its cancellation, waiting in the database since the timer stopped, was deleted there;"
						+ " the warehouse took it."));
		assertThat(this.page.number("counter-cancelled")).as("nothing was on the wheel to cancel").isEqualTo(1);
		assertThat(pendingCancellations()).isEqualTo(4);
	}

}
