package io.github.wheeltimer.sample.orders;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.util.UriComponentsBuilder;

/**
 * {@code POST /orders}, {@code POST /orders/{id}/pay}, {@code GET /orders/{id}} and
 * {@code GET /orders}.
 */
@RestController
@RequestMapping("/orders")
class OrderController {

	private static final int MAX_LIMIT = 100;

	private static final int MAX_ITEM_LENGTH = 100;

	private final OrderService orderService;

	private final OrderBook orders;

	OrderController(OrderService orderService, OrderBook orders) {
		this.orderService = orderService;
		this.orders = orders;
	}

	@PostMapping
	ResponseEntity<Order> create(@RequestBody(required = false) @Nullable NewOrder request,
			UriComponentsBuilder uris) {
		String item = (request != null && request.item() != null && !request.item().isBlank()) ? request.item().strip()
				: "something";
		if (item.length() > MAX_ITEM_LENGTH) {
			throw new IllegalArgumentException(
					"item must be at most " + MAX_ITEM_LENGTH + " characters, but had " + item.length());
		}
		Order order = this.orderService.create(item);
		return ResponseEntity.created(uris.path("/orders/{id}").build(order.id())).body(order);
	}

	@PostMapping("/{id}/pay")
	Order pay(@PathVariable String id) {
		return this.orderService.pay(id);
	}

	@GetMapping("/{id}")
	Order get(@PathVariable String id) {
		return this.orders.find(id).orElseThrow(() -> new OrderNotFoundException(id));
	}

	@GetMapping
	List<Order> newest(@RequestParam(defaultValue = "20") int limit) {
		if (limit < 1 || limit > MAX_LIMIT) {
			throw new IllegalArgumentException(
					"limit must be between 1 and " + MAX_LIMIT + ", but was " + limit);
		}
		return this.orders.newest(limit);
	}

	record NewOrder(@Nullable String item) {
	}

}
