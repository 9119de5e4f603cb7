package io.github.wheeltimer.durable;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

import io.github.wheeltimer.annotation.DelayedCallObserver;
import io.github.wheeltimer.annotation.DelayedCallOutcome;
import io.github.wheeltimer.durable.DatabaseProblems.Source;
import org.aopalliance.intercept.MethodInterceptor;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The run of a held call, on its method's executor: gate, decode, invoke, finish, each once, and
 * one {@link Outcome} at the end, which the counts and the row's last write follow.
 * <p>
 * Threads: {@link #run} on an executor thread, which does every database round trip of the run;
 * a method's returned future may end the run later, on the thread that completes it. A
 * {@code @Transactional} method finishes its row inside its own transaction, through the last
 * step of its invocation path; the row is then counted finished once that transaction commits.
 */
final class CallRunner {

	private static final Log logger = LogFactory.getLog(DurableCalls.class);

	/** The durable call running on this thread: what {@link DelayedCalls#currentAttempt()} reads. */
	private static final ThreadLocal<DurableCall> current = new ThreadLocal<>();

	/** How a run ended. */
	enum Outcome {

		/** The method returned: the row goes. */
		RAN,

		/** The method threw, or its future failed: the row is kept as failed. */
		FAILED,

		/** The arguments could not be read back: the row is kept as failed. */
		UNREADABLE,

		/** Its own transaction found the row taken over while it ran, and rolled back. */
		LOST

	}

	private final CallRepository calls;

	private final DurableMethods methods;

	private final HeldCalls held;

	private final RowWrites writes;

	private final DurableCounters counters;

	private final DurableClock clock;

	private final UUID instance;

	private final Duration lease;

	CallRunner(CallRepository calls, DurableMethods methods, HeldCalls held, RowWrites writes,
			DurableCounters counters, DurableClock clock, UUID instance, Duration lease) {
		this.calls = calls;
		this.methods = methods;
		this.held = held;
		this.writes = writes;
		this.counters = counters;
		this.clock = clock;
		this.instance = instance;
		this.lease = lease;
	}

	/** @return the attempt of the durable call running on this thread, 0 if none */
	static int currentAttempt() {
		DurableCall call = current.get();
		return (call != null) ? call.attempt() : 0;
	}

	/** Puts a claimed call on its wheel; one its timer refuses goes back at once. */
	void hold(DurableCall call) {
		RuntimeException refused = this.held.hold(call, this.clock.now());
		if (refused != null) {
			handBack(call, "its timer refused it: " + refused.getMessage());
		}
	}

	/** The executor's thread. */
	void run(DurableCall call) {
		if (!gate(call)) {
			return;
		}
		DelayedCallObserver.CallerContext observer = call.method().observer().none();
		@Nullable Object[] values;
		try {
			values = call.durableMethod().arguments().read(call.arguments());
		}
		catch (RuntimeException unreadable) {
			// IllegalArgumentException from the codec; anything else from a deserializer of the application's.
			logger.error("Durable call " + call.id() + " to " + call.durableMethod() + " cannot run and is marked failed: "
					+ unreadable.getMessage());
			observer.ended(call.method(), DelayedCallOutcome.FAILED, unreadable);
			end(call, Outcome.UNREADABLE, "unreadable: " + unreadable.getMessage(), unreadable);
			return;
		}
		Duration lateness = Duration.between(call.due(), this.clock.now());
		this.counters.started(call, lateness);
		// Its span links to the caller's trace, wherever and whenever the call was made.
		DelayedCallObserver.Run run = observer.start(call.method(), lateness.toNanos(), call.id().toString(),
				call.traceParent());
		try {
			Object value;
			current.set(call);
			try {
				value = this.methods.invoker(call.durableMethod()).invoke(call.method().method(), values, lastStep(call));
			}
			catch (LeaseLostException lost) {
				run.stop(lost);
				end(call, Outcome.LOST, lost.getMessage(), lost);
				return;
			}
			catch (Throwable ex) {
				ended(call, null, ex, values, run);
				return;
			}
			finally {
				current.remove();
			}
			// Outside the method's own failures: what the ending throws is not the method's.
			if (value instanceof CompletionStage<?> stage) {
				stage.whenComplete((outcome, failure) -> ended(call, outcome, unwrap(failure), values, run));
			}
			else if (value instanceof Future<?> future) {
				awaitFuture(call, future, values, run);
			}
			else {
				ended(call, value, null, values, run);
			}
		}
		finally {
			run.leave();
		}
	}

	private void awaitFuture(DurableCall call, Future<?> future, @Nullable Object[] values, DelayedCallObserver.Run run) {
		try {
			ended(call, future.get(), null, values, run);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			ended(call, null, ex, values, run);
		}
		catch (ExecutionException ex) {
			ended(call, null, unwrap(ex), values, run);
		}
	}

	/**
	 * The gate: this instance still holds the row, and the database says so. Runs before anything
	 * of the call's own.
	 * @return whether the call may run
	 */
	private boolean gate(DurableCall call) {
		this.held.forget(call);
		try {
			boolean[] passed = new boolean[1];
			if (!this.writes.run(() -> passed[0] = this.calls.start(call.id(), this.instance))) {
				// Stopping, and the database does not answer: the row is left to the lease.
				return false;
			}
			if (passed[0]) {
				this.writes.succeeded(Source.CALLS);
				this.counters.started.increment();
				this.held.forgetFuture(call.id());
				return true;
			}
			this.counters.fenced.increment();
			// Not ours any more (cancelled, replaced, taken over), or our lease lapsed: in that case
			// the row is still claimed by us, and goes back for whoever is alive.
			this.writes.run(() -> this.calls.release(call.id(), this.instance));
		}
		catch (RuntimeException ex) {
			// One warning for an outage, not one per call due during it; a refusal is this row's alone.
			this.writes.failed(Source.CALLS, ex);
			String failure = "Durable call " + call.id() + " to " + call.durableMethod() + " cannot start, its"
					+ " database failed; it is handed back: " + ex.getMessage();
			if (DatabaseFailure.of(ex) == DatabaseFailure.REFUSED) {
				logger.error(failure);
			}
			else {
				logger.debug(failure);
			}
			// The gate's update may have passed with its answer lost: the row is then running at this
			// attempt, and goes back too.
			this.writes.defer(handBackWrite(call, true));
		}
		finally {
			// After the gate: a stopping instance waits for its kept calls to have started.
			this.held.drained(call.id());
		}
		return false;
	}

	/**
	 * The last step before the method, inside any transaction its advice began: a method that
	 * runs in a transaction on the durable calls' database deletes its row there, so that its
	 * effects and the end of the call commit, or roll back, together.
	 */
	private MethodInterceptor lastStep(DurableCall call) {
		return (invocation) -> {
			if (call.method().returnsFuture() || !this.calls.inTransaction()
					|| TransactionSynchronizationManager.isCurrentTransactionReadOnly()) {
				return invocation.proceed();
			}
			Object value = invocation.proceed();
			if (!this.calls.finish(call.id(), this.instance, call.attempt())) {
				throw new LeaseLostException(call);
			}
			DurableClient.afterCompletion((status) -> {
				if (status == TransactionSynchronization.STATUS_COMMITTED) {
					call.finishedInTransaction();
				}
			});
			return value;
		};
	}

	/** The method's outcome is known: its observation stops, then the run ends. */
	private void ended(DurableCall call, @Nullable Object value, @Nullable Throwable failure,
			@Nullable Object[] values, DelayedCallObserver.Run run) {
		run.stop(failure);
		if (failure == null) {
			end(call, Outcome.RAN, null, null);
			DurableResult result = call.result();
			if (result != null) {
				result.complete(value);
			}
			return;
		}
		end(call, Outcome.FAILED, failure.getClass().getName() + ": " + failure.getMessage(), failure);
		DurableResult result = call.result();
		if (result != null) {
			result.completeExceptionally(failure);
		}
		else {
			call.method().failed(failure, values);
		}
	}

	/**
	 * The one end of a run: its row's last write, then its count, so that a reader who sees the
	 * count finds the row written (unless the write waits for the database).
	 */
	private void end(DurableCall call, Outcome outcome, @Nullable String error, @Nullable Throwable failure) {
		switch (outcome) {
			case RAN -> {
				if (!call.isFinishedInTransaction()) {
					this.writes.write(call, "finished", () -> this.calls.finish(call.id()), null);
				}
				this.counters.ran.increment();
			}
			case LOST -> {
				this.counters.fenced.increment();
				logger.warn(error + " (a pause longer than wheel-timer.durable.lease: " + this.lease
						+ "), so that its effects happen once, where it runs now");
			}
			case FAILED, UNREADABLE -> {
				int attempt = call.attempt();
				String because = (failure != null) ? failure.getClass().getName() : "unknown";
				this.writes.write(call, "marked failed",
						() -> this.calls.fail(call.id(), this.instance, attempt, String.valueOf(error)),
						() -> this.calls.fail(call.id(), this.instance, attempt, "the database refused the error's"
								+ " text; it is in the log of the instance that ran the call (" + because + ")"));
				this.counters.failed.increment();
			}
		}
	}

	/** The call will not run here after all: its row goes back to pending for any instance. */
	void handBack(DurableCall call, String why) {
		this.held.release(call);
		logger.debug("Durable call " + call.id() + " handed back to the database: " + why);
		this.writes.write(handBackWrite(call, false));
	}

	/**
	 * The write that hands a held call's row back, counted when the row goes back, not when asked:
	 * a stop's bulk hand-back may release the same row first, and counts it then.
	 * @param afterGate whether its gate ran and failed: the row may be running at this attempt
	 */
	private RowWrites.Write handBackWrite(DurableCall call, boolean afterGate) {
		return new RowWrites.Write(call, "handed back", () -> {
			boolean back = afterGate ? this.calls.releaseAfterGate(call.id(), this.instance, call.attempt())
					: this.calls.release(call.id(), this.instance);
			if (back) {
				this.counters.handedBack.increment();
			}
		}, null);
	}

	/** A durable {@code last_error} names the method's own exception, not the future's wrapper. */
	private static @Nullable Throwable unwrap(@Nullable Throwable failure) {
		Throwable cause = (failure != null) ? failure.getCause() : null;
		return ((failure instanceof CompletionException || failure instanceof ExecutionException) && cause != null)
				? cause : failure;
	}

}
