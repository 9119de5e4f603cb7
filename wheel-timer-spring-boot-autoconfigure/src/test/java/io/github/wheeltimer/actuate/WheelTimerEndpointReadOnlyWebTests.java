package io.github.wheeltimer.actuate;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.RestTestClient;

/**
 * The endpoint exposed but not granted write access: reading works, stopping is refused.
 */
@SpringBootTest(classes = WebTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = "management.endpoints.web.exposure.include=wheeltimer")
@AutoConfigureRestTestClient
class WheelTimerEndpointReadOnlyWebTests {

	@Autowired
	private RestTestClient client;

	@Test
	void theStopIsRefusedWithoutWriteAccessAndTheTimerKeepsRunning() {
		this.client.post()
			.uri("/actuator/wheeltimer/wheelTimer")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"drainTimeout\": \"PT1S\"}")
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.METHOD_NOT_ALLOWED);
		this.client.get()
			.uri("/actuator/wheeltimer/wheelTimer")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.state")
			.isEqualTo("STARTED");
	}

}
