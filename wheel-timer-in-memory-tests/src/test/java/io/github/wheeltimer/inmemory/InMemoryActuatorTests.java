package io.github.wheeltimer.inmemory;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import io.github.wheeltimer.HashedWheelTimer;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.http.MediaType;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code wheeltimer} endpoint's reads, the health check and the meters answer over HTTP as
 * documented in an application without a database, and none of the endpoint's operations loads a
 * class of the durable calls. The application is this class's own ({@code @DirtiesContext}): each
 * response type is serialized here for the first time. The last test looks at the classes the JVM
 * loaded, after every operation.
 */
@SpringBootTest(classes = InMemoryTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT)
@AutoConfigureRestTestClient
@DirtiesContext
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class InMemoryActuatorTests {

	static final String CANCEL_IF_UNPAID = "InMemoryTestApplication.Orders.cancelIfUnpaid(String)";

	private static final String PING = "InMemoryTestApplication.Orders.ping()";

	private static final String RETRY = "InMemoryTestApplication.Shipping.retry(String)";

	private static final Duration WAIT = Duration.ofSeconds(10);

	@Autowired
	private RestTestClient client;

	@Autowired
	private InMemoryTestApplication.Orders orders;

	@Autowired
	private InMemoryTestApplication.Shipping shipping;

	@Autowired
	@Qualifier("wheelTimer")
	private HashedWheelTimer wheelTimer;

	@Autowired
	@Qualifier("retries")
	private HashedWheelTimer retries;

	@Test
	@Order(1)
	void everyTimerIsListed() {
		this.orders.cancelIfUnpaid("order-1");
		int pings = this.orders.pings();
		this.orders.ping();
		CompletableFuture<String> retried = this.shipping.retry("order-2");
		await().atMost(WAIT).until(() -> this.orders.pings() == pings + 1);
		assertThat(retried).succeedsWithin(WAIT).isEqualTo("sent order-2");
		await().atMost(WAIT).until(() -> this.wheelTimer.counters().completed() == 1
				&& this.retries.counters().completed() == 1);

		DocumentContext timers = get("/actuator/wheeltimer");
		assertThat(timers.<Map<String, Object>>read("$")).as("no durable section without durable calls; what the endpoint allows")
			.containsOnlyKeys("access", "timers");
		assertThat(timers.<Map<String, Object>>read("$.timers")).containsOnlyKeys("wheelTimer", "retries");
		for (String name : List.of("wheelTimer", "retries")) {
			DocumentContext timer = JsonPath.parse(timers.<Map<String, Object>>read("$.timers." + name));
			assertThat(timer.<Map<String, Object>>read("$")).as(name)
				.containsKeys("state", "tickDuration", "ticksPerWheel", "tick", "hand", "pendingTimeouts",
						"maxPendingTimeouts", "counters", "tickLag", "maxTickLag", "meanLateness", "worker");
			assertThat(timer.read("$.state", String.class)).as(name).isEqualTo("STARTED");
			assertThat(timer.read("$.worker.alive", Boolean.class)).as(name).isTrue();
			Map<String, Integer> counters = timer.read("$.counters");
			assertThat(counters).as(name)
				.containsOnlyKeys("scheduled", "completed", "failed", "withdrawn", "cancelled", "rejected", "running",
						"unprocessed");
			assertThat(counters.get("completed") + counters.get("failed") + counters.get("withdrawn")
					+ counters.get("cancelled") + counters.get("unprocessed") + counters.get("running")
					+ timer.read("$.pendingTimeouts", Integer.class))
				.as("%s: every scheduled call is accounted for", name)
				.isEqualTo(counters.get("scheduled"));
		}
		assertThat(timers.read("$.timers.wheelTimer.tickDuration", String.class)).isEqualTo("PT0.1S");
		assertThat(timers.read("$.timers.wheelTimer.pendingTimeouts", Long.class)).as("the 30-minute call")
			.isEqualTo(this.wheelTimer.pendingTimeouts())
			.isPositive();
		assertThat(timers.read("$.timers.wheelTimer.counters.completed", Integer.class)).isOne();
		assertThat(timers.read("$.timers.wheelTimer.worker.name", String.class)).isEqualTo("wheel-timer");
		assertThat(timers.read("$.timers.retries.tickDuration", String.class)).isEqualTo("PT0.01S");
		assertThat(timers.read("$.timers.retries.counters.completed", Integer.class)).isOne();
		assertThat(timers.read("$.timers.retries.worker.name", String.class)).isEqualTo("wheel-timer-retries");
	}

	@Test
	@Order(2)
	void oneTimerIsDescribedInDetail() {
		this.orders.cancelIfUnpaid("order-3");

		DocumentContext details = get("/actuator/wheeltimer/wheelTimer");
		assertThat(details.read("$.state", String.class)).isEqualTo("STARTED");
		assertThat(details.<Map<String, Object>>read("$")).containsKeys("buckets", "levels", "nextTimeouts",
				"delayedMethods");
		List<Map<String, Object>> levels = details.read("$.levels");
		assertThat(levels).isNotEmpty()
			.allSatisfy((level) -> assertThat(level).containsKeys("index", "slotSpan", "slots", "hand", "timeouts",
					"moves", "occupied"));
		assertThat(levels.get(0)).containsEntry("index", 0).containsEntry("slotSpan", "PT0.1S").containsEntry("slots", 512);
		assertThat(details.<List<String>>read("$.nextTimeouts[*].method")).isNotEmpty().containsOnly(CANCEL_IF_UNPAID);
		assertThat(Duration.parse(details.read("$.nextTimeouts[0].remainingDelay", String.class)))
			.isBetween(Duration.ofMinutes(29), Duration.ofMinutes(30));
		assertThat(details.<List<String>>read("$.delayedMethods[*].method")).containsExactlyInAnyOrder(CANCEL_IF_UNPAID,
				PING);
		assertThat(details.<List<Object>>read("$.delayedMethods[?(@.method == '" + CANCEL_IF_UNPAID + "')].delay"))
			.containsExactly("PT30M");

		DocumentContext retries = get("/actuator/wheeltimer/retries");
		assertThat(retries.read("$.tickDuration", String.class)).isEqualTo("PT0.01S");
		assertThat(retries.<List<String>>read("$.delayedMethods[*].method")).containsExactly(RETRY);
		assertThat(retries.read("$.delayedMethods[0].delay", String.class)).isEqualTo("PT0.02S");

		this.client.get().uri("/actuator/wheeltimer/nope").exchange().expectStatus().isNotFound().expectBody()
			.jsonPath("$.message").isEqualTo("No timer named 'nope'; the timers are [retries, wheelTimer]");
	}

	@Test
	@Order(3)
	void healthHasOneEntryPerTimer() {
		DocumentContext health = get("/actuator/health");
		assertThat(health.read("$.status", String.class)).isEqualTo("UP");
		assertThat(health.<Map<String, Object>>read("$.components.wheelTimer.components")).containsOnlyKeys("wheelTimer",
				"retries");
		for (String name : List.of("wheelTimer", "retries")) {
			assertThat(health.read("$.components.wheelTimer.components." + name + ".status", String.class)).as(name)
				.isEqualTo("UP");
			assertThat(health.<Map<String, Object>>read("$.components.wheelTimer.components." + name + ".details"))
				.as(name)
				.containsKeys("state", "pendingTimeouts", "tickLag", "maxTickLag");
		}
	}

	@Test
	@Order(4)
	void metersAreServed() {
		for (String meter : List.of("wheel.timer.scheduled", "wheel.timer.pending", "wheel.timer.timeouts")) {
			DocumentContext metric = get("/actuator/metrics/" + meter);
			assertThat(metric.read("$.name", String.class)).isEqualTo(meter);
			assertThat(metric.<List<String>>read("$.availableTags[?(@.tag == 'name')].values[*]")).as(meter)
				.containsExactlyInAnyOrder("wheelTimer", "retries");
		}
		this.orders.cancelIfUnpaid("order-4");
		assertThat(get("/actuator/metrics/wheel.timer.pending?tag=name:wheelTimer").read("$.measurements[0].value",
				Double.class)).isEqualTo((double) this.wheelTimer.pendingTimeouts()).isPositive();
		assertThat(get("/actuator/metrics/wheel.timer.scheduled?tag=name:wheelTimer").read("$.measurements[0].value",
				Double.class)).isEqualTo((double) this.wheelTimer.counters().scheduled()).isPositive();
		assertThat(get("/actuator/metrics/wheel.timer.timeouts?tag=name:wheelTimer&tag=outcome:unprocessed")
			.read("$.measurements[0].value", Double.class)).isZero();
	}

	@Test
	@Order(5)
	void theRequeueOfFailedDurableCallsSaysThatDurableCallsAreOff() {
		this.client.post()
			.uri("/actuator/wheeltimer/durable/failed")
			.contentType(MediaType.APPLICATION_JSON)
			.exchange()
			.expectStatus()
			.isNotFound()
			.expectBody()
			.jsonPath("$.message")
			.isNotEmpty();
	}

	@Test
	@Order(6)
	void noOperationLoadsAClassOfTheDurableCalls() {
		EveryOperation.requestAndAssertNothingDurableLoaded(this.client);
	}

	private DocumentContext get(String uri) {
		return EveryOperation.get(this.client, uri);
	}

}
