package io.github.wheeltimer.durable;

import java.time.Duration;
import java.util.UUID;

import io.github.wheeltimer.VirtualTime;
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
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Failed durable calls over HTTP with the endpoint's default, read-only access: they can be read,
 * and a re-queue is refused as the stop is, with a 405.
 */
@SpringBootTest(classes = { DurableWebApp.class, VirtualTime.class }, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.datasource.url=jdbc:h2:mem:durable-read-only;DB_CLOSE_DELAY=-1",
				"wheel-timer.durable.poll-interval=200ms", "wheel-timer.durable.heartbeat-interval=200ms",
				"wheel-timer.durable.lease=1s", "management.endpoints.web.exposure.include=wheeltimer" })
@AutoConfigureRestTestClient
class DurableCallsReadOnlyWebTests {

	/** The default tick. */
	private static final Duration TICK = Duration.ofMillis(100);

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

	@Test
	void failedCallsCanBeReadButARequeueIsRefusedLikeTheStop() {
		this.orders.explode("o-1");
		VirtualTime.advance(this.app, EXPLODE_DELAY.minus(TICK));
		assertThat(this.durable.counts().failed()).as("never before its delay").isZero();
		VirtualTime.advance(this.app, TICK);
		assertThat(this.durable.counts().failed()).isOne();
		this.client.post()
			.uri("/actuator/wheeltimer/durable/failed")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{}")
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.METHOD_NOT_ALLOWED);
		this.client.post()
			.uri("/actuator/wheeltimer/wheelTimer")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{}")
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.METHOD_NOT_ALLOWED);
		this.client.get()
			.uri("/actuator/wheeltimer/durable/failed")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.total")
			.isEqualTo(1)
			.jsonPath("$.newest[0].methodId")
			.isEqualTo("Orders.explode")
			.jsonPath("$.newest[0].error")
			.isEqualTo("java.lang.IllegalStateException: boom for o-1");
	}

	@Test
	void aCallIsReadWithItsArgumentsHiddenButCannotBeChangedAndTheEndpointSaysItIsReadOnly() {
		this.orders.remind(new DurableApp.Order("o-hidden", 100));
		String id = this.durable.admin().find("orders.remind", "o-hidden").orElseThrow().id().toString();
		this.client.get()
			.uri("/actuator/wheeltimer/durable/calls?method=orders.remind&key=o-hidden")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.calls[0].id")
			.isEqualTo(id)
			.jsonPath("$.calls[0].arguments")
			.isEqualTo("******");
		this.client.get()
			.uri("/actuator/wheeltimer")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.access")
			.isEqualTo("READ_ONLY");
		this.client.post()
			.uri("/actuator/wheeltimer/durable/calls/" + id)
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"action\": \"run\"}")
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.METHOD_NOT_ALLOWED);
		this.client.delete()
			.uri("/actuator/wheeltimer/durable/calls/" + id)
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.METHOD_NOT_ALLOWED);
		assertThat(this.durable.admin().find(UUID.fromString(id))).isPresent();
	}

}
