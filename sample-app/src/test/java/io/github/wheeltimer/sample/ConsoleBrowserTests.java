package io.github.wheeltimer.sample;

import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.UUID;

import javax.sql.DataSource;

import io.github.wheeltimer.durable.CallState;
import io.github.wheeltimer.durable.DurableCalls;
import io.github.wheeltimer.durable.StoredCall;
import io.github.wheeltimer.sample.orders.Order;
import io.github.wheeltimer.sample.orders.OrderBook;
import io.github.wheeltimer.sample.orders.OrderService;
import io.github.wheeltimer.sample.orders.OrderStatus;
import io.github.wheeltimer.sample.orders.PaymentTimeouts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The operator console at {@code /wheel-timer/}, in a real browser, against the sample with its own
 * {@code application.yml}: an operator finds a payment timeout by its order id and cancels it, and
 * re-queues one that failed. The console does both through the {@code wheeltimer} endpoint alone.
 * <p>
 * {@code -Dscreenshots=true} also saves the screenshots of {@code docs/console.md} to {@code docs/images/}.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		// Far payment timeouts, within the durable horizon: they wait on the wheel the console draws
		// until it runs or cancels one. A warehouse that takes every order, so no retry joins the wheel.
		// A name for the instances' table. (Its own properties also keep this test from sharing a
		// context with WheelPageBrowserTests, which stops the timer, and a stopped timer stays stopped.)
		properties = { "sample.orders.payment-timeout=10m", "wheel-timer.durable.horizon=15m",
				"sample.shipping.warehouse-failure-rate=0", "wheel-timer.durable.instance-name=shop-1" })
@ExtendWith(HeadlessChromium.class)
class ConsoleBrowserTests {

	/** CI has two loaded cores: the console reads twice a second, and a durable poll comes every 2 s. */
	static final Duration WAIT = Duration.ofSeconds(30);

	@LocalServerPort
	private int port;

	@Autowired
	private OrderService orders;

	@Autowired
	private OrderBook orderBook;

	@Autowired
	private DurableCalls durableCalls;

	@Autowired
	private DataSource dataSource;

	@Autowired
	private JdbcTemplate jdbc;

	private ConsoleScreen console;

	@BeforeEach
	void openTheConsole() {
		this.console = new ConsoleScreen(this.port);
	}

	@AfterEach
	void closeTheConsole() throws IOException {
		if (this.console != null) {
			try (ConsoleScreen console = this.console) {
				console.screenshot("console");
			}
		}
	}

