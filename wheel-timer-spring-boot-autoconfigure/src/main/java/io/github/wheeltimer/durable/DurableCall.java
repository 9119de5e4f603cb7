package io.github.wheeltimer.durable;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import io.github.wheeltimer.Timeout;
import io.github.wheeltimer.annotation.DelayedCallObserver;
import io.github.wheeltimer.annotation.DelayedCallOutcome;
import io.github.wheeltimer.annotation.DelayedMethod;
import io.github.wheeltimer.annotation.DelayedTask;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A durable call this instance holds: claimed in the database and waiting on a wheel, then run.
 * <p>
 * Threads: created by the caller (born claimed) or by a poll; {@link #run(Timeout)} runs on the
 * timer's worker and only hands the call to the method's executor; {@link #run()} runs on an
 * executor thread and does every database round trip of the run there. The fields are final or
 * confined to the executor thread; the hand-offs publish them.
 */
public final class DurableCall implements DelayedTask, Runnable {

	private static final Log logger = LogFactory.getLog(DurableCall.class);

	/** The durable call running on this thread, if any: what the method and the advice see. */
	private static final ThreadLocal<DurableCall> current = new ThreadLocal<>();

	private final DurableMethod method;

	private final UUID id;

	private final @Nullable String key;

	private final String arguments;

	private final Instant due;

	/** Starts before this one (the gate adds one). */
	private static final VarHandle IN_BACKLOG;

	static {
		try {
			IN_BACKLOG = MethodHandles.lookup().findVarHandle(DurableCall.class, "inBacklog", boolean.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final int attemptsBefore;

	/** The caller's span as a W3C {@code traceparent}, stored with the row; the run's span links to it. */
	private final @Nullable String traceParent;

	private final @Nullable DurableResult result;

	/** Executor thread only: the proxy call has not entered the method's advice yet. */
	private boolean entering;

	/** Executor thread only: the row was deleted inside the method's own transaction. */
	private boolean finishedInTransaction;

	/**
	 * Whether it counts in its instance's backlog: due already when it went on the wheel, and
	 * neither started nor gone since. Left once, by whichever thread gets there first.
	 */
	private volatile boolean inBacklog;

	DurableCall(DurableMethod method, UUID id, @Nullable String key, String arguments, Instant due, int attemptsBefore,
			@Nullable String traceParent, @Nullable DurableResult result) {
		this.method = method;
		this.id = id;
		this.key = key;
		this.arguments = arguments;
		this.due = due;
		this.attemptsBefore = attemptsBefore;
		this.traceParent = traceParent;
		this.result = result;
	}

	/**
	 * Whether a call of {@code method} that reaches its advice is the durable call this thread is
	 * running, entering the method (and not a new call to delay). Called by the advice only.
	 * @param method the method whose advice is entered
	 * @return {@code true} once, for the call being run
	 */
	public static boolean entering(DelayedMethod method) {
		DurableCall call = current.get();
		if (call != null && call.entering && call.method.method() == method) {
			call.entering = false;
			return true;
		}
		return false;
	}

	/** @return the attempt of the durable call running on this thread, 0 if none */
	static int currentAttempt() {
		DurableCall call = current.get();
		return (call != null) ? call.attemptsBefore + 1 : 0;
	}

	/** @return the durable call running on this thread, once it has entered its method's advice */
	static @Nullable DurableCall running() {
		DurableCall call = current.get();
		return (call != null && !call.entering) ? call : null;
	}

	UUID id() {
		return this.id;
	}

	@Nullable String key() {
		return this.key;
	}

	DurableMethod durableMethod() {
		return this.method;
	}

	@Override
	public DelayedMethod method() {
		return this.method.method();
	}

	@Override
	public boolean durable() {
		return true;
	}

	Instant due() {
		return this.due;
	}

	void enterBacklog() {
		this.inBacklog = true;
	}

	/** @return whether this call was in the backlog, and now is not: true once at most */
	boolean leaveBacklog() {
		return IN_BACKLOG.compareAndSet(this, true, false);
	}

	/** @return how many times the call started before, on instances whose lease then ran out */
	int attemptsBefore() {
		return this.attemptsBefore;
	}

	@Nullable DurableResult result() {
		return this.result;
	}

	void finishedInTransaction() {
		this.finishedInTransaction = true;
	}

	/** On the worker: hand the call to the executor; if it refuses, hand the row back. */
	@Override
	public void run(Timeout timeout) {
		try {
			this.method.method().execute(this);
		}
		catch (RuntimeException | Error refused) {
			this.method.calls().handBack(this, "its executor refused it: " + refused);
		}
	}

	/** The timer stopped with this call on it: the row goes back to the database, not lost. */
	@Override
	public void unprocessed(Timeout timeout) {
		this.method.calls().handBack(this, "its timer stopped");
	}

	@Override
	public void run() {
		DurableCalls calls = this.method.calls();
		if (!calls.start(this)) {
			return;
		}
		@Nullable Object[] values;
		try {
			values = this.method.arguments().read(this.arguments);
		}
		catch (RuntimeException unreadable) {
			// IllegalArgumentException from the codec; anything else from a deserializer of the application's.
			calls.unreadable(this, unreadable);
			method().observer().none().ended(method(), DelayedCallOutcome.FAILED, unreadable);
			return;
		}
		Duration lateness = Duration.between(this.due, calls.now());
		calls.started(this, lateness);
		// Its span links to the caller's trace, wherever and whenever the call was made.
		DelayedCallObserver.Run run = method().observer().none().start(method(), lateness.toNanos(), this.id.toString(),
				this.traceParent);
		try {
			this.entering = true;
			current.set(this);
			Object value;
			try {
				value = this.method.invoke(values);
			}
			catch (LeaseLostException lost) {
				run.stop(lost);
				calls.lost(this, lost);
				return;
			}
			catch (Throwable ex) {
				run.stop(ex);
				calls.failed(this, ex);
				reportFailure(ex, values);
				return;
			}
			finally {
				current.remove();
			}
			if (value instanceof CompletionStage<?> stage) {
				stage.whenComplete((outcome, failure) -> complete(outcome, failure, values, run));
			}
			else if (value instanceof Future<?> future) {
				try {
					complete(future.get(), null, values, run);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					complete(null, ex, values, run);
				}
				catch (java.util.concurrent.ExecutionException ex) {
					complete(null, (ex.getCause() != null) ? ex.getCause() : ex, values, run);
				}
			}
			else {
				complete(value, null, values, run);
			}
		}
		finally {
			run.leave();
		}
	}

	private void complete(@Nullable Object outcome, @Nullable Throwable failure, @Nullable Object[] values,
			DelayedCallObserver.Run run) {
		run.stop(failure);
		DurableCalls calls = this.method.calls();
		if (failure != null) {
			calls.failed(this, failure);
			reportFailure(failure, values);
			return;
		}
		calls.ran(this, this.finishedInTransaction);
		if (this.result != null) {
			this.result.complete(outcome);
		}
	}

	private void reportFailure(Throwable ex, @Nullable Object[] values) {
		if (this.result != null) {
			this.result.completeExceptionally(ex);
		}
		else {
			this.method.method().failed(ex, values);
		}
	}

	@Override
	public String toString() {
		return "durable call " + this.id + " to " + this.method + " due at " + this.due;
	}

	static void logUnreadable(DurableCall call, RuntimeException ex) {
		logger.error("Durable call " + call.id + " to " + call.method + " cannot run and is marked failed: "
				+ ex.getMessage());
	}

}
