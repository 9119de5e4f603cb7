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
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.ApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An operator's view of durable calls over HTTP: the instances sharing the database with the
 * methods each knows, and failed calls re-queued once the cause is fixed.
 */
@SpringBootTest(classes = { DurableWebApp.class, VirtualTime.class }, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.datasource.url=jdbc:h2:mem:durable-web;DB_CLOSE_DELAY=-1",
				"wheel-timer.durable.instance-name=shop-1", "wheel-timer.durable.poll-interval=200ms",
				"wheel-timer.durable.heartbeat-interval=200ms", "wheel-timer.durable.lease=1s",
				"management.endpoints.web.exposure.include=wheeltimer",
				"management.endpoint.wheeltimer.access=unrestricted" })
@AutoConfigureRestTestClient
class DurableCallsEndpointWebTests {

	/** The default tick. */
	private static final Duration TICK = Duration.ofMillis(100);

	private static final Duration POLL_INTERVAL = Duration.ofMillis(200);

	/** {@link Orders#explode}'s delay. */
	private static final Duration EXPLODE_DELAY = Duration.ofMillis(200);

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
	void failedCallsAreRequeuedByMethodOrAllAndRunAgain() {
		this.orders.explode("o-1");
		VirtualTime.advance(this.app, EXPLODE_DELAY.minus(TICK));
		assertThat(this.durable.counts().failed()).as("never before its delay").isZero();
		VirtualTime.advance(this.app, TICK);
		assertThat(this.durable.counts().failed()).isOne();
		assertThat(get().read("$.durable.calls.FAILED", Integer.class)).isEqualTo(1);

		assertThat(requeue("{\"method\": \"Orders.cancelIfUnpaid\"}").read("$.requeued", Integer.class)).isZero();
		DocumentContext requeued = requeue("{\"method\": \"Orders.explode\"}");
		assertThat(requeued.read("$.method", String.class)).isEqualTo("Orders.explode");
		assertThat(requeued.read("$.requeued", Integer.class)).isEqualTo(1);
		// Pending and due now, it runs again at the next poll (and, its cause not fixed, fails again), as
		// a new call: not a suspected duplicate.
		VirtualTime.advance(this.app, POLL_INTERVAL);
		assertThat(this.durable.counts().failed()).isEqualTo(2);
		assertThat(this.durable.counts().suspectedDuplicates()).isZero();
		assertThat(requeue("").read("$.requeued", Integer.class)).isEqualTo(1);
		VirtualTime.advance(this.app, POLL_INTERVAL);
		assertThat(this.durable.counts().failed()).isEqualTo(3);
	}

	@Test
	void theEndpointListsTheInstancesWithTheMethodsEachKnows() {
		DocumentContext timers = get();
		assertThat(timers.<List<String>>read("$.durable.instances[*].name")).containsExactly("shop-1");
		assertThat(timers.<List<String>>read("$.durable.instances[0].methods")).contains("Orders.explode",
				"orders.remind");
		assertThat(timers.read("$.durable.instances[0].alive", Boolean.class)).isTrue();
		assertThat(timers.read("$.durable.counts.suspectedDuplicates", Integer.class)).isZero();
	}

	@Test
	void aDurableMethodsCallsAreCountedInItsTimersDetails() {
		this.orders.remind(new DurableApp.Order("o-counted-1", 100));
		this.orders.remind(new DurableApp.Order("o-counted-2", 100));
		assertThat(get("/actuator/wheeltimer/wheelTimer")
			.<List<Integer>>read("$.delayedMethods[?(@.method == 'DurableApp.Orders.remind(DurableApp.Order)')].calls"))
			.containsExactly(2);
	}

	@Test
	void aDurableCallOnTheWheelIsListedWithItsKeyAndId() {
		this.orders.expire("o-42");
		UUID id = this.jdbc.queryForObject("SELECT id FROM WHEEL_TIMER_CALL WHERE call_key = 'o-42'", UUID.class);
		DocumentContext details = get("/actuator/wheeltimer/wheelTimer");
		List<Map<String, Object>> expiring = details
			.read("$.nextTimeouts[?(@.method == 'DurableApp.Orders.expire(String)')]");
		assertThat(expiring).singleElement()
			.satisfies((timeout) -> assertThat(timeout).containsEntry("key", "o-42").containsEntry("callId", id.toString()));
	}

	@Test
	void aRequeueAtAnotherPathIsANotFoundThatSaysWhere() {
		this.client.post()
			.uri("/actuator/wheeltimer/durable/pending")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{}")
			.exchange()
			.expectStatus()
			.isNotFound()
			.expectBody()
			.jsonPath("$.message")
			.isEqualTo("Nothing at 'durable/pending'; durable calls are listed at 'durable/calls' and"
					+ " 'durable/failed', one call is at 'durable/calls/{id}', and the calls of a method no instance"
					+ " knows at 'durable/methods/{methodId}'");
	}

	private DocumentContext get() {
		return get("/actuator/wheeltimer");
	}

	private DocumentContext get(String path) {
		String body = this.client.get()
			.uri(path)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
		return JsonPath.parse(body);
	}

	private DocumentContext requeue(String body) {
		String response = this.client.post()
			.uri("/actuator/wheeltimer/durable/failed")
			.contentType(MediaType.APPLICATION_JSON)
			.body(body.isEmpty() ? "{}" : body)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
		return JsonPath.parse(response);
	}

}