	@Test
	void anOperatorFindsAPaymentTimeoutByItsOrderAndCancelsIt() throws IOException {
		Order order = this.orders.create("a lamp");
		Order another = this.orders.create("a rug");
		this.console.open("durable");

		// By its key alone, in every method.
		this.console.search("", order.id());
		await().atMost(WAIT).untilAsserted(() -> {
			assertThat(this.console.calls("search-results")).singleElement()
				.satisfies((row) -> assertThat(row).startsWith(order.id() + "\t" + PaymentTimeouts.CANCEL_IF_UNPAID));
			assertThat(this.console.text("search-summary")).isEqualTo("1 call with key " + order.id());
		});
		assertThat(this.console.status()).as("no error").isEmpty();

		this.console.search(PaymentTimeouts.CANCEL_IF_UNPAID, order.id());
		await().atMost(WAIT).untilAsserted(() -> assertThat(this.console.calls("search-results")).singleElement()
			.satisfies((row) -> assertThat(row).startsWith(order.id() + "\t" + PaymentTimeouts.CANCEL_IF_UNPAID)
				.contains("CLAIMED")));
		assertThat(this.console.text("search-summary"))
			.isEqualTo("1 call of " + PaymentTimeouts.CANCEL_IF_UNPAID + " with key " + order.id());
		assertThat(this.console.details("search-results", order.id()))
			.as("the arguments, shown (management.endpoint.wheeltimer.show-arguments: always)")
			.contains("[\n  \"" + order.id() + "\"\n]");
		assertThat(this.console.actions("search-results", order.id())).containsExactly("run", "reschedule", "cancel");
		this.console.screenshotForReadme("console-durable");

		// Nothing is cancelled without a second, explicit yes.
		this.console.act("search-results", order.id(), "cancel");
		await().atMost(WAIT).until(this.console::dialogOpen);
		assertThat(this.console.dialogText()).startsWith("Cancel " + PaymentTimeouts.CANCEL_IF_UNPAID + " [" + order.id()
				+ "]? It will not run");
		this.console.confirm(false);
		await().atMost(WAIT).until(() -> !this.console.dialogOpen());
		assertThat(this.durableCalls.find(PaymentTimeouts.CANCEL_IF_UNPAID, order.id())).as("kept").isPresent();

		this.console.act("search-results", order.id(), "cancel");
		await().atMost(WAIT).until(this.console::dialogOpen);
		this.console.confirm(true);
		await().atMost(WAIT).untilAsserted(() -> {
			assertThat(this.console.status()).isEqualTo("Cancelled " + PaymentTimeouts.CANCEL_IF_UNPAID + " [" + order.id()
					+ "]: it will not run.");
			assertThat(this.console.calls("search-results")).isEmpty();
			assertThat(this.console.emptyText("search-results")).isEqualTo("no call matches");
		});
		assertThat(this.durableCalls.find(PaymentTimeouts.CANCEL_IF_UNPAID, order.id()))
			.as("no call left to cancel the order").isEmpty();
		assertThat(this.orderBook.find(order.id())).get().extracting(Order::status).isEqualTo(OrderStatus.AWAITING_PAYMENT);
		assertThat(this.durableCalls.find(PaymentTimeouts.CANCEL_IF_UNPAID, another.id())).as("the other order's")
			.isPresent();
	}

	/**
	 * A payment timeout that ran while a long back-office transaction held its order's row: it
	 * waited for the lock, gave up, and failed. Once the row is free, the operator re-queues it.
	 */
	@Test
	void anOperatorRequeuesAPaymentTimeoutThatFailedAndItRuns() throws SQLException {
		Order order = this.orders.create("a kettle");
		this.console.open("durable");
		try (Connection backOffice = this.dataSource.getConnection()) {
			backOffice.setAutoCommit(false);
			try (PreparedStatement lock = backOffice.prepareStatement("SELECT * FROM shop_order WHERE id = ? FOR UPDATE")) {
				lock.setLong(1, Long.parseLong(order.id()));
				lock.executeQuery().close();
			}
			this.console.search(PaymentTimeouts.CANCEL_IF_UNPAID, order.id());
			await().atMost(WAIT).until(() -> this.console.calls("search-results").size() == 1);
			this.console.act("search-results", order.id(), "run");
			// The failed calls and the counts by state are two answers of the endpoint, each drawn when it comes.
			await().atMost(WAIT).untilAsserted(() -> {
				assertThat(this.console.calls("failed-calls"))
					.anySatisfy((row) -> assertThat(row).startsWith(order.id() + "\t" + PaymentTimeouts.CANCEL_IF_UNPAID)
						.contains("FAILED")
						.containsIgnoringCase("lock"));
				assertThat(this.console.text("state-FAILED")).isEqualTo("1");
			});
			backOffice.rollback();
		}
		assertThat(this.orderBook.find(order.id())).get().extracting(Order::status).isEqualTo(OrderStatus.AWAITING_PAYMENT);

		this.console.act("failed-calls", order.id(), "requeue");
		await().atMost(WAIT).untilAsserted(() -> {
			assertThat(this.orderBook.find(order.id())).get().extracting(Order::status).isEqualTo(OrderStatus.CANCELLED);
			assertThat(this.console.calls("failed-calls")).noneSatisfy((row) -> assertThat(row).startsWith(order.id()));
		});
		assertThat(this.console.status()).startsWith(PaymentTimeouts.CANCEL_IF_UNPAID + " [" + order.id()
				+ "] is pending again, due now");
		assertThat(this.durableCalls.list(PaymentTimeouts.CANCEL_IF_UNPAID, CallState.FAILED, 0, 10).calls())
			.extracting(StoredCall::key)
			.doesNotContain(order.id());
	}

