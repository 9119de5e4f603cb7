package io.github.wheeltimer.durable;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.wheeltimer.annotation.DelayedExecution;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.transaction.TransactionSystemException;

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

	/**
	 * Its first run ends as a {@code @Transactional} method's does when the connection breaks
	 * under it: the method's statement failed, and the rollback did too.
	 */
	@DelayedExecution(delay = 5, timeUnit = TimeUnit.SECONDS, durable = true, key = "#orderId")
	public void chargeCard(String orderId) {
		record("chargeCard", orderId);
		if (this.runs.stream().filter((run) -> run.method().equals("chargeCard")).count() == 1) {
			throw rollbackFailed(new DataAccessResourceFailureException("Connection reset (test)"));
		}
	}

	/** Its method fails, and then its transaction's rollback: the method's failure is what counts. */
	@DelayedExecution(delay = 5, timeUnit = TimeUnit.SECONDS, durable = true, key = "#orderId")
	public void captureCard(String orderId) {
		record("captureCard", orderId);
		throw rollbackFailed(new IllegalStateException("card declined for " + orderId));
	}

	/** What Spring's transaction advice throws when the rollback after {@code failure} failed too. */
	private static TransactionSystemException rollbackFailed(RuntimeException failure) {
		TransactionSystemException rollback = new TransactionSystemException("JDBC rollback failed (test)");
		rollback.initApplicationException(failure);
		return rollback;
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
