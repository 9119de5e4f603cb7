package io.github.wheeltimer.test.readme;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.wheeltimer.annotation.DelayedExecution;

import org.springframework.stereotype.Service;

// The README's step 2: DocsExamplesTests keeps it the same as this region.
// example: start
@Service
public class PaymentTimeouts {

	private final Set<String> cancelled = ConcurrentHashMap.newKeySet();

	@DelayedExecution(delay = 30, timeUnit = TimeUnit.MINUTES)
	public void cancelIfUnpaid(String orderId) {
		cancelled.add(orderId); // runs 30 minutes after the call, with the call's argument
	}

	@DelayedExecution(delayString = "${orders.reminder-delay:10s}")
	public CompletableFuture<String> remind(String orderId) {
		return CompletableFuture.completedFuture("reminded " + orderId);
	}

	public boolean isCancelled(String orderId) {
		return cancelled.contains(orderId);
	}
}
// example: end
