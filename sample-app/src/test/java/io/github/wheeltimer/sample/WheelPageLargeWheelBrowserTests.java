package io.github.wheeltimer.sample;

import java.io.IOException;

import io.github.wheeltimer.sample.orders.OrderService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A wheel too large to draw bucket by bucket: the page draws runs of buckets, and still shows
 * every timeout.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "wheel-timer.ticks-per-wheel=4096", "sample.orders.payment-timeout=10m",
				// Within the horizon, so the durable payment timeouts go on the wheel the page draws.
				"wheel-timer.durable.horizon=15m" })
@ExtendWith(HeadlessChromium.class)
class WheelPageLargeWheelBrowserTests {

	@LocalServerPort
	private int port;

	@Autowired
	private OrderService orderService;

	@Test
	void aLargeWheelIsDrawnInRunsOfBucketsThatStillAddUp() throws IOException {
		for (int i = 0; i < 5; i++) {
			this.orderService.create("item " + i);
		}
		try (WheelPage page = new WheelPage(this.port)) {
			await().atMost(WheelPageBrowserTests.PAGE_WAIT).untilAsserted(() -> {
				assertThat(page.segmentCount()).as("512 segments of 8 buckets").isEqualTo(512);
				assertThat(page.timeoutsOnTheRings()).isEqualTo(5);
			});
			assertThat(page.text("geometry")).isEqualTo("100 ms ticks × 4096 buckets = 6 min 50 s per turn");
			page.screenshot("wheel-page-large");
		}
	}

}
