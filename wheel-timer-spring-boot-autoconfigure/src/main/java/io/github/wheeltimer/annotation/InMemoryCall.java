package io.github.wheeltimer.annotation;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.wheeltimer.HandOff;
import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.Timeout;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;


/**
 * One accepted call of a {@link DelayedExecution} method: the timer's task while it waits, then the
 * executor's runnable.
 * <p>
 * Threads: created by the caller, with what it carries from the caller's thread (MDC, trace);
 * {@link #run(Timeout)} and {@link #cancelled(Timeout)} run on the timer's worker thread and only
 * hand work to the executor (the worker never runs user code, observation handlers included);
 * {@link #run()} runs on an executor thread, in the caller's context. The fields are final or
 * written by the worker before the hand-off, and the hand-offs (timer queue, executor queue)
 * publish them safely; the result future is the only shared mutable state and is thread-safe.
 * <p>
 * Each call is observed once: where it ran, where its caller cancelled it (the canceller's
 * thread, or the executor's when a cancel raced with the timer), or where the timer stopped.
 * Once fired, it is counted once too, by its method and its timer, as the method's run ended
 * (the timer task {@linkplain HashedWheelTimer#handOff hands the run off} rather than counting
 * as completed when it has only passed the call to the executor): where the method returned or
 * threw, where its returned future completed, where the executor refused it, or where the
 * executor's thread found it cancelled.
 * <p>
 * A method with {@code @Retryable} ({@link DelayedRetry}) runs each attempt through its bean's
 * {@link RunPath}, and a failed attempt that is retried ends there: counted failed, published,
 * logged once, and the same call goes back on its timer after the backoff, a new timeout, with
 * nothing waiting on a thread. The caller's future completes once, with the last attempt's
 * outcome, and cancelling it cancels the retry's timeout. The attempt number and the round's
 * start are written by the thread that ends an attempt, before the timer's queue publishes the
 * retry to the worker, which hands it to the executor in turn.
 */
final class InMemoryCall implements DelayedTask, Runnable {

	private static final Log logger = LogFactory.getLog(InMemoryCall.class);

	private static final VarHandle ENDED;

