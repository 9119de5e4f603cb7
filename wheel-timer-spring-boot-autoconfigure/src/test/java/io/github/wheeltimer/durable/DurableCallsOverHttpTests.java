package io.github.wheeltimer.durable;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import io.github.wheeltimer.VirtualTime;
import io.github.wheeltimer.durable.DurableApp.Order;
import io.github.wheeltimer.durable.DurableApp.Orders;
import io.github.wheeltimer.durable.engine.DurableEngine;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.ApplicationContext;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.web.servlet.client.RestTestClient;
import org.springframework.test.web.servlet.client.StatusAssertions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An operator's questions about durable calls, answered over HTTP by the {@code wheeltimer}
 * endpoint: when does order 42's call run, and with what; move it, run it now, cancel it; see a
 * failed call's error and arguments and run it again; clear the calls of a method that is gone.
 * Each subclass runs them on one database.
 */
@SpringBootTest(classes = { DurableWebApp.class, VirtualTime.class }, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "wheel-timer.durable.instance-name=shop-1", "wheel-timer.durable.poll-interval=200ms",
				"wheel-timer.durable.heartbeat-interval=200ms", "wheel-timer.durable.lease=1s",
				"wheel-timer.durable.jdbc.initialize-schema=always",
				"management.endpoints.web.exposure.include=wheeltimer",
				"management.endpoint.wheeltimer.access=unrestricted",
				"management.endpoint.wheeltimer.show-arguments=always" })
@AutoConfigureRestTestClient
abstract class DurableCallsOverHttpTests {

	private static final String CALLS = "/actuator/wheeltimer/durable/calls";

	/** The default tick. */
	private static final Duration TICK = Duration.ofMillis(100);

	/** {@link Orders#remind}'s delay. */
	private static final Duration REMIND_DELAY = Duration.ofMinutes(30);

	/** The delay of {@link Orders#explode} and {@link Orders#queued}. */
	private static final Duration SHORT_DELAY = Duration.ofMillis(200);

	@Autowired
	private ApplicationContext app;

	@Autowired
	private RestTestClient client;

	@Autowired
	private Orders orders;

	@Autowired
	private DurableEngine durable;

	@Autowired
	private JdbcTemplate jdbc;

	@Test
	void aCallFoundByKeyIsRescheduledThenCancelledAndAnotherRunsNow() {
		String key = "o-" + UUID.randomUUID();
		Instant calledAt = VirtualTime.now(this.app);
		this.orders.remind(new Order(key, 4200));
		DocumentContext found = read(CALLS + "?method=orders.remind&key=" + key);
		assertThat(found.read("$.total", Integer.class)).isEqualTo(1);
		assertThat(found.read("$.calls[0].state", String.class)).isEqualTo("PENDING");
		assertThat(found.read("$.calls[0].key", String.class)).isEqualTo(key);
		assertThat(found.read("$.calls[0].arguments", String.class)).isEqualTo("[{\"id\":\"" + key + "\",\"cents\":4200}]");
		Instant due = Instant.parse(found.read("$.calls[0].due", String.class));
		assertThat(due).isEqualTo(calledAt.plus(REMIND_DELAY));
		String id = found.read("$.calls[0].id", String.class);

		Instant later = Instant.parse("2099-01-02T03:04:05Z");
		DocumentContext moved = send(id, "{\"action\": \"reschedule\", \"due\": \"2099-01-02T04:04:05+01:00\"}");
		assertThat(Instant.parse(moved.read("$.due", String.class))).isEqualTo(later);
		String movedId = moved.read("$.id", String.class);
		assertThat(movedId).isNotEqualTo(id);
		this.client.get().uri(CALLS + "/" + id).exchange().expectStatus().isNotFound().expectBody()
			.jsonPath("$.message").isEqualTo("No durable call " + id + " waits or failed: it ran, it was cancelled, or"
					+ " it never existed");
		assertThat(Instant.parse(read(CALLS + "/" + movedId).read("$.due", String.class))).isEqualTo(later);

		this.client.delete().uri(CALLS + "/" + movedId).exchange().expectStatus().isOk().expectBody()
			.jsonPath("$.key").isEqualTo(key);
		assertThat(read(CALLS + "?method=orders.remind&key=" + key).read("$.total", Integer.class)).isZero();

		String soon = "o-" + UUID.randomUUID();
		this.orders.remind(new Order(soon, 1));
		String soonId = read(CALLS + "?method=orders.remind&key=" + soon).read("$.calls[0].id", String.class);
		assertThat(send(soonId, "{\"action\": \"run\"}").read("$.state", String.class)).isEqualTo("CLAIMED");
		VirtualTime.advance(this.app, TICK);
		assertThat(this.jdbc.queryForList("SELECT call_id FROM test_run WHERE call_id = ?", String.class, soon))
			.as("ran now, not after its delay").containsExactly(soon);
	}

