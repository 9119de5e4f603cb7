package io.github.wheeltimer.durable.run;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

import io.github.wheeltimer.annotation.DelayedCallObserver;
import io.github.wheeltimer.annotation.DelayedCallOutcome;
import io.github.wheeltimer.durable.CurrentAttempt;
import io.github.wheeltimer.durable.arguments.DurableMethods;
import io.github.wheeltimer.durable.storage.CallRepository;
import io.github.wheeltimer.durable.storage.DatabaseFailure;
import io.github.wheeltimer.durable.storage.Transactions;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The run of a call that passed its gate, on its method's executor: read its arguments back,
 * invoke its method through the bean's own advice with the finish as the innermost step, then
 * hand the outcome to {@link RunEnd}, once.
 * <p>
 * Threads: {@link #run} on an executor thread; a method's returned future ends the run later, on
 * the thread that completes it. A {@code @Transactional} method finishes its row inside its own
 * transaction, through the last step of its invocation path; the row is then counted finished
 * once that transaction commits.
 */
final class CallRunner {

	private static final Log logger = LogFactory.getLog(CallRunner.class);

	private final CallRepository calls;

	private final DurableMethods methods;

	private final HeldCalls held;

	private final CallCounters counters;

	private final DurableClock clock;

	private final UUID instance;

	private final RunEnd end;

	CallRunner(CallRepository calls, DurableMethods methods, HeldCalls held, CallCounters counters, DurableClock clock,
			UUID instance, RunEnd end) {
		this.calls = calls;
		this.methods = methods;
		this.held = held;
		this.counters = counters;
		this.clock = clock;
		this.instance = instance;
		this.end = end;
	}

	/** The executor's thread, once the call passed its gate. */
	void run(HeldCall call) {
		this.held.leaveBacklog(call);
		DelayedCallObserver.CallerContext observer = call.method().observer().none();
		@Nullable Object[] values;
		try {
			values = call.durableMethod().arguments().read(call.arguments());
		}
		catch (RuntimeException unreadable) {
			// IllegalArgumentException from the codec; anything else from a deserializer of the application's.
			logger.error(call.description() + " cannot run and is marked failed: " + unreadable.getMessage());
			observer.ended(call.method(), DelayedCallOutcome.FAILED, unreadable);
			this.end.end(call, RunEnd.Outcome.UNREADABLE, "unreadable: " + unreadable.getMessage(), unreadable);
			return;
		}
		Instant started = this.clock.now();
		Duration lateness = Duration.between(call.due(), started);
		this.counters.started(call, lateness);
		// Its span links to the caller's trace, wherever and whenever the call was made.
		DelayedCallObserver.Run run = observer.start(call.method(), lateness.toNanos(), call.attempt(), call.id().toString(),
				call.traceParent());
		try {
			Object value;
			LastStep last = new LastStep(call);
			CurrentAttempt.set(call.attempt());
			try {
				value = this.methods.invoker(call.durableMethod()).invoke(call.method().method(), values, last);
			}
			catch (Throwable thrown) {
				Throwable ex = whatRolledBack(thrown);
				if (ex instanceof LeaseLostException lost) {
					run.stop(lost);
					this.end.end(call, RunEnd.Outcome.LOST, lost.getMessage(), lost);
					return;
				}
				if (ex instanceof FinishRefusedException refused) {
					run.stop(refused);
					this.end.end(call, RunEnd.Outcome.UNFINISHED, refused.getMessage(), refused);
					return;
				}
				String notTheMethod = (ex != thrown && DatabaseFailure.of(ex).retryLater())
						? "the connection broke under its method's transaction, which kept nothing"
						: last.beforeOrAroundTheMethod(ex);
				if (notTheMethod != null) {
					// Not an attempt: the database's moment, which left nothing of the method.
					run.stop(ex);
					this.end.end(call, RunEnd.Outcome.UNFINISHED,
							call.description() + " is handed back to run again: " + notTheMethod
							+ ", the database failed (" + ex + ")", ex);
					return;
				}
				this.end.methodEnded(call, null, ex, values, started, run);
				return;
			}
			finally {
				CurrentAttempt.clear();
			}
			// Outside the method's own failures: what the ending throws is not the method's.
			if (value instanceof CompletionStage<?> stage) {
				stage.whenComplete(
						(outcome, failure) -> this.end.methodEnded(call, outcome, unwrap(failure), values, started, run));
			}
			else if (value instanceof Future<?> future) {
				awaitFuture(call, future, values, started, run);
			}
			else {
				this.end.methodEnded(call, value, null, values, started, run);
			}
		}
		finally {
			run.leave();
		}
	}

	private void awaitFuture(HeldCall call, Future<?> future, @Nullable Object[] values, Instant started,
			DelayedCallObserver.Run run) {
		try {
			this.end.methodEnded(call, future.get(), null, values, started, run);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.end.methodEnded(call, null, ex, values, started, run);
		}
		catch (ExecutionException ex) {
			this.end.methodEnded(call, null, unwrap(ex), values, started, run);
		}
	}

	/**
	 * The last step before the method, inside any transaction its advice began: a method that
	 * runs in a transaction on the durable calls' database deletes its row there, so that its
	 * effects and the end of the call commit, or roll back, together. One per run, confined to the
	 * executor's thread; what it saw tells a failure of the method from one around it.
	 */
	private final class LastStep implements MethodInterceptor {

		private final HeldCall call;

		/** The advice before it let the method start. */
		private boolean entered;

		/** The row was deleted in the method's transaction, whose end now decides the call's. */
		private boolean finishedInItsTransaction;

		LastStep(HeldCall call) {
			this.call = call;
		}

		@Override
		public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
			this.entered = true;
			if (this.call.method().returnsFuture() || !CallRunner.this.calls.inTransaction()
					|| TransactionSynchronizationManager.isCurrentTransactionReadOnly()) {
				return invocation.proceed();
			}
			Object value = invocation.proceed();
			boolean finished;
			try {
				finished = CallRunner.this.calls.finish(this.call.id(), CallRunner.this.instance, this.call.attempt());
			}
			catch (RuntimeException ex) {
				// Refused for its data, the statement would be refused again: the call fails, seen.
				if (!DatabaseFailure.of(ex).retryLater()) {
					throw ex;
				}
				throw new FinishRefusedException(this.call.description(), ex);
			}
			if (!finished) {
				throw new LeaseLostException(this.call.description());
			}
			this.finishedInItsTransaction = true;
			Transactions.afterCommit(this.call::finishedInTransaction);
			return value;
		}

		/**
		 * Says why a failure of the database that may pass left nothing of the method: it came
		 * before the method started (its transaction could not begin, say), or from the end of the
		 * transaction that also ends the call, which keeps both or neither.
		 * @return why, or {@code null} if the failure may have come from the method
		 */
		@Nullable String beforeOrAroundTheMethod(Throwable failure) {
			if ((this.entered && !this.finishedInItsTransaction) || !DatabaseFailure.of(failure).retryLater()) {
				return null;
			}
			return this.entered ? "the end of its method's transaction failed" : "its method did not start";
		}

	}

	/**
	 * What made the method's transaction roll back, when the rollback failed too: the connection
	 * broke, so the transaction kept nothing either way. What ends the run is the failure that
	 * rolled it back, not the rollback's: the end of the call refused by the database (handed back),
	 * the database gone from under the method (handed back: an outage, not the method's fault), or
	 * the method's own (failed, or retried under {@code @Retryable}).
	 */
	private static Throwable whatRolledBack(Throwable thrown) {
		if (thrown instanceof TransactionSystemException rollback) {
			Throwable cause = rollback.getApplicationException();
			if (cause != null) {
				return cause;
			}
		}
		return thrown;
	}

	/** A durable {@code last_error} names the method's own exception, not the future's wrapper. */
	private static @Nullable Throwable unwrap(@Nullable Throwable failure) {
		Throwable cause = (failure != null) ? failure.getCause() : null;
		return ((failure instanceof CompletionException || failure instanceof ExecutionException) && cause != null)
				? cause : failure;
	}

}