	@Test
	void anOperatorReschedulesAPaymentTimeout() {
		Order order = this.orders.create("a chair");
		StoredCall before = this.durableCalls.find(PaymentTimeouts.CANCEL_IF_UNPAID, order.id()).orElseThrow();
		this.console.open("durable");
		this.console.search(PaymentTimeouts.CANCEL_IF_UNPAID, order.id());
		await().atMost(WAIT).until(() -> this.console.calls("search-results").size() == 1);

		this.console.reschedule("search-results", order.id(), 60);
		await().atMost(WAIT).untilAsserted(() -> assertThat(this.console.status())
			.startsWith(PaymentTimeouts.CANCEL_IF_UNPAID + " [" + order.id() + "] is now due "));
		StoredCall after = this.durableCalls.find(PaymentTimeouts.CANCEL_IF_UNPAID, order.id()).orElseThrow();
		assertThat(after.due()).as("the time the dialog showed, an hour later")
			.isEqualTo(before.due().truncatedTo(ChronoUnit.SECONDS).plus(Duration.ofHours(1)));
		assertThat(after.id()).as("a moved call is a new one").isNotEqualTo(before.id());
		await().atMost(WAIT).untilAsserted(() -> assertThat(this.console.calls("search-results")).singleElement()
			.satisfies((row) -> assertThat(row).startsWith(order.id() + "\t")));
	}

	@Test
	void aRefusalShowsTheEndpointsReasonOnTheStatusLine() {
		Order order = this.orders.create("a plant");
		this.console.open("durable");
		this.console.search(PaymentTimeouts.CANCEL_IF_UNPAID, order.id());
		await().atMost(WAIT).until(() -> this.console.calls("search-results").size() == 1);

		this.console.answerChangesWith(409, """
				{ "status": 409, "error": "Conflict", "message": "The durable call 7c1e of PaymentTimeouts.cancelIfUnpaid \
				is running: a call that started cannot be cancelled, run or rescheduled" }""");
		this.console.act("search-results", order.id(), "run");
		await().atMost(WAIT).untilAsserted(() -> assertThat(this.console.status()).isEqualTo("Could not run "
				+ PaymentTimeouts.CANCEL_IF_UNPAID + " [" + order.id() + "] now: The durable call 7c1e of"
				+ " PaymentTimeouts.cancelIfUnpaid is running: a call that started cannot be cancelled, run or"
				+ " rescheduled (HTTP 409)"));

		// Spring Security refuses with an empty body.
		this.console.answerChangesWith(403, "");
		this.console.act("search-results", order.id(), "cancel");
		await().atMost(WAIT).until(this.console::dialogOpen);
		this.console.confirm(true);
		await().atMost(WAIT).untilAsserted(() -> assertThat(this.console.status())
			.startsWith("Could not cancel " + PaymentTimeouts.CANCEL_IF_UNPAID + " [" + order.id() + "]: HTTP 403: refused."));
		assertThat(this.durableCalls.find(PaymentTimeouts.CANCEL_IF_UNPAID, order.id())).isPresent();
	}

	/**
	 * A payment timeout written by another version of the shop, whose parameter was an object
	 * where this one takes the order id: this instance cannot read it, leaves it waiting, and the
	 * console lists it, with the writer's argument shape.
	 */
	@Test
	void anOperatorSeesTheCallsAnotherVersionWroteThatNoLiveInstanceCanRead() {
		this.jdbc.update("INSERT INTO WHEEL_TIMER_CALL (id, method_id, call_key, arguments, due_at, state, shape)"
				+ " VALUES (?, ?, '998', '[{\"orderId\":\"998\",\"currency\":\"EUR\"}]', ?, 'PENDING', 'feedfacefeedface')",
				UUID.randomUUID(), PaymentTimeouts.CANCEL_IF_UNPAID, OffsetDateTime.now(ZoneOffset.UTC).minusSeconds(1));
		this.console.open("durable");
		await().atMost(WAIT).untilAsserted(() -> assertThat(this.console.unreadableCalls()).singleElement()
			.satisfies((row) -> assertThat(row).startsWith(PaymentTimeouts.CANCEL_IF_UNPAID + "\tfeedfacefeedface\t1\t")));
		assertThat(this.jdbc.queryForList("SELECT state FROM WHEEL_TIMER_CALL WHERE call_key = '998'", String.class))
			.containsExactly("PENDING");
		// The other tests share this instance and its database.
		this.jdbc.update("DELETE FROM WHEEL_TIMER_CALL WHERE call_key = '998'");
	}