	static {
		try {
			ENDED = MethodHandles.lookup().findVarHandle(InMemoryCall.class, "ended", boolean.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final DelayedMethod method;

	private final MethodInvocation invocation;

	private final @Nullable DelayedResult result;

	/** What the caller's thread had, captured there: restored around the method, and observes the call. */
	private final DelayedCallObserver.CallerContext context;

	/** How late the worker fired it; written by the worker before the executor hand-off. */
	private long latenessNanos;

	/** Where the run's end is counted on the timer; written by the worker before the executor hand-off. */
	private HandOff handOff = HandOff.NONE;

	/**
	 * The attempt that runs next, from 1: written by the thread that ends an attempt (an
	 * executor's, or the one that completes the method's future), before it schedules the retry;
	 * read there, and by the timer's worker listing its timeouts.
	 */
	private volatile int attempt = 1;

	/** What the last failed attempt threw, for the end of its retries if the retry never runs. */
	private volatile @Nullable Throwable lastFailure;

	/**
	 * When the first attempt started, by its timer's clock, for {@code @Retryable(timeout)}: written
	 * on the executor's thread, read where the attempt ends, which may be another thread.
	 */
	private volatile long firstStartNanos;

	/**
	 * Set once by whichever thread first learns that the call will not run (a cancel through the
	 * future, or through the timeout, or the timer's stop), so that it is observed once.
	 */
	@SuppressWarnings("unused")
	private volatile boolean ended;

	InMemoryCall(DelayedMethod method, MethodInvocation invocation, @Nullable DelayedResult result,
			DelayedCallObserver.CallerContext context) {
		this.method = method;
		this.invocation = invocation;
		this.result = result;
		this.context = context;
	}

	@Override
	public DelayedMethod method() {
		return this.method;
	}

	/**
	 * The timer stopped before the call fell due, however it was stopped (the application's
	 * shutdown, the endpoint, user code, a dead worker): no caller may wait for it forever. Runs on
	 * the thread that ends the timer, so the future's dependants run there too, as they would on
	 * any thread that cancels it.
	 */
	@Override
	public void unprocessed(Timeout timeout) {
		if (this.result != null) {
			this.result.cancelledByTimer();
		}
		endWithout(DelayedCallOutcome.UNPROCESSED, "its timer stopped before the retry");
	}

	/**
	 * Its timeout was cancelled. Through the caller's future (cancelled before its timeout), the
	 * caller's thread observes it; through the timeout itself (one listed by the timer), the future
	 * is cancelled here, so that its caller never waits for nothing, and the call observed on the
	 * executor. Should both race, the flag decides.
	 */
	@Override
	public void cancelled(Timeout timeout) {
		if (this.result != null) {
			if (this.result.isCancelled()) {
				return;
			}
			this.result.cancelledByTimer();
		}
		// Only an observer that observes does anything with an end: no executor hop for the others.
		if (!this.method.observer().observes() || !ENDED.compareAndSet(this, false, true)) {
			return;
		}
		Runnable observe = () -> this.context.ended(this.method, DelayedCallOutcome.CANCELLED, null);
		try {
			// In flight meanwhile, as a run is: the shutdown and a virtual clock wait for it.
			this.method.execute(observe);
		}
		catch (RejectedExecutionException refused) {
			observe.run();
		}
	}

	/** The caller cancelled its future and so the timeout, on the caller's thread. */
	void cancelledByCaller() {
		endWithout(DelayedCallOutcome.CANCELLED, "its caller cancelled it");
	}

	/** Observes, on this thread, a call that will not run, unless another thread did already. */
	private void endWithout(DelayedCallOutcome outcome) {
		endWithout(outcome, null);
	}

	/**
	 * As {@link #endWithout(DelayedCallOutcome)}; for a call whose retry waited, listeners also
	 * hear, once, that its retries ended, as after their last failure.
	 * @param retriesEnded why the retry will not run
	 */
	private void endWithout(DelayedCallOutcome outcome, @Nullable String retriesEnded) {
		if (ENDED.compareAndSet(this, false, true)) {
			DelayedRetry retry = this.method.retry();
			Throwable failure = this.lastFailure;
			if (retriesEnded != null && retry != null && failure != null) {
				retry.ended(this.invocation, failure, retriesEnded);
			}
			this.context.ended(this.method, outcome, null);
		}
	}

	@Override
	public void run(Timeout timeout) {
		// Even if the caller cancelled the future meanwhile (its cancel lost the race with this fire):
		// the executor's thread finds it cancelled, and observes it there.
		if (this.method.observer().observes()) {
			this.latenessNanos = -timeout.remainingDelay().toNanos();
		}
		this.handOff = HashedWheelTimer.handOff(timeout);
		this.method.handedOff();
		try {
			this.method.executor().execute(this);
		}
		catch (RuntimeException | Error refused) {
			this.method.finished();
			this.context.ended(this.method, DelayedCallOutcome.FAILED, refused);
			this.method.ended(DelayedCallOutcome.FAILED, this.handOff);
			fail(refused);
		}
	}

	@Override
	public void run() {
		try {
			// Cancelled while it waited in the executor's queue: the caller no longer wants it.
			if (this.result != null && this.result.isDone()) {
				endWithout(DelayedCallOutcome.CANCELLED);
				this.method.ended(DelayedCallOutcome.CANCELLED, this.handOff);
				return;
			}
			DelayedCallObserver.Run run = this.context.start(this.method, this.latenessNanos, this.attempt, null, null);
			if (this.method.retry() != null && this.attempt == 1) {
				this.firstStartNanos = this.method.nanoTime();
			}
			try {
				// The rest of the advice chain (transactions, other aspects), then the method itself.
				Object value = proceed();
				if (this.result != null) {
					complete(value, run);
				}
				else {
					run.stop(null);
					this.method.ended(DelayedCallOutcome.RAN, this.handOff);
				}
			}
			catch (Throwable ex) {
				run.stop(ex);
				// Counted before the failure is reported: whoever it reaches finds it counted.
				this.method.ended(DelayedCallOutcome.FAILED, this.handOff);
				// In the caller's context still: a failure's log line carries its trace.
				retryOrFail(ex);
			}
			finally {
				run.leave();
			}
		}
		finally {
			this.method.finished();
		}
	}

	/**
	 * Completes the caller's future with what the method's own future gives, once it is done: the
	 * run ends then, and is counted so before the caller's future completes.
	 */
	private void complete(@Nullable Object value, DelayedCallObserver.Run run) {
		DelayedResult result = this.result;
		if (value instanceof CompletionStage<?> stage) {
			stage.whenComplete((outcome, failure) -> {
				if (failure != null) {
					Throwable cause = unwrap(failure);
					run.stop(cause);
					this.method.ended(DelayedCallOutcome.FAILED, this.handOff);
					retryOrFail(cause);
				}
				else {
					run.stop(null);
					this.method.ended(DelayedCallOutcome.RAN, this.handOff);
					result.complete(outcome);
				}
			});
		}
		else if (value instanceof Future<?> future) {
			try {
				Object outcome = future.get();
				run.stop(null);
				this.method.ended(DelayedCallOutcome.RAN, this.handOff);
				result.complete(outcome);
			}
			catch (ExecutionException ex) {
				Throwable cause = unwrap(ex);
				run.stop(cause);
				this.method.ended(DelayedCallOutcome.FAILED, this.handOff);
				retryOrFail(cause);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				run.stop(ex);
				this.method.ended(DelayedCallOutcome.FAILED, this.handOff);
				result.completeExceptionally(ex);
			}
		}
		else {
			run.stop(null);
			this.method.ended(DelayedCallOutcome.RAN, this.handOff);
			result.complete(value);
		}
	}

	/** The next step of the advice chain, or, for a method the wheel retries, the bean's run path. */
	private @Nullable Object proceed() throws Throwable {
		if (this.method.retry() != null && this.invocation instanceof ProxyMethodInvocation proxied) {
			return this.method.runPath(proxied.getProxy())
				.invoke(this.invocation.getMethod(), this.invocation.getArguments(), null);
		}
		return this.invocation.proceed();
	}

	/**
	 * A failed attempt: tried again after its backoff if its method's {@code @Retryable} says so,
	 * else the call fails with this attempt's exception.
	 */
	private void retryOrFail(Throwable ex) {
		DelayedRetry retry = this.method.retry();
		if (retry == null) {
			fail(ex);
			return;
		}
		DelayedRetry.Next next = retry.next(ex, this.attempt,
				Duration.ofNanos(this.method.nanoTime() - this.firstStartNanos));
		Duration delay = next.delay();
		if (delay == null) {
			retry.publish(this.invocation, ex, next.stop());
			this.method.retryDecided(false, this.attempt);
			if (this.attempt > 1) {
				logger.debug("Delayed call to " + this.method.description() + " is not retried after attempt "
						+ this.attempt + ": " + next.stop());
			}
			fail(ex);
			return;
		}
		if (this.result != null && this.result.isDone()) {
			// Its caller cancelled it during the attempt.
			this.lastFailure = ex;
			retry.publish(this.invocation, ex, null);
			endWithout(DelayedCallOutcome.CANCELLED, "its caller cancelled it");
			return;
		}
		int failed = this.attempt;
		int nextAttempt = failed + 1;
		this.lastFailure = ex;
		// Before the retry is on the timer, which may run it, and publish its own events, at once.
		retry.publish(this.invocation, ex, null);
		this.attempt = nextAttempt;
		Timeout retryTimeout;
		try {
			retryTimeout = this.method.timer().newTimeout(this, delay.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (RuntimeException refused) {
			// The timer stopped (or refused it): the call ends with its last failure.
			this.attempt = failed;
			retry.ended(this.invocation, ex, "its timer refused the retry: " + refused.getMessage());
			logger.warn("Delayed call to " + this.method.description() + " failed on attempt " + failed
					+ " and cannot be retried, its timer refused the retry: " + refused.getMessage());
			fail(ex);
			return;
		}
		this.method.retryDecided(true, failed);
		logger.warn("Delayed call to " + this.method.description() + " failed on attempt " + failed + " of "
				+ (retry.maxRetries() + 1) + "; tried again in " + delay.toMillis() + " ms: " + ex);
		if (this.result != null) {
			this.result.cancelsRetry(retryTimeout, nextAttempt);
			// A cancel that read the last attempt's timeout missed this one.
			if (this.result.isCancelled() && retryTimeout.cancel()) {
				endWithout(DelayedCallOutcome.CANCELLED);
			}
		}
	}

	private void fail(Throwable ex) {
		if (this.result != null) {
			this.result.completeExceptionally(ex);
		}
		else {
			this.method.failed(ex, this.invocation.getArguments(), null);
		}
	}

	private static Throwable unwrap(Throwable ex) {
		Throwable cause = ex.getCause();
		return ((ex instanceof CompletionException || ex instanceof ExecutionException) && cause != null) ? cause : ex;
	}

	@Override
	public int attempt() {
		return this.attempt;
	}

	@Override
	public String toString() {
		return "delayed call to " + this.method.description();
	}

}
