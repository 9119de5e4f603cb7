package io.github.wheeltimer.console.security;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;

import io.github.wheeltimer.sample.ConsoleScreen;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The console behind HTTP Basic with CSRF protection off: the page sends no token, and the
 * browser's credentials answer Spring Security's challenge.
 */
@SpringBootTest(classes = { SecuredShop.class, ConsoleSecurity.BasicWithoutCsrf.class },
		webEnvironment = WebEnvironment.RANDOM_PORT)
class BasicAuthConsoleBrowserTests extends SecuredConsoleTests {

	@Autowired
	private JdbcTemplate jdbc;

	@Test
	void anOperatorCancelsACall() {
		String order = order();
		signInWithBasic(SecuredShop.OPERATOR);
		findTheCapture(order);
		cancel(order);
		await().atMost(WAIT).untilAsserted(() -> assertThat(this.console.status())
			.isEqualTo("Cancelled " + describe(order) + ": it will not run."));
		assertThat(this.durableCalls.find(Payments.CAPTURE, order)).isEmpty();
	}

	@Test
	void supportStaffSeeThatTheirRolesMayNotChangeCalls() {
		String order = order();
		signInWithBasic(SecuredShop.SUPPORT);
		findTheCapture(order);
		theConsoleIsReadOnlyFor(SecuredShop.SUPPORT, order);
	}

	/**
	 * This application's rules let nobody delete a whole method's calls from the console: the
	 * operator who tries is told that the rules, not the sign-in or a token, refused it.
	 */
	@Test
	void aChangeTheRulesRefuseToAnOperatorSaysSo() {
		String gone = "payments.retired";
		this.jdbc.update("INSERT INTO WHEEL_TIMER_CALL (id, method_id, call_key, arguments, due_at, state)"
				+ " VALUES (?, ?, 'o-1', '[\"o-1\"]', ?, 'PENDING')", UUID.randomUUID(), gone,
				OffsetDateTime.now(ZoneOffset.UTC).plusHours(1));
		signInWithBasic(SecuredShop.OPERATOR);
		this.console.open("durable");
		await().atMost(WAIT).untilAsserted(() -> assertThat(this.console.unknownMethods()).singleElement()
			.satisfies((row) -> assertThat(row).startsWith(gone + "\t1")));
		this.console.deleteUnknownMethod(gone);
		await().atMost(WAIT).until(this.console::dialogOpen);
		this.console.confirm(true);
		await().atMost(WAIT).untilAsserted(() -> assertThat(this.console.status()).isEqualTo("Could not delete the"
				+ " calls of " + gone + ": refused by the application's security: ops is signed in, but its rules do not"
				+ " allow DELETE /actuator/wheeltimer/durable/methods/" + gone + " to them. Sign in as an operator with"
				+ " the role they require (HTTP 403)"));
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM WHEEL_TIMER_CALL WHERE method_id = ?", Long.class,
				gone)).isOne();
	}

	/** The browser answers the challenge with the credentials of the address it was given. */
	private void signInWithBasic(String user) {
		ConsoleScreen console = browser();
		console.browser().get("http://" + user + ":" + SecuredShop.PASSWORD + "@localhost:" + this.port + "/wheel-timer/");
		await().atMost(WAIT).until(() -> "live".equals(console.text("connection")));
	}

}