	/**
	 * A call of the method an earlier version of the shop had, {@code PaymentTimeouts.remindUnpaid},
	 * left in the database after a deploy removed the method: no instance will ever run it.
	 */
	@Test
	void anOperatorDeletesTheCallsOfAMethodNoInstanceKnows() {
		String removed = "PaymentTimeouts.remindUnpaid";
		this.jdbc.update("INSERT INTO WHEEL_TIMER_CALL (id, method_id, call_key, arguments, due_at, state)"
				+ " VALUES (?, ?, '999', '[\"999\"]', ?, 'PENDING')", UUID.randomUUID(), removed,
				OffsetDateTime.now(ZoneOffset.UTC).plusHours(1));
		this.console.open("durable");
		await().atMost(WAIT).untilAsserted(() -> assertThat(this.console.unknownMethods()).singleElement()
			.satisfies((row) -> assertThat(row).startsWith(removed + "\t1")));

		this.console.deleteUnknownMethod(removed);
		await().atMost(WAIT).until(this.console::dialogOpen);
		assertThat(this.console.dialogText()).startsWith("Delete the calls of " + removed + "? No live instance knows this"
				+ " method. Its 1 waiting call, and any failed ones, will be deleted.");
		this.console.confirm(true);
		await().atMost(WAIT).untilAsserted(() -> {
			assertThat(this.console.status()).isEqualTo("Deleted 1 call of " + removed + ".");
			assertThat(this.console.unknownMethods()).isEmpty();
		});
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM WHEEL_TIMER_CALL WHERE method_id = ?", Long.class,
				removed)).isZero();
	}

	@Test
	void theTimersTabDrawsTheWheelAndTheInstancesTabThisInstance() throws IOException {
		for (int i = 0; i < 3; i++) {
			this.orders.create("a teapot");
		}
		this.console.open("timers");
		await().atMost(WAIT).untilAsserted(() -> {
			assertThat(this.console.text("state")).isEqualTo("STARTED");
			assertThat(this.console.text("connection")).isEqualTo("live");
			assertThat(this.console.text("access")).isEqualTo("read and change");
			assertThat(this.console.timeoutsOnTheRings()).as("the payment timeouts, on the wheel").isGreaterThanOrEqualTo(3);
			assertThat(this.console.nextTimeouts()).hasSizeGreaterThanOrEqualTo(3)
				.allSatisfy((row) -> assertThat(row).contains("PaymentTimeouts.cancelIfUnpaid(String)"));
		});
		assertThat(this.console.displayed("read-only-banner")).isFalse();
		assertThat(this.console.visibleChangeButtons()).containsExactly("Stop the timer…");
		this.console.screenshotForReadme("console-timers");

		this.console.showTab("instances");
		await().atMost(WAIT).untilAsserted(() -> assertThat(this.console.instances()).singleElement()
			.satisfies((row) -> assertThat(row).startsWith("shop-1\talive").contains(PaymentTimeouts.CANCEL_IF_UNPAID)));
		this.console.screenshotForReadme("console-instances");

		this.console.windowSize(390, 844);
		this.console.showTab("durable");
		this.console.search(PaymentTimeouts.CANCEL_IF_UNPAID, "");
		await().atMost(WAIT).until(() -> this.console.calls("search-results").size() >= 3);
		assertThat(this.console.elementsWiderThanTheWindow()).as("a phone does not scroll sideways").isEmpty();
		this.console.scrollTo("search-form");
		this.console.screenshotForReadme("console-phone");
	}

}
