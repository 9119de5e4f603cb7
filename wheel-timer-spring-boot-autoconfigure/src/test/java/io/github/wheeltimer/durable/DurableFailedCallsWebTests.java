package io.github.wheeltimer.durable;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import io.github.wheeltimer.VirtualTime;
import io.github.wheeltimer.durable.DurableApp.Orders;
import io.github.wheeltimer.durable.engine.DurableEngine;
import io.github.wheeltimer.durable.jdbc.DurableDialect;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Failed durable calls over HTTP keep their keys: an operator sees them, and a re-queue gives each
 * its key back, or says which a newer call has taken.
 */
@SpringBootTest(classes = { DurableWebApp.class, VirtualTime.class }, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.datasource.url=jdbc:h2:mem:durable-failed-web;DB_CLOSE_DELAY=-1",
				"wheel-timer.durable.poll-interval=200ms", "wheel-timer.durable.heartbeat-interval=200ms",
				"wheel-timer.durable.lease=1s", "management.endpoints.web.exposure.include=wheeltimer",
				"management.endpoint.wheeltimer.access=unrestricted" })
@AutoConfigureRestTestClient
class DurableFailedCallsWebTests {

	private static final String EXPLODE = "DurableApp.Orders.explode(String)";

	/** The default tick. */
	private static final Duration TICK = Duration.ofMillis(100);

	private static final Duration POLL_INTERVAL = Duration.ofMillis(200);

	/** {@link Orders#explode}'s delay. */
	private static final Duration EXPLODE_DELAY = Duration.ofMillis(200);

	@Autowired
	private RestTestClient client;

	@Autowired
	private Orders orders;

	@Autowired
	private DurableEngine durable;

	@Autowired
	private ConfigurableApplicationContext app;

	@Test
	void failedCallsAreListedWithTheirKeysAndARequeueNamesThoseWhoseKeyANewCallTook() {
		this.orders.remind(new DurableApp.Order("o-keyed-1", -1));
		this.orders.remind(new DurableApp.Order("o-keyed-2", -1));
		dueNow();
		VirtualTime.advance(this.app, POLL_INTERVAL);
		assertThat(this.durable.admin().failedCalls("orders.remind", 10)).hasSize(2);
		DocumentContext failed = read("/actuator/wheeltimer/durable/failed?method=orders.remind");
		assertThat(failed.read("$.method", String.class)).isEqualTo("orders.remind");
		assertThat(failed.read("$.total", Integer.class)).isEqualTo(2);
		assertThat(failed.<List<String>>read("$.newest[*].key")).containsExactlyInAnyOrder("o-keyed-1", "o-keyed-2");
		// A new call takes one of the keys; the other call gets its key back.
		this.orders.remind(new DurableApp.Order("o-keyed-1", 5));
		DocumentContext requeued = requeue("{\"method\": \"orders.remind\"}");
		assertThat(requeued.read("$.requeued", Integer.class)).isEqualTo(1);
		assertThat(requeued.<List<String>>read("$.keyInUse[*].key")).containsExactly("o-keyed-1");
	}

	/**
	 * A durable method that throws each time, run again over HTTP by "run" then by a re-queue, shows
	 * each run failed: in its method's counts, and in its timer's, which add up with the other
	 * methods' (a failure of another test's re-queued call may come in between).
	 */
	@Test
	void eachRunOfAFailingMethodAgainByRunAndRequeueIsCountedFailedByItsMethodAndItsTimer() {
		this.orders.explode("o-again");
		VirtualTime.advance(this.app, EXPLODE_DELAY.minus(TICK));
		assertThat(failedRunsOfExplode()).as("never before its delay").isZero();
		VirtualTime.advance(this.app, TICK);
		assertThat(failedRunsOfExplode()).isOne();
		UUID id = this.durable.admin().failedCalls("Orders.explode", 10).get(0).id();

		this.client.post()
			.uri("/actuator/wheeltimer/durable/calls/" + id)
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"action\": \"run\"}")
			.exchange()
			.expectStatus()
			.isOk();
		VirtualTime.advance(this.app, TICK);
		assertThat(failedRunsOfExplode()).isEqualTo(2);
		assertThat(requeue("{\"method\": \"Orders.explode\"}").read("$.requeued", Integer.class)).isOne();

		// Due now, pending: the next poll claims it.
		VirtualTime.advance(this.app, POLL_INTERVAL);
		DocumentContext timer = details();
		assertThat(timer.<List<Integer>>read("$.delayedMethods[?(@.method == '" + EXPLODE + "')].failed"))
			.as("ran three times, failed each time").containsExactly(3);
		assertThat(timer.<List<Integer>>read("$.delayedMethods[?(@.method == '" + EXPLODE + "')].calls"))
			.as("made once").containsExactly(1);
		assertThat(timer.<List<Integer>>read("$.delayedMethods[?(@.method == '" + EXPLODE + "')].completed"))
			.containsExactly(0);
		Map<String, Integer> counters = timer.read("$.counters");
		assertThat(counters.get("failed")).as("the timer's failed are its methods' failed runs")
			.isEqualTo(sum(timer.read("$.delayedMethods[*].failed")));
		assertThat(counters.get("completed")).isEqualTo(sum(timer.read("$.delayedMethods[*].completed")));
		assertThat(counters.get("completed") + counters.get("failed") + counters.get("withdrawn")
				+ counters.get("cancelled") + counters.get("unprocessed") + counters.get("running")
				+ timer.read("$.pendingTimeouts", Integer.class))
			.as("every scheduled timeout is accounted for")
			.isEqualTo(counters.get("scheduled"));
	}

	/** Makes the pending calls due now, by the application's clock, as if their delay had passed. */
	private void dueNow() {
		JdbcTemplate jdbc = DurableCallsContractTests.jdbc(this.app);
		jdbc.update("UPDATE WHEEL_TIMER_CALL SET due_at = ? WHERE state = 'PENDING'",
				this.app.getBean(DurableDialect.class).instant(VirtualTime.now(this.app)));
	}

	private DocumentContext details() {
		return read("/actuator/wheeltimer/wheelTimer");
	}

	private DocumentContext read(String uri) {
		return JsonPath.parse(this.client.get()
			.uri(uri)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.returnResult()
			.getResponseBody());
	}

	private int failedRunsOfExplode() {
		return sum(details().read("$.delayedMethods[?(@.method == '" + EXPLODE + "')].failed"));
	}

	private static int sum(List<Integer> counts) {
		return counts.stream().mapToInt(Integer::intValue).sum();
	}

	private DocumentContext requeue(String body) {
		return JsonPath.parse(this.client.post()
			.uri("/actuator/wheeltimer/durable/failed")
			.contentType(MediaType.APPLICATION_JSON)
			.body(body)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.returnResult()
			.getResponseBody());
	}

}
