package io.github.wheeltimer.durable;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.wheeltimer.annotation.DelayedExecution;

/**
 * The bean of the engine's unit tests: durable delayed methods that record each run (which
 * method, which order, which attempt, at which virtual time). Not final: it is proxied.
 */
public class OrderTimeouts {

	private final ConcurrentLinkedQueue<Run> runs = new ConcurrentLinkedQueue<>();

	private volatile Supplier<Duration> clock = () -> Duration.ZERO;

	/** A run of one of its methods. */
	record Run(String method, String orderId, int attempt, Duration at) {
	}

	void clock(Supplier<Duration> clock) {
		this.clock = clock;
	}

	List<Run> runs() {
		return List.copyOf(this.runs);
	}

	/** Within the horizon of the tests' settings: born on the caller's wheel. */
	@DelayedExecution(delay = 5, timeUnit = TimeUnit.SECONDS, durable = true, key = "#orderId")
	public void cancelIfUnpaid(String orderId) {
		record("cancelIfUnpaid", orderId);
	}

	@DelayedExecution(delay = 5, timeUnit = TimeUnit.SECONDS, durable = true, key = "#orderId")
	public void releaseStock(String orderId) {
		record("releaseStock", orderId);
		throw new IllegalStateException("no stock reserved for " + orderId);
	}

	/** Fails through a dependent stage: its future holds a CompletionException around the cause. */
	@DelayedExecution(delay = 5, timeUnit = TimeUnit.SECONDS, durable = true)
	public CompletableFuture<String> refund(String orderId) {
		record("refund", orderId);
		return CompletableFuture.completedFuture(orderId).thenApply((id) -> {
			throw new IllegalStateException("refund refused for " + id);
		});
	}

	/** Beyond the horizon: written pending, and claimed by a poll. */
	@DelayedExecution(delay = 1, timeUnit = TimeUnit.MINUTES, durable = true)
	public void remind(String orderId) {
		record("remind", orderId);
	}

	private void record(String method, String orderId) {
		this.runs.add(new Run(method, orderId, DurableCalls.currentAttempt(), this.clock.get()));
	}

}
