package io.github.wheeltimer.console.security;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.wheeltimer.annotation.DelayedExecution;

/**
 * Durable calls for an operator to change: an unpaid order's payment is captured an hour after it
 * was placed, or fails while the bank declines it.
 */
public class Payments {

	public static final String CAPTURE = "payments.capture";

	// Read through methods: the bean is a proxy, whose own fields stay empty.
	private final List<String> captured = new CopyOnWriteArrayList<>();

	private final Set<String> declined = ConcurrentHashMap.newKeySet();

	@DelayedExecution(delay = 1, timeUnit = TimeUnit.HOURS, durable = true, id = CAPTURE, key = "#orderId")
	public void capture(String orderId) {
		if (this.declined.contains(orderId)) {
			throw new IllegalStateException("The bank declined order " + orderId);
		}
		this.captured.add(orderId);
	}

	/** @return whether the capture of this order ran */
	public boolean captured(String orderId) {
		return this.captured.contains(orderId);
	}

	/** The bank declines this order from now on, or accepts it again: its capture throws, or not. */
	public void decline(String orderId, boolean declined) {
		if (declined) {
			this.declined.add(orderId);
		}
		else {
			this.declined.remove(orderId);
		}
	}

}
