package io.github.wheeltimer.test.docs;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The orders that the pages' examples save, pay and cancel: their state by id. */
class Orders {

	private final Map<String, String> states = new ConcurrentHashMap<>();

	void save(String orderId) {
		this.states.put(orderId, "AWAITING_PAYMENT");
	}

	void markPaid(String orderId) {
		this.states.put(orderId, "PAID");
	}

	void cancelUnlessPaid(String orderId) {
		this.states.computeIfPresent(orderId, (id, state) -> state.equals("PAID") ? state : "CANCELLED");
	}

	String state(String orderId) {
		return this.states.get(orderId);
	}

	void clear() {
		this.states.clear();
	}

}