	@Test
	void aKeyAloneFindsTheCallsMadeWithItInEveryMethod() {
		String key = "o-" + UUID.randomUUID();
		this.orders.remind(new Order(key, 10));
		this.orders.expire(key);
		this.orders.remind(new Order("o-" + UUID.randomUUID(), 20));
		DocumentContext found = read(CALLS + "?key=" + key);
		assertThat(found.read("$.total", Integer.class)).isEqualTo(2);
		assertThat(found.<List<String>>read("$.calls[*].methodId")).containsExactlyInAnyOrder("orders.remind",
				"orders.expire");
		assertThat(found.<List<String>>read("$.calls[*].key")).containsOnly(key);
		assertThat(read(CALLS + "?method=orders.expire&key=" + key).read("$.total", Integer.class)).isEqualTo(1);
	}

	@Test
	void aFailedCallShowsItsErrorAndArgumentsAndRunsAgainFromItsPage() {
		String key = "o-" + UUID.randomUUID();
		this.orders.explode(key);
		VirtualTime.advance(this.app, SHORT_DELAY.minus(TICK));
		assertThat(read(CALLS + "?method=Orders.explode&state=FAILED").read("$.total", Integer.class))
			.as("never before its delay").isZero();
		VirtualTime.advance(this.app, TICK);
		DocumentContext failed = read(CALLS + "?method=Orders.explode&state=failed");
		assertThat(failed.read("$.state", String.class)).isEqualTo("FAILED");
		assertThat(failed.read("$.calls[0].error", String.class)).isEqualTo("java.lang.IllegalStateException: boom for " + key);
		assertThat(failed.read("$.calls[0].arguments", String.class)).isEqualTo("[\"" + key + "\"]");
		assertThat(failed.read("$.calls[0].attempts", Integer.class)).isEqualTo(1);
		String id = failed.read("$.calls[0].id", String.class);
		long failures = this.durable.counts().failed();

		DocumentContext again = send(id, "{\"action\": \"run\"}");
		assertThat(again.read("$.id", String.class)).isEqualTo(id);
		assertThat(again.read("$.attempts", Integer.class)).as("its run before stays counted").isOne();
		// Its cause not fixed, it fails again, and is still there to be seen.
		VirtualTime.advance(this.app, TICK);
		assertThat(this.durable.counts().failed()).isEqualTo(failures + 1);
		assertThat(read(CALLS + "/" + id).read("$.state", String.class)).isEqualTo("FAILED");
		this.client.delete().uri(CALLS + "/" + id).exchange().expectStatus().isOk();
		this.client.get().uri(CALLS + "/" + id).exchange().expectStatus().isNotFound();
	}

	@Test
	void theCallsOfAMethodNoInstanceKnowsAreCountedAndDeletedAndThoseOfAKnownOneAreNot() {
		String gone = "orders.gone" + UUID.randomUUID().toString().substring(0, 8);
		DurableCallsContractTests.insertRow(this.jdbc, gone, "[]", "PENDING", null, 0);
		DocumentContext timers = read("/actuator/wheeltimer");
		assertThat(timers.read("$.access", String.class)).isEqualTo("UNRESTRICTED");
		assertThat(timers.read("$.durable.unknownMethods['" + gone + "']", Integer.class)).isEqualTo(1);
		assertThat(timers.read("$.durable.byMethod['" + gone + "'].PENDING", Integer.class)).isEqualTo(1);
		assertThat(timers.read("$.durable.now", String.class)).isNotNull();

		this.client.delete().uri("/actuator/wheeltimer/durable/methods/orders.remind").exchange()
			.expectStatus().isEqualTo(HttpStatus.CONFLICT).expectBody()
			.jsonPath("$.message").isEqualTo("This instance knows the durable method 'orders.remind': cancel its calls"
					+ " one by one instead");
		this.client.delete().uri("/actuator/wheeltimer/durable/methods/" + gone).exchange().expectStatus().isOk()
			.expectBody().jsonPath("$.deleted").isEqualTo(1);
		assertThat(read("/actuator/wheeltimer").<Object>read("$.durable.unknownMethods")).asString().doesNotContain(gone);
	}

