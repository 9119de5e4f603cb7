package io.github.wheeltimer.durable;

import java.util.Objects;

/**
 * Cancels durable delayed calls by key, from any code path and any instance sharing the
 * database, also after a restart: paying an order created before the last deploy still cancels
 * its cancellation.
 * <pre class="code">
 * &#64;DelayedExecution(delay = 30, timeUnit = MINUTES, durable = true, key = "#orderId")
 * public void cancelIfUnpaid(String orderId) { ... }   // id: PaymentTimeouts.cancelIfUnpaid
 *
 * &#64;Transactional
 * public void pay(String orderId) {
 *     orders.markPaid(orderId);
 *     delayedCalls.cancel("PaymentTimeouts.cancelIfUnpaid", orderId);
 * }
 * </pre>
 * A bean of the auto-configuration when durable calls are on. Thread-safe.
 */
public final class DelayedCalls {

	private final DurableCalls calls;

	/**
	 * Creates the bean.
	 * @param calls this instance's durable calls
	 */
	public DelayedCalls(DurableCalls calls) {
		this.calls = calls;
	}

	/**
	 * Cancels the pending call of a durable method by its key, wherever it waits. In a Spring
	 * transaction on the same {@code DataSource} the cancel is part of it (rolled back, the call
	 * stays). A call that has already started cannot be cancelled.
	 * @param methodId the method's durable id ({@code @DelayedExecution(id = ...)}, by default
	 * {@code SimpleClassName.methodName})
	 * @param key the key, compared as its {@code toString()} with what the method's key
	 * expression gave
	 * @return {@code true} if a pending call was cancelled; {@code false} if there was none: it
	 * ran, it is running, it was cancelled already, or it never existed
	 * @throws IllegalArgumentException if no durable method of this application has that id
	 * @throws org.springframework.dao.DataAccessException if the database cannot be reached
	 */
	public boolean cancel(String methodId, Object key) {
		Objects.requireNonNull(methodId, "methodId must not be null");
		Objects.requireNonNull(key, "key must not be null");
		return this.calls.cancel(methodId, key);
	}

	/**
	 * Returns which attempt the durable call running on the current thread is: {@code 1} the
	 * first time, more when it runs again because the instance running it died (durable calls run
	 * at least once). Call it inside the durable method.
	 * @return the attempt, or {@code 0} when the current thread is not running a durable call
	 */
	public static int currentAttempt() {
		return CallRunner.currentAttempt();
	}

}
