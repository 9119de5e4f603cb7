package io.github.wheeltimer.sample;

import java.util.Map;

import io.github.wheeltimer.sample.orders.Order;

import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/** The shop's order API as the tests call it. */
final class OrdersOverHttp {

	private final RestTestClient client;

	OrdersOverHttp(RestTestClient client) {
		this.client = client;
	}

	Order create(String item) {
		return this.client.post()
			.uri("/orders")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("item", item))
			.exchange()
			.expectStatus()
			.isCreated()
			.expectHeader()
			.value("Location", (location) -> assertThat(location).matches(".*/orders/\\d+"))
			.expectBody(Order.class)
			.returnResult()
			.getResponseBody();
	}

	Order get(String id) {
		return this.client.get().uri("/orders/{id}", id).exchange().expectBody(Order.class).returnResult().getResponseBody();
	}

}
