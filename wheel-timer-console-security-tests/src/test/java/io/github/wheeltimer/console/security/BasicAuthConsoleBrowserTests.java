package io.github.wheeltimer.console.security;

import io.github.wheeltimer.sample.ConsoleScreen;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The console behind HTTP Basic with CSRF protection off: the page sends no token, and the
 * browser's credentials answer Spring Security's challenge.
 */
@SpringBootTest(classes = { SecuredShop.class, ConsoleSecurity.BasicWithoutCsrf.class },
		webEnvironment = WebEnvironment.RANDOM_PORT)
class BasicAuthConsoleBrowserTests extends SecuredConsoleTests {

	@Test
	void anOperatorCancelsACall() {
		String order = order();
		signInWithBasic(SecuredShop.OPERATOR);
		findTheCapture(order);
		cancel(order);
		await().atMost(WAIT).untilAsserted(() -> assertThat(this.console.status())
			.isEqualTo("Cancelled " + describe(order) + ": it will not run."));
		assertThat(this.delayedCalls.find(Payments.CAPTURE, order)).isEmpty();
	}

	@Test
	void supportStaffAreRefusedForTheirRoles() {
		String order = order();
		signInWithBasic(SecuredShop.SUPPORT);
		findTheCapture(order);
		cancelIsRefusedForTheRolesOf(SecuredShop.SUPPORT, order);
	}

	/** The browser answers the challenge with the credentials of the address it was given. */
	private void signInWithBasic(String user) {
		ConsoleScreen console = browser();
		console.browser().get("http://" + user + ":" + SecuredShop.PASSWORD + "@localhost:" + this.port + "/wheel-timer/");
		await().atMost(WAIT).until(() -> "live".equals(console.text("connection")));
	}

}
