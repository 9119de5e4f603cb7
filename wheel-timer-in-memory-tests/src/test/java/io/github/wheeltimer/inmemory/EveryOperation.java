package io.github.wheeltimer.inmemory;

import java.util.List;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;

import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One request to every operation of the {@code wheeltimer} endpoint, to the health check and to the
 * timer's meters, whatever each answers: what an operator may do to an application, before a
 * test looks at what that made the JVM load. It stops the timer {@code wheelTimer}.
 */
final class EveryOperation {

	private static final List<String> READS = List.of("/actuator/wheeltimer", "/actuator/wheeltimer/wheelTimer",
			"/actuator/wheeltimer/retries", "/actuator/wheeltimer/nope", "/actuator/health",
			"/actuator/metrics/wheel.timer.scheduled", "/actuator/metrics/wheel.timer.pending",
			"/actuator/metrics/wheel.timer.timeouts");

	private static final List<String> WRITES = List.of("/actuator/wheeltimer/durable/failed",
			"/actuator/wheeltimer/nope", "/actuator/wheeltimer/wheelTimer");

	private EveryOperation() {
	}

	static void request(RestTestClient client) {
		READS.forEach((uri) -> client.get().uri(uri).exchange());
		WRITES.forEach((uri) -> client.post().uri(uri).contentType(MediaType.APPLICATION_JSON)
			.body("{\"drainTimeout\":\"PT0S\"}").exchange());
		READS.forEach((uri) -> client.get().uri(uri).exchange());
	}

	/** Makes every request, then checks that none of them loaded a class of the durable calls. */
	static void requestAndAssertNothingDurableLoaded(RestTestClient client) {
		request(client);
		assertThat(LoadedClasses.names()).as("the classes this JVM loaded")
			.contains("io.github.wheeltimer.HashedWheelTimer", "io.github.wheeltimer.actuate.WheelTimerEndpoint")
			.filteredOn((name) -> name.startsWith("io.github.wheeltimer.durable."))
			.as("the classes of the durable calls loaded by an application that has none")
			.isEmpty();
	}

	/** Reads a JSON answer that must be a 200. */
	static DocumentContext get(RestTestClient client, String uri) {
		return JsonPath.parse(client.get().uri(uri).exchange().expectStatus().isOk().returnResult(String.class)
			.getResponseBody());
	}

}
