package io.github.wheeltimer.console.security;

import java.io.IOException;
import java.time.Duration;
import java.util.UUID;

import io.github.wheeltimer.durable.DurableCalls;
import io.github.wheeltimer.sample.ConsoleScreen;
import io.github.wheeltimer.sample.HeadlessChromium;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the browser tests of each security setup share: the application, the browser on its
 * console, Spring Security's own sign-in page, and orders whose payment capture waits an hour.
 */
@ExtendWith(HeadlessChromium.class)
abstract class SecuredConsoleTests {

	/** CI has two loaded cores: the console reads every few seconds, and a durable poll comes every 2 s. */
	static final Duration WAIT = Duration.ofSeconds(30);

	@LocalServerPort
	int port;

	@Autowired
	Payments payments;

	@Autowired
	DurableCalls durableCalls;

	ConsoleScreen console;

	@AfterEach
	void closeTheBrowser(TestInfo test) throws IOException {
		if (this.console != null) {
			try (ConsoleScreen console = this.console) {
				console.screenshot(getClass().getSimpleName() + "-" + test.getTestMethod().orElseThrow().getName());
			}
		}
	}

	/** Places an order: its payment capture waits an hour, as a durable call keyed by the order. */
	String order() {
		String order = "order-" + UUID.randomUUID().toString().substring(0, 8);
		this.payments.capture(order);
		assertThat(this.durableCalls.find(Payments.CAPTURE, order)).isPresent();
		return order;
	}

	ConsoleScreen browser() {
		if (this.console == null) {
			this.console = new ConsoleScreen(this.port);
		}
		return this.console;
	}

	/** Signs in on Spring Security's default page, where the console's path sends a visitor. */
	void signInOnTheForm(String user) {
		browser().open("durable");
		await().atMost(WAIT).until(() -> onTheSignInPage());
		this.console.browser().findElement(By.id("username")).sendKeys(user);
		this.console.browser().findElement(By.id("password")).sendKeys(SecuredShop.PASSWORD);
		this.console.browser().findElement(By.cssSelector("button[type=submit]")).click();
		await().atMost(WAIT).until(() -> !onTheSignInPage());
	}

	boolean onTheSignInPage() {
		return this.console.browser().getCurrentUrl().contains("/login")
				&& !this.console.browser().findElements(By.id("username")).isEmpty();
	}

	/** Opens the durable calls tab and finds the call of this order. */
	void findTheCapture(String order) {
		this.console.open("durable");
		await().atMost(WAIT).until(() -> "live".equals(this.console.text("connection")));
		this.console.search(Payments.CAPTURE, order);
		await().atMost(WAIT).until(() -> this.console.calls("search-results").size() == 1);
	}

	/** Cancels the call of this order through its confirmation. */
	void cancel(String order) {
		this.console.act("search-results", order, "cancel");
		await().atMost(WAIT).until(this.console::dialogOpen);
		this.console.confirm(true);
	}

	/**
	 * The console of a user whose roles may read but not change: it says so, and offers no change
	 * that Spring Security would refuse.
	 */
	void theConsoleIsReadOnlyFor(String user, String order) {
		await().atMost(WAIT).untilAsserted(() -> {
			assertThat(this.console.displayed("not-allowed-banner")).isTrue();
			assertThat(this.console.text("not-allowed-banner")).startsWith("Read-only for you. You are signed in as "
					+ user + ", whom the application's security (Spring Security) does not allow to change calls");
			assertThat(this.console.text("access")).isEqualTo("read-only for " + user);
		});
		assertThat(this.console.actions("search-results", order)).isEmpty();
		assertThat(this.console.visibleChangeButtons()).isEmpty();
		assertThat(this.console.displayed("read-only-banner")).as("the endpoint's own access").isFalse();
	}

	static String describe(String order) {
		return Payments.CAPTURE + " [" + order + "]";
	}

}
