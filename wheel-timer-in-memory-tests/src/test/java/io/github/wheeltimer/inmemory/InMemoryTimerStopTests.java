package io.github.wheeltimer.inmemory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.web.servlet.client.RestTestClient;

import static io.github.wheeltimer.inmemory.InMemoryActuatorTests.CANCEL_IF_UNPAID;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An operator stops a timer through the {@code wheeltimer} endpoint of an application without a
 * database, and then reads the endpoint and the health check: they still answer, showing the timer
 * stopped. The stop is the application's first request, as in the reported failure, on an
 * application of this class's own ({@code @DirtiesContext}: a stopped timer stays stopped). The
 * last test looks at the classes the JVM loaded, after every operation.
 */
@SpringBootTest(classes = InMemoryTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT)
@AutoConfigureRestTestClient
@DirtiesContext
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class InMemoryTimerStopTests {

	private static final int UNPAID = 3;

	@Autowired
	private RestTestClient client;

	@Autowired
	private InMemoryTestApplication.Orders orders;

	@Test
	@Order(1)
	void theStopReportsTheCallsItLeftAndCancelsTheirFutures() {
		List<CompletableFuture<String>> unpaid = new ArrayList<>();
		for (int i = 0; i < UNPAID; i++) {
			unpaid.add(this.orders.cancelIfUnpaid("unpaid-" + i));
		}

		DocumentContext report = JsonPath.parse(this.client.post()
			.uri("/actuator/wheeltimer/wheelTimer")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"drainTimeout\":\"PT0S\"}")
			.exchange()
			.expectStatus()
			.isOk()
			.returnResult(String.class)
			.getResponseBody());
		assertThat(report.read("$.timer", String.class)).isEqualTo("wheelTimer");
		assertThat(report.read("$.state", String.class)).isEqualTo("SHUTDOWN");
		assertThat(report.read("$.alreadyStopped", Boolean.class)).isFalse();
		assertThat(report.read("$.drainTimeout", String.class)).isEqualTo("PT0S");
		assertThat(report.read("$.unprocessed", Integer.class)).isEqualTo(UNPAID);
		assertThat(report.<Map<String, Object>>read("$.unprocessedByMethod"))
			.containsExactly(Map.entry(CANCEL_IF_UNPAID, UNPAID));
		assertThat(unpaid).allSatisfy((future) -> assertThat(future).isCancelled());
	}

	@Test
	@Order(2)
	void theStoppedTimerIsStillListedWithTheOthers() {
		DocumentContext timers = get("/actuator/wheeltimer");
		assertThat(timers.<Map<String, Object>>read("$.timers")).containsOnlyKeys("wheelTimer", "retries");
		assertThat(timers.read("$.timers.wheelTimer.state", String.class)).isEqualTo("SHUTDOWN");
		assertThat(timers.read("$.timers.wheelTimer.pendingTimeouts", Integer.class)).isZero();
		assertThat(timers.read("$.timers.wheelTimer.counters.unprocessed", Integer.class)).isEqualTo(UNPAID);
		assertThat(timers.read("$.timers.retries.state", String.class)).isEqualTo("STARTED");
	}

	@Test
	@Order(3)
	void theStoppedTimerIsStillDescribedInDetail() {
		DocumentContext details = get("/actuator/wheeltimer/wheelTimer");
		assertThat(details.read("$.state", String.class)).isEqualTo("SHUTDOWN");
		assertThat(details.read("$.pendingTimeouts", Integer.class)).isZero();
		assertThat(details.<List<Integer>>read("$.levels[*].timeouts")).isNotEmpty().containsOnly(0);
		assertThat(details.<List<Object>>read("$.delayedMethods[?(@.method == '" + CANCEL_IF_UNPAID + "')].calls"))
			.containsExactly(UNPAID);
		assertThat(get("/actuator/wheeltimer/retries").read("$.state", String.class)).isEqualTo("STARTED");
	}

	@Test
	@Order(4)
	void theStoppedTimerIsOutOfService() {
		DocumentContext health = JsonPath.parse(this.client.get()
			.uri("/actuator/health")
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.SERVICE_UNAVAILABLE)
			.returnResult(String.class)
			.getResponseBody());
		assertThat(health.read("$.components.wheelTimer.components.wheelTimer.status", String.class))
			.isEqualTo("OUT_OF_SERVICE");
		assertThat(health.read("$.components.wheelTimer.components.wheelTimer.details.state", String.class))
			.isEqualTo("SHUTDOWN");
		assertThat(health.read("$.components.wheelTimer.components.retries.status", String.class)).isEqualTo("UP");
	}

	@Test
	@Order(5)
	void noOperationLoadsAClassOfTheDurableCalls() {
		EveryOperation.requestAndAssertNothingDurableLoaded(this.client);
	}

	private DocumentContext get(String uri) {
		return EveryOperation.get(this.client, uri);
	}

}