	@Test
	void aRunningCallCannotBeCancelledOrMovedAndSaysSo() throws Exception {
		Orders.queueMayMove = new CountDownLatch(1);
		CompletableFuture<Void> advancing = null;
		String key = "q-" + UUID.randomUUID();
		try {
			this.orders.queued(key);
			VirtualTime.advance(this.app, SHORT_DELAY.minus(TICK));
			assertThat(read(CALLS + "?method=orders.queued&state=RUNNING").read("$.total", Integer.class))
				.as("never before its delay").isZero();
			// The advance that starts the call returns once the call has run, which it does only when the
			// test lets it: it goes on a thread of its own, and the start gate's write, on that thread, is
			// waited for on real time.
			advancing = CompletableFuture.runAsync(() -> VirtualTime.advance(this.app, TICK));
			await().atMost(Duration.ofSeconds(10))
				.until(() -> read(CALLS + "?method=orders.queued&state=RUNNING").read("$.total", Integer.class) == 1);
			String id = read(CALLS + "?method=orders.queued&state=RUNNING").read("$.calls[0].id", String.class);
			this.client.delete().uri(CALLS + "/" + id).exchange().expectStatus().isEqualTo(HttpStatus.CONFLICT)
				.expectBody().jsonPath("$.message").isEqualTo("The durable call " + id + " of orders.queued is running:"
						+ " a call that started cannot be cancelled, run or rescheduled");
			this.client.post().uri(CALLS + "/" + id).contentType(MediaType.APPLICATION_JSON).body("{\"action\": \"run\"}")
				.exchange().expectStatus().isEqualTo(HttpStatus.CONFLICT);
		}
		finally {
			Orders.queueMayMove.countDown();
		}
		assertThat(advancing).succeedsWithin(Duration.ofSeconds(10));
		assertThat(this.jdbc.queryForList("SELECT call_id FROM test_run WHERE call_id = ?", String.class, key))
			.as("ran once, as it was").containsExactly(key);
	}

	@Test
	void badRequestsSayWhatWasWrongAndWhatIsAllowed() {
		bad(this.client.get().uri(CALLS + "?state=LOST").exchange().expectStatus(),
				"state must be one of [PENDING, CLAIMED, RUNNING, FAILED], was 'LOST'");
		bad(this.client.get().uri(CALLS + "?size=0").exchange().expectStatus(), "size must be between 1 and 200, was 0");
		bad(this.client.get().uri(CALLS + "/42").exchange().expectStatus(),
				"A durable call's id is a UUID, such as 0b6f0e1c-4c1e-4e8b-9a4f-2d0c5c3e1a7b; was '42'");
		String id = UUID.randomUUID().toString();
		bad(this.client.post().uri(CALLS + "/" + id).contentType(MediaType.APPLICATION_JSON).body("{\"action\": \"fly\"}")
			.exchange().expectStatus(), "action must be \"run\" or \"reschedule\" (with \"due\"), was \"fly\"");
		bad(this.client.post().uri(CALLS + "/" + id).contentType(MediaType.APPLICATION_JSON)
			.body("{\"action\": \"reschedule\", \"due\": \"tomorrow\"}").exchange().expectStatus(),
				"Invalid due 'tomorrow': it must be an ISO-8601 instant with its offset, such as"
						+ " \"2026-11-26T18:25:00Z\" or \"2026-11-26T19:25:00+01:00\"");
		this.client.post().uri(CALLS + "/" + id).contentType(MediaType.APPLICATION_JSON).body("{\"action\": \"run\"}")
			.exchange().expectStatus().isNotFound();
	}

	private void bad(StatusAssertions status, String message) {
		status.isBadRequest().expectBody().jsonPath("$.message").isEqualTo(message);
	}

	private DocumentContext read(String uri) {
		return JsonPath.parse(this.client.get().uri(uri).exchange().expectStatus().isOk().expectBody(String.class)
			.returnResult().getResponseBody());
	}

	private DocumentContext send(String id, String body) {
		return JsonPath.parse(this.client.post().uri(CALLS + "/" + id).contentType(MediaType.APPLICATION_JSON).body(body)
			.exchange().expectStatus().isOk().expectBody(String.class).returnResult().getResponseBody());
	}

}
