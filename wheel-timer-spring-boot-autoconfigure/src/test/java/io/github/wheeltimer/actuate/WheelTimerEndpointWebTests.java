package io.github.wheeltimer.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import io.github.wheeltimer.VirtualTime;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.ApplicationContext;
import org.springframework.core.task.TaskRejectedException;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The operator's view over HTTP, with the stop operation granted, on virtual time.
 */
@SpringBootTest(classes = { WebTestApplication.class, VirtualTime.class }, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=wheeltimer,health,metrics,prometheus",
				"management.endpoint.wheeltimer.access=unrestricted", "management.endpoint.health.show-details=always" })
@AutoConfigureRestTestClient
class WheelTimerEndpointWebTests {

	private static final String CANCEL_IF_UNPAID = "WebTestApplication.Orders.cancelIfUnpaid(String)";

	/** The timer's tick, the default. */
	private static final Duration TICK = Duration.ofMillis(100);

	/** {@link WebTestApplication.Orders#ping}'s delay: within the first tick. */
	private static final Duration PING_DELAY = Duration.ofMillis(50);

	@Autowired
	private ApplicationContext context;

	@Autowired
	private RestTestClient client;

	@Autowired
	private WebTestApplication.Orders orders;

	@Test
	void anOperatorWatchesTheWheelThenStopsItGracefully() {
		List<CompletableFuture<String>> unpaid = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			unpaid.add(this.orders.cancelIfUnpaid("order-" + i));
		}
		for (int i = 0; i < 3; i++) {
			this.orders.ping();
		}
		VirtualTime.advance(this.context, PING_DELAY.minusMillis(1));
		assertThat(this.orders.pings()).as("never early").isZero();
		// Due within the first tick: run by its end.
		VirtualTime.advance(this.context, TICK);
		assertThat(this.orders.pings()).isEqualTo(3);

		DocumentContext timers = get("/actuator/wheeltimer");
		assertThat(timers.read("$.timers.wheelTimer.state", String.class)).isEqualTo("STARTED");
		assertThat(timers.read("$.timers.wheelTimer.tickDuration", String.class)).isEqualTo("PT0.1S");
		assertThat(timers.read("$.timers.wheelTimer.ticksPerWheel", Integer.class)).isEqualTo(512);
		assertThat(timers.read("$.timers.wheelTimer.pendingTimeouts", Integer.class)).isEqualTo(5);
		assertThat(timers.read("$.timers.wheelTimer.tickLag", String.class)).isEqualTo("PT0S");
		assertThat(timers.read("$.timers.wheelTimer.worker.name", String.class)).isEqualTo("wheel-timer");
		Map<String, Integer> counters = timers.read("$.timers.wheelTimer.counters");
		assertThat(counters).containsEntry("scheduled", 8).containsEntry("completed", 3);
		assertThat(counters.get("completed") + counters.get("failed") + counters.get("cancelled")
				+ counters.get("unprocessed") + counters.get("running")
				+ timers.read("$.timers.wheelTimer.pendingTimeouts", Integer.class))
			.as("every scheduled timeout is accounted for")
			.isEqualTo(counters.get("scheduled"));

		DocumentContext details = get("/actuator/wheeltimer/wheelTimer");
		List<Map<String, Object>> levels = details.read("$.levels");
		assertThat(levels.get(0)).containsEntry("index", 0).containsEntry("slotSpan", "PT0.1S")
			.containsEntry("slots", 512)
			.containsEntry("moves", 0);
		for (int i = 1; i < levels.size(); i++) {
			Map<String, Object> below = levels.get(i - 1);
			assertThat(levels.get(i)).as("level %d: 64 slots, each a whole turn of the level below", i)
				.containsEntry("index", i)
				.containsEntry("slots", 64)
				.containsEntry("slotSpan", DurationFormat.iso(Duration.parse((String) below.get("slotSpan"))
					.multipliedBy((Integer) below.get("slots"))));
		}
		assertThat(levels).as("the five unpaid orders, on whichever level holds 30 minutes")
			.extracting((level) -> (Integer) level.get("timeouts"))
			.satisfies((timeouts) -> assertThat(timeouts.stream().mapToInt(Integer::intValue).sum()).isEqualTo(5));
		assertThat(levels).allSatisfy((level) -> {
			if ((Integer) level.get("timeouts") == 0) {
				assertThat(level).doesNotContainKey("nextDue").containsEntry("occupied", List.of());
			}
			else {
				assertThat(Duration.parse((String) level.get("nextDue"))).isBetween(Duration.ofMinutes(29),
						Duration.ofMinutes(30));
			}
		});
		assertThat(details.<List<String>>read("$.levels[*].occupied[*].dueIn")).isNotEmpty()
			.allSatisfy((dueIn) -> assertThat(Duration.parse(dueIn)).isBetween(Duration.ofMinutes(29),
					Duration.ofMinutes(30)));
		assertThat(details.read("$.buckets.occupied", Integer.class))
			.isEqualTo(details.read("$.levels[0].occupied.length()", Integer.class));
		assertThat(details.<List<Object>>read("$.nextTimeouts[*].method")).hasSize(5).containsOnly(CANCEL_IF_UNPAID);
		assertThat(details.<List<Map<String, Object>>>read("$.nextTimeouts")).as("in memory: no key, no id")
			.allSatisfy((next) -> assertThat(next).doesNotContainKeys("key", "callId"));
		assertThat(Duration.parse(details.read("$.nextTimeouts[0].remainingDelay", String.class)))
			.isBetween(Duration.ofMinutes(29), Duration.ofMinutes(30));
		assertThat(details.<List<Object>>read("$.delayedMethods[?(@.method == '" + CANCEL_IF_UNPAID + "')].calls"))
			.containsExactly(5);
		assertThat(details.<List<Object>>read("$.delayedMethods[?(@.method == '" + CANCEL_IF_UNPAID + "')].delay"))
			.containsExactly("PT30M");
		this.client.get().uri("/actuator/wheeltimer/nope").exchange().expectStatus().isNotFound().expectBody()
			.jsonPath("$.message").isEqualTo("No timer named 'nope'; the timers are [wheelTimer]");

