package io.github.wheeltimer.durable;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * Finds, lists, reschedules, runs now and cancels durable delayed calls, from any code path and
 * any instance sharing the database, also after a restart: paying an order created before the
 * last deploy still cancels its cancellation, and an order page can say when the order cancels
 * itself.
 * <pre class="code">
 * &#64;DelayedExecution(delay = 30, timeUnit = MINUTES, durable = true, key = "#orderId")
 * public void cancelIfUnpaid(String orderId) { ... }   // id: PaymentTimeouts.cancelIfUnpaid
 *
 * &#64;Transactional
 * public void pay(String orderId) {
 *     orders.markPaid(orderId);
 *     durableCalls.cancel("PaymentTimeouts.cancelIfUnpaid", orderId);
 * }
 *
 * public Optional&lt;Instant&gt; cancelsAt(String orderId) {
 *     return durableCalls.find("PaymentTimeouts.cancelIfUnpaid", orderId).map(StoredCall::due);
 * }
 * </pre>
 * A call is named by its method's durable id ({@code @DelayedExecution(id = ...)}, by default
 * {@code SimpleClassName.methodName}) and its key (the method's {@code key} expression, compared as
 * its {@code toString()}), or by its id ({@link StoredCall#id()}), which also names calls made
 * without a key. Every change joins the caller's Spring transaction on the same
 * {@code DataSource} (rolled back, nothing changed), and what changes on this instance's wheels
 * waits for its commit. A call that has started ({@link CallState#RUNNING}) cannot be changed.
 * <p>
 * Durable calls only: an in-memory call lives on its timer's wheel and is cancelled through the
 * future its method returned; the {@code wheeltimer} endpoint shows it among a timer's next
 * timeouts. A bean of the auto-configuration when durable calls are on. Thread-safe. Every method
 * throws {@code NullPointerException} for a {@code null} argument it does not document as optional.
 */
public interface DurableCalls {

	/**
	 * Finds the waiting call of a durable method by its key: pending in the database, or claimed
	 * by an instance's wheel.
	 * @param methodId the method's durable id
	 * @param key the key, compared as its {@code toString()} with what the method's key expression gave
	 * @return the call, or empty if none waits with that key: it ran, it is running, it failed, it
	 * was cancelled, or it never existed
	 * @throws IllegalArgumentException if no durable method of this application has that id
	 * @throws org.springframework.dao.DataAccessException if the database cannot be reached
	 */
	Optional<StoredCall> find(String methodId, Object key);

	/**
	 * Finds a call by its id, in any state.
	 * @param id the call's id
	 * @return the call, or empty if there is none: it ran, it was cancelled, or it never existed
	 * @throws org.springframework.dao.DataAccessException if the database cannot be reached
	 */
	Optional<StoredCall> find(UUID id);

	/**
	 * Reads a page of calls: waiting and running ones by due time, failed ones newest first.
	 * @param methodId only this method's calls, or {@code null} for all (also of methods this
	 * instance does not know)
	 * @param state only calls in this state, or {@code null} for all
	 * @param page the page, from 0
	 * @param size the most calls on a page, 1 to 1000
	 * @return the page, with how many calls match in all
	 * @throws IllegalArgumentException if the page or its size is out of range
	 * @throws org.springframework.dao.DataAccessException if the database cannot be reached
	 */
	CallPage list(@Nullable String methodId, @Nullable CallState state, int page, int size);

	/**
	 * Moves the waiting call of a durable method, by its key, to a new due time; its arguments,
	 * key and trace stay, and it gets a new id (a wheel that holds it at its old time finds it gone).
	 * @param methodId the method's durable id
	 * @param key the key
	 * @param due when it runs, by the application's clock (see {@link #now()}); a time past runs it
	 * now
	 * @return the call as this change left it, or empty if none waits with that key
	 * @throws IllegalArgumentException if no durable method of this application has that id, or
	 * {@code due} is more than about 292 years away
	 * @throws org.springframework.dao.DataAccessException if the database cannot be reached
	 */
	Optional<StoredCall> reschedule(String methodId, Object key, Instant due);

	/**
	 * Moves the waiting call of a durable method, by its key, to run after {@code delay} from now,
	 * by the timers' clock (a test's virtual clock too).
	 * @param methodId the method's durable id
	 * @param key the key
	 * @param delay how long from now
	 * @return the call as this change left it, or empty if none waits with that key
	 * @throws IllegalArgumentException if no durable method of this application has that id, or
	 * the delay is negative
	 * @see #reschedule(String, Object, Instant)
	 */
	default Optional<StoredCall> reschedule(String methodId, Object key, Duration delay) {
		Objects.requireNonNull(delay, "delay must not be null");
		if (delay.isNegative()) {
			throw new IllegalArgumentException("delay must be zero or positive, was " + delay);
		}
		return reschedule(methodId, key, now().plus(delay));
	}

	/**
	 * Moves a call, by its id, to a new due time: a waiting call as
	 * {@link #reschedule(String, Object, Instant)} moves it; a failed call waits again, as if new
	 * (no attempts, no error, its key back).
	 * @param id the call's id
	 * @param due when it runs, by the application's clock; a time past runs it now
	 * @return the call as this change left it, or empty if it is neither waiting nor failed
	 * @throws IllegalStateException if it failed and a waiting call of its method holds its key:
	 * cancel that one first
	 * @throws org.springframework.dao.DataAccessException if the database cannot be reached
	 */
	Optional<StoredCall> reschedule(UUID id, Instant due);

	/**
	 * Runs the waiting call of a durable method, by its key, now: at once on this instance
	 * (counted by the method's timer as any run there), or at the next poll of an instance that
	 * knows the method when this one does not run.
	 * @param methodId the method's durable id
	 * @param key the key
	 * @return the call as this change left it, or empty if none waits with that key
	 * @throws IllegalArgumentException if no durable method of this application has that id
	 * @throws org.springframework.dao.DataAccessException if the database cannot be reached
	 */
	default Optional<StoredCall> runNow(String methodId, Object key) {
		return reschedule(methodId, key, now());
	}

	/**
	 * Runs a waiting call now, or a failed one again now, by its id. A failed call run again is
	 * the same call, not a new one: its method's {@link io.github.wheeltimer.annotation.DelayedMethod#calls()
	 * calls} stay, and the run counts in its timer's counters and its method's completed or failed
	 * runs, where it runs.
	 * @param id the call's id
	 * @return the call as this change left it, or empty if it is neither waiting nor failed
	 * @throws IllegalStateException if it failed and a waiting call of its method holds its key
	 * @throws org.springframework.dao.DataAccessException if the database cannot be reached
	 * @see #reschedule(UUID, Instant)
	 */
	default Optional<StoredCall> runNow(UUID id) {
		return reschedule(id, now());
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
	boolean cancel(String methodId, Object key);

	/**
	 * Cancels a waiting call, or deletes a failed one, by its id.
	 * @param id the call's id
	 * @return the call as it was, or empty if it was neither waiting nor failed: it is running, it
	 * ran, or it is gone
	 * @throws org.springframework.dao.DataAccessException if the database cannot be reached
	 */
	Optional<StoredCall> cancel(UUID id);

	/**
	 * Returns the application's time as durable calls see it: the timers' clock (a test's
	 * virtual clock too). Due times are on this clock.
	 * @return the current time
	 */
	Instant now();

	/**
	 * Returns which attempt the durable call running on the current thread is: {@code 1} the
	 * first time, more for each run before it, on any instance: a {@code @Retryable} retry, a run
	 * again because the instance running it died (durable calls run at least once), a run before
	 * an operator re-queued it. Call it inside the durable method.
	 * @return the attempt, or {@code 0} when the current thread is not running a durable call
	 */
	static int currentAttempt() {
		return CurrentAttempt.get();
	}

}
