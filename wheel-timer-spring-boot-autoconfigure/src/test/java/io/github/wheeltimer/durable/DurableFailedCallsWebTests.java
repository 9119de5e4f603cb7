package io.github.wheeltimer.durable;

import java.time.Duration;
import java.util.List;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import io.github.wheeltimer.durable.DurableApp.Orders;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Failed durable calls over HTTP keep their keys: an operator sees them, and a re-queue gives each
 * its key back, or says which a newer call has taken.
 */
@SpringBootTest(classes = DurableApp.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.datasource.url=jdbc:h2:mem:durable-failed-web;DB_CLOSE_DELAY=-1",
				"wheel-timer.durable.poll-interval=200ms", "wheel-timer.durable.heartbeat-interval=200ms",
				"wheel-timer.durable.lease=1s", "management.endpoints.web.exposure.include=wheeltimer",
				"management.endpoint.wheeltimer.access=unrestricted" })
@AutoConfigureRestTestClient
class DurableFailedCallsWebTests {

	@Autowired
	private RestTestClient client;

	@Autowired
	private Orders orders;

	@Autowired
	private DurableCalls durable;

	@Autowired
	private ConfigurableApplicationContext app;

	@Test
	void failedCallsAreListedWithTheirKeysAndARequeueNamesThoseWhoseKeyANewCallTook() {
		this.orders.remind(new DurableApp.Order("o-keyed-1", -1));
		this.orders.remind(new DurableApp.Order("o-keyed-2", -1));
		DurableCallsContractTests.dueNow(this.app);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.durable.failedCalls("orders.remind", 10).size() == 2);
		DocumentContext failed = JsonPath.parse(this.client.get()
			.uri("/actuator/wheeltimer/durable/failed?method=orders.remind")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.returnResult()
			.getResponseBody());
		assertThat(failed.read("$.method", String.class)).isEqualTo("orders.remind");
		assertThat(failed.read("$.total", Integer.class)).isEqualTo(2);
		assertThat(failed.<List<String>>read("$.newest[*].key")).containsExactlyInAnyOrder("o-keyed-1", "o-keyed-2");
		// A new call takes one of the keys; the other call gets its key back.
		this.orders.remind(new DurableApp.Order("o-keyed-1", 5));
		DocumentContext requeued = requeue("{\"method\": \"orders.remind\"}");
		assertThat(requeued.read("$.requeued", Integer.class)).isEqualTo(1);
		assertThat(requeued.<List<String>>read("$.keyInUse[*].key")).containsExactly("o-keyed-1");
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