		DocumentContext health = get("/actuator/health");
		assertThat(health.read("$.components.wheelTimer.status", String.class)).isEqualTo("UP");
		assertThat(health.read("$.components.wheelTimer.details.pendingTimeouts", Integer.class)).isEqualTo(5);
		assertThat(get("/actuator/metrics/wheel.timer.pending").read("$.measurements[0].value", Double.class))
			.isEqualTo(5.0);
		assertThat(get("/actuator/metrics/wheel.timer.timeouts?tag=outcome:completed&tag=name:wheelTimer")
			.read("$.measurements[0].value", Double.class)).isEqualTo(3.0);
		assertThat(get("/actuator/metrics/wheel.timer.lateness")
			.<List<Object>>read("$.measurements[?(@.statistic == 'COUNT')].value")).containsExactly(3.0);
		assertThat(this.client.get().uri("/actuator/prometheus").exchange().returnResult(String.class).getResponseBody())
			.contains("wheel_timer_pending_timeouts{name=\"wheelTimer\"} 5.0")
			.contains("wheel_timer_timeouts_total{name=\"wheelTimer\",outcome=\"completed\"} 3.0")
			.contains("wheel_timer_moves_timeouts_total{name=\"wheelTimer\"}")
			.contains("wheel_timer_scheduled_timeouts_total{name=\"wheelTimer\"} 8.0")
			.contains("wheel_timer_rejected_calls_total{name=\"wheelTimer\"} 0.0")
			.contains("wheel_timer_tick_lag_seconds{name=\"wheelTimer\"}");

		this.client.post().uri("/actuator/wheeltimer/wheelTimer").contentType(MediaType.APPLICATION_JSON)
			.body("{\"drainTimeout\": \"-PT1S\"}").exchange().expectStatus().isBadRequest().expectBody()
			.jsonPath("$.message").isEqualTo("Invalid drainTimeout 'PT-1S': it must be zero or positive, such as \"PT5S\"");
		this.client.post().uri("/actuator/wheeltimer/wheelTimer").contentType(MediaType.APPLICATION_JSON)
			.body("{\"drainTimeout\": \"5 seconds\"}").exchange().expectStatus().isBadRequest().expectBody()
			.jsonPath("$.message").isEqualTo("Invalid drainTimeout '5 seconds': it must be a duration such as \"PT5S\" or \"5s\""
					+ " (a bare number is milliseconds)");
		this.client.post().uri("/actuator/wheeltimer/nope").contentType(MediaType.APPLICATION_JSON).exchange()
			.expectStatus().isNotFound().expectBody()
			.jsonPath("$.message").isEqualTo("No timer named 'nope'; the timers are [wheelTimer]");
		assertThat(get("/actuator/wheeltimer").read("$.timers.wheelTimer.state", String.class))
			.as("a refused stop stops nothing").isEqualTo("STARTED");

		DocumentContext report = JsonPath.parse(this.client.post()
			.uri("/actuator/wheeltimer/wheelTimer")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"drainTimeout\": \"PT1S\"}")
			.exchange()
			.expectStatus()
			.isOk()
			.returnResult(String.class)
			.getResponseBody());
		assertThat(report.read("$.state", String.class)).isEqualTo("SHUTDOWN");
		assertThat(report.read("$.drainTimeout", String.class)).isEqualTo("PT1S");
		assertThat(report.read("$.firedDuringDrain", Integer.class)).isZero();
		assertThat(report.read("$.unprocessed", Integer.class)).isEqualTo(5);
		assertThat(report.<Map<String, Object>>read("$.unprocessedByMethod")).containsExactly(Map.entry(CANCEL_IF_UNPAID, 5));
		assertThat(unpaid).allSatisfy((future) -> assertThat(future).isCancelled());

		this.client.get().uri("/actuator/health").exchange().expectStatus().isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
		assertThat(JsonPath.parse(this.client.get().uri("/actuator/health").exchange().returnResult(String.class)
			.getResponseBody()).read("$.components.wheelTimer.status", String.class)).isEqualTo("OUT_OF_SERVICE");
		assertThat(get("/actuator/wheeltimer").read("$.timers.wheelTimer.state", String.class)).isEqualTo("SHUTDOWN");
		assertThatExceptionOfType(TaskRejectedException.class).isThrownBy(() -> this.orders.cancelIfUnpaid("late"))
			.withMessageContaining("Timer 'wheelTimer' refused the delayed call to " + CANCEL_IF_UNPAID)
			.withMessageContaining("the timer has been stopped");
		assertThat(get("/actuator/wheeltimer").read("$.timers.wheelTimer.counters.rejected", Integer.class)).isOne();

		// No body: the configured drain (wheel-timer.shutdown.drain-timeout); a second stop changes nothing.
		this.client.post()
			.uri("/actuator/wheeltimer/wheelTimer")
			.contentType(MediaType.APPLICATION_JSON)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.alreadyStopped").isEqualTo(true)
			.jsonPath("$.drainTimeout").isEqualTo("PT0S")
			.jsonPath("$.unprocessed").isEqualTo(0);
	}

	private DocumentContext get(String uri) {
		String body = this.client.get().uri(uri).exchange().expectStatus().isOk().returnResult(String.class)
			.getResponseBody();
		return JsonPath.parse(body);
	}

}
