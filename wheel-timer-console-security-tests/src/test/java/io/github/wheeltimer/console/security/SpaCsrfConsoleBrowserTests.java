package io.github.wheeltimer.console.security;

import org.junit.jupiter.api.Test;
import org.openqa.selenium.Cookie;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The console behind {@code csrf.spa()}: the token in the {@code XSRF-TOKEN} cookie, which
 * Spring Security expects back as stored, in {@code X-XSRF-TOKEN}.
 */
@SpringBootTest(classes = { SecuredShop.class, ConsoleSecurity.SpaCsrf.class },
		webEnvironment = WebEnvironment.RANDOM_PORT)
class SpaCsrfConsoleBrowserTests extends SecuredConsoleTests {

	@Test
	void anOperatorCancelsAndRunsCallsWithTheTokenOfTheCookie() {
		String cancelled = order();
		String ran = order();
		signInOnTheForm(SecuredShop.OPERATOR);
		findTheCapture(cancelled);
		Cookie cookie = this.console.browser().manage().getCookieNamed("XSRF-TOKEN");
		assertThat(cookie).as("the cookie script reads").isNotNull();
		assertThat(cookie.isHttpOnly()).isFalse();

		cancel(cancelled);
		await().atMost(WAIT).untilAsserted(() -> assertThat(this.console.status())
			.isEqualTo("Cancelled " + describe(cancelled) + ": it will not run."));
		assertThat(this.durableCalls.find(Payments.CAPTURE, cancelled)).isEmpty();

		findTheCapture(ran);
		this.console.act("search-results", ran, "run");
		await().atMost(WAIT).until(() -> this.payments.captured(ran));
		assertThat(this.durableCalls.find(Payments.CAPTURE, ran)).isEmpty();
	}

}
