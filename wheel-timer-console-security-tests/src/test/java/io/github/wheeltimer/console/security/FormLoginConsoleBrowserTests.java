package io.github.wheeltimer.console.security;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

import io.github.wheeltimer.durable.CallState;
import io.github.wheeltimer.durable.StoredCall;
import io.github.wheeltimer.sample.HeadlessChromium;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The console behind the Spring Security configuration of {@code docs/production.md}: form login,
 * the CSRF protection Spring Security turns on by default (its token kept in the session),
 * operators who change and support staff who look. Every change goes through the console in Chromium and is checked
 * through {@code DurableCalls}.
 */
@SpringBootTest(classes = { SecuredShop.class, ConsoleSecurity.FormLogin.class },
		webEnvironment = WebEnvironment.RANDOM_PORT)
class FormLoginConsoleBrowserTests extends SecuredConsoleTests {

	@Test
	void anOperatorCancelsRunsReschedulesAndRequeuesCalls() {
		String cancelled = order();
		String ran = order();
		String moved = order();
		String declined = order();
		signInOnTheForm(SecuredShop.OPERATOR);

		findTheCapture(cancelled);
		cancel(cancelled);
		await().atMost(WAIT).untilAsserted(() -> assertThat(this.console.status())
			.isEqualTo("Cancelled " + describe(cancelled) + ": it will not run."));
		assertThat(this.durableCalls.find(Payments.CAPTURE, cancelled)).as("cancelled").isEmpty();

		findTheCapture(ran);
		this.console.act("search-results", ran, "run");
		await().atMost(WAIT).until(() -> this.payments.captured(ran));
		assertThat(this.console.status()).startsWith(describe(ran) + " is due now");
		assertThat(this.durableCalls.find(Payments.CAPTURE, ran)).as("ran").isEmpty();

		StoredCall before = this.durableCalls.find(Payments.CAPTURE, moved).orElseThrow();
		findTheCapture(moved);
		this.console.reschedule("search-results", moved, 60);
		await().atMost(WAIT).untilAsserted(() -> assertThat(this.console.status())
			.startsWith(describe(moved) + " is now due "));
		assertThat(this.durableCalls.find(Payments.CAPTURE, moved).orElseThrow().due())
			.as("an hour after the time the dialog showed")
			.isEqualTo(before.due().truncatedTo(ChronoUnit.SECONDS).plus(Duration.ofHours(1)));

		this.payments.decline(declined, true);
		findTheCapture(declined);
		this.console.act("search-results", declined, "run");
		await().atMost(WAIT).untilAsserted(() -> assertThat(this.console.calls("failed-calls"))
			.anySatisfy((row) -> assertThat(row).startsWith(declined + "\t" + Payments.CAPTURE).contains("FAILED")));
		assertThat(this.durableCalls.list(Payments.CAPTURE, CallState.FAILED, 0, 10).calls()).extracting(StoredCall::key)
			.containsExactly(declined);
		this.payments.decline(declined, false);
		this.console.act("failed-calls", declined, "requeue");
		await().atMost(WAIT).until(() -> this.payments.captured(declined));
		assertThat(this.console.status()).startsWith(describe(declined) + " is pending again, due now");
		assertThat(this.durableCalls.list(Payments.CAPTURE, CallState.FAILED, 0, 10).calls()).isEmpty();

		// The runs on the timer's counters, as each ended: two returned, one threw.
		this.console.open("timers");
		await().atMost(WAIT).untilAsserted(() -> {
			assertThat(this.console.text("counter-scheduled")).isEqualTo("3");
			assertThat(this.console.text("counter-completed")).isEqualTo("2");
			assertThat(this.console.text("counter-failed")).isEqualTo("1");
		});
	}

	@Test
	void supportStaffSeeTheCallsAndThatTheirRolesMayNotChangeThem() {
		String order = order();
		signInOnTheForm(SecuredShop.SUPPORT);
		findTheCapture(order);
		theConsoleIsReadOnlyFor(SecuredShop.SUPPORT, order);
	}

	@Test
	void aVisitorWhoIsNotSignedInIsSentToSignInAndThenToTheConsole() {
		browser().open("durable");
		await().atMost(WAIT).until(this::onTheSignInPage);
		signInOnTheForm(SecuredShop.OPERATOR);
		assertThat(this.console.browser().getCurrentUrl()).contains("/wheel-timer/");
		await().atMost(WAIT).until(() -> "live".equals(this.console.text("connection")));
	}

	@Test
	void aChangeWhoseTokenIsRefusedSaysItWasCsrf() {
		String order = order();
		signInOnTheForm(SecuredShop.OPERATOR);
		findTheCapture(order);
		// A token the application does not accept: the page's CSRF header dropped from every change.
		HeadlessChromium.script(this.console.browser(), """
				const fetched = window.fetch;
				window.fetch = (resource, init) => {
					if (init && init.method && init.headers) {
						delete init.headers['X-CSRF-TOKEN'];
					}
					return fetched(resource, init);
				};""");
		cancel(order);
		await().atMost(WAIT).untilAsserted(() -> assertThat(this.console.status()).isEqualTo("Could not cancel "
				+ describe(order) + ": refused by the application's CSRF protection (Spring Security): it did not"
				+ " accept the token this page sent. Reload the page and try again (HTTP 403)"));
		assertThat(this.durableCalls.find(Payments.CAPTURE, order)).as("kept").isPresent();
	}

	@Test
	void aChangeAfterTheSessionEndedAsksToSignInAgain() {
		String order = order();
		signInOnTheForm(SecuredShop.OPERATOR);
		findTheCapture(order);
		this.console.browser().manage().deleteCookieNamed("JSESSIONID");
		cancel(order);
		// The change's own refusal, which the reads refused for the same reason leave in place.
		await().atMost(WAIT).untilAsserted(() -> assertThat(this.console.status()).startsWith("Could not cancel "
				+ describe(order) + ": refused by the application's security: not signed in (or the session ended)."));
		await().atMost(WAIT).until(() -> "signed out".equals(this.console.text("connection")));
		assertThat(this.console.status()).startsWith("Could not cancel ");
		assertThat(this.durableCalls.find(Payments.CAPTURE, order)).as("kept").isPresent();
	}

}
