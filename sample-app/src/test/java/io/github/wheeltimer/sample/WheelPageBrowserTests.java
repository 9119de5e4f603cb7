package io.github.wheeltimer.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.WheelSnapshot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
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
		properties = { "sample.orders.payment-timeout=10m", "sample.shipping.warehouse-failure-rate=0" })
@ExtendWith(HeadlessChromium.class)
class WheelPageBrowserTests {

	private static final Duration PAGE_WAIT = Duration.ofSeconds(15);

	@LocalServerPort
	private int port;

	@Autowired
	private HashedWheelTimer wheelTimer;

	private WebDriver browser;

	@BeforeEach
	void openThePage() {
		this.browser = HeadlessChromium.start();
		this.browser.get("http://localhost:" + this.port + "/");
	}

	@AfterEach
	void closeTheBrowser() throws IOException {
		try {
			// For a human to look at: what the page showed at the end of the test.
			Path screenshot = ((TakesScreenshot) this.browser).getScreenshotAs(OutputType.FILE).toPath();
			Files.copy(screenshot, Path.of("target", "wheel-page.png"), StandardCopyOption.REPLACE_EXISTING);
		}
		finally {
			this.browser.quit();
		}
	}

	@Test
	void thePageDrawsTheWheelFillsItWithOrdersAndStopsTheTimer() {
		await().atMost(PAGE_WAIT).untilAsserted(() -> {
			assertThat(text("state")).isEqualTo("STARTED");
			assertThat(buckets()).hasSize(128);
		});
		assertThat(text("geometry")).isEqualTo("100 ms ticks × 128 buckets = 12.8 s per revolution");
		assertThat(occupiedBuckets()).isEmpty();
		String handBefore = this.browser.findElement(By.id("hand")).getAttribute("transform");
		await("the hand sweeps round").atMost(PAGE_WAIT)
			.until(() -> !this.browser.findElement(By.id("hand")).getAttribute("transform").equals(handBefore));

		click("create-orders");
		await().atMost(PAGE_WAIT).untilAsserted(() -> {
			assertThat(number("counter-scheduled")).isEqualTo(3);
			assertThat(number("counter-pending")).isEqualTo(3);
			assertThat(occupiedBuckets()).isNotEmpty()
				.allSatisfy((bucket) -> assertThat(bucket.getDomAttribute("style")).contains("fill"));
			assertThat(occupiedBuckets().stream().mapToInt(this::timeoutsIn).sum())
				.as("the ring holds the three timeouts").isEqualTo(3);
			assertThat(this.browser.findElements(By.cssSelector("#next-timeouts li")))
				.extracting(WebElement::getText)
				.hasSize(3)
				.allSatisfy((line) -> assertThat(line).startsWith("PaymentTimeouts.cancelIfUnpaid(String)"));
			assertThat(this.browser.findElements(By.cssSelector("#orders tr[data-status=AWAITING_PAYMENT]"))).hasSize(3);
		});
		assertThat(text("message")).startsWith("Created orders 1001, 1002, 1003");
		assertThat(occupiedBuckets()).allSatisfy((bucket) -> assertThat(bucket.getText()).isEmpty());

		click("pay-order");
		await().atMost(PAGE_WAIT).untilAsserted(() -> {
			assertThat(number("counter-cancelled")).as("the payment took its cancellation off the wheel").isEqualTo(1);
			assertThat(number("counter-pending")).isEqualTo(2);
			assertThat(occupiedBuckets().stream().mapToInt(this::timeoutsIn).sum()).isEqualTo(2);
			assertThat(this.browser.findElements(By.cssSelector("#orders tr[data-status=PAID]"))).hasSize(1);
		});
		assertThat(text("message")).startsWith("Paid order 1001");

		click("stop-timer");
		await().atMost(PAGE_WAIT).untilAsserted(() -> {
			assertThat(text("state")).isEqualTo("SHUTDOWN");
			assertThat(number("counter-unprocessed")).isEqualTo(2);
			assertThat(number("counter-pending")).isZero();
			assertThat(occupiedBuckets()).isEmpty();
			assertThat(text("message")).contains("2 never ran and were cancelled (PaymentTimeouts.cancelIfUnpaid(String) × 2)");
		});
		assertThat(this.browser.findElement(By.id("stop-timer")).isEnabled()).isFalse();
		WheelSnapshot.Counters counters = this.wheelTimer.counters();
		assertThat(counters.scheduled()).isEqualTo(3);
		assertThat(counters.cancelled()).isEqualTo(1);
		assertThat(counters.unprocessed()).isEqualTo(2);

		click("create-orders");
		await().atMost(PAGE_WAIT).untilAsserted(() -> {
			assertThat(text("message")).startsWith("Refused: Timer 'wheelTimer' refused the delayed call");
			assertThat(number("counter-rejected")).isEqualTo(1);
			assertThat(this.browser.findElements(By.cssSelector("#orders tr[data-status=AWAITING_PAYMENT]")))
				.hasSize(2)
				.allSatisfy((row) -> assertThat(row.getText()).contains("the timer has stopped: never cancelled"));
		});
		assertThat(number("counter-scheduled")).isEqualTo(3);
	}

	private void click(String id) {
		this.browser.findElement(By.id(id)).click();
	}

	private String text(String id) {
		return this.browser.findElement(By.id(id)).getText();
	}

	private int number(String id) {
		return Integer.parseInt(text(id));
	}

	private List<WebElement> buckets() {
		return this.browser.findElements(By.cssSelector("#buckets path"));
	}

	private List<WebElement> occupiedBuckets() {
		return this.browser.findElements(By.cssSelector("#buckets path.occupied"));
	}

	private int timeoutsIn(WebElement bucket) {
		return Integer.parseInt(bucket.getDomAttribute("data-timeouts"));
	}

}
