package io.github.wheeltimer.sample;

import java.io.IOException;

import io.github.wheeltimer.sample.orders.Order;
import io.github.wheeltimer.sample.orders.OrderService;
import io.github.wheeltimer.sample.orders.PaymentTimeouts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The console of an application whose {@code wheeltimer} endpoint is read-only: it shows
 * everything, offers no change, and says which property would allow them.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoint.wheeltimer.access=read-only",
				"management.endpoint.wheeltimer.show-arguments=never", "sample.orders.payment-timeout=10m" })
@ExtendWith(HeadlessChromium.class)
class ConsoleReadOnlyBrowserTests {

	@LocalServerPort
	private int port;

	@Autowired
	private OrderService orders;

	@Test
	void aReadOnlyEndpointShowsAReadOnlyConsole() throws IOException {
		Order order = this.orders.create("a clock");
		try (ConsoleScreen console = new ConsoleScreen(this.port).open("durable")) {
			await().atMost(ConsoleBrowserTests.WAIT).untilAsserted(() -> {
				assertThat(console.displayed("read-only-banner")).isTrue();
				assertThat(console.calls("search-results")).singleElement()
					.satisfies((row) -> assertThat(row).startsWith(order.id() + "\t" + PaymentTimeouts.CANCEL_IF_UNPAID));
			});
			assertThat(console.text("read-only-banner")).contains("Read-only console.")
				.contains("management.endpoint.wheeltimer.access=unrestricted");
			assertThat(console.text("access")).isEqualTo("read-only");
			assertThat(console.actions("search-results", order.id())).as("no change offered on the call").isEmpty();
			assertThat(console.visibleChangeButtons()).isEmpty();
			assertThat(console.details("search-results", order.id())).as("arguments hidden by the endpoint")
				.contains("hidden (management.endpoint.wheeltimer.show-arguments)");

			console.showTab("timers");
			await().atMost(ConsoleBrowserTests.WAIT).until(() -> "STARTED".equals(console.text("state")));
			assertThat(console.visibleChangeButtons()).as("no stop button either").isEmpty();
			assertThat(console.displayed("stop-form")).isFalse();
			console.screenshot("console-read-only");
		}
	}

}
