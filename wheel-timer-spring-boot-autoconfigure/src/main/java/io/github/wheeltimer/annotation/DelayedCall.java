package io.github.wheeltimer.annotation;

import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

import io.github.wheeltimer.Timeout;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;


/**
 * One accepted call of a {@link DelayedExecution} method: the timer's task while it waits, then the
 * executor's runnable.
 * <p>
 * Threads: created by the caller; {@link #run(Timeout)} runs on the timer's worker thread and only
 * hands the call to the executor (the worker never runs user code); {@link #run()} runs on an
 * executor thread. The fields are final and the hand-offs (timer queue, executor queue) publish
 * them safely; the result future is the only shared mutable state and is thread-safe.
 */
final class DelayedCall implements DelayedTask, Runnable {

	private final DelayedMethod method;

	private final MethodInvocation invocation;

	private final @Nullable DelayedResult result;

	DelayedCall(DelayedMethod method, MethodInvocation invocation, @Nullable DelayedResult result) {
		this.method = method;
		this.invocation = invocation;
		this.result = result;
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
			this.result.cancel(false);
		}
	}

	@Override
	public void run(Timeout timeout) {
		if (this.result != null && this.result.isDone()) {
			return;
		}
		this.method.handedOff();
		try {
			this.method.executor().execute(this);
		}
		catch (RuntimeException | Error refused) {
			this.method.finished();
			fail(refused);
		}
	}

	@Override
	public void run() {
		try {
			// Cancelled while it waited in the executor's queue: the caller no longer wants it.
			if (this.result != null && this.result.isDone()) {
				return;
			}
			// The rest of the advice chain (transactions, other aspects), then the method itself.
			Object value = this.invocation.proceed();
			if (this.result != null) {
				complete(value);
			}
		}
		catch (Throwable ex) {
			fail(ex);
		}
		finally {
			this.method.finished();
		}
	}

	/** Completes the caller's future with what the method's own future gives. */
	private void complete(@Nullable Object value) {
		DelayedResult result = this.result;
		if (value instanceof CompletionStage<?> stage) {
			stage.whenComplete((outcome, failure) -> {
				if (failure != null) {
					result.completeExceptionally(unwrap(failure));
				}
				else {
					result.complete(outcome);
				}
			});
		}
		else if (value instanceof Future<?> future) {
			try {
				result.complete(future.get());
			}
			catch (ExecutionException ex) {
				result.completeExceptionally(unwrap(ex));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				result.completeExceptionally(ex);
			}
		}
		else {
			result.complete(value);
		}
	}

	private void fail(Throwable ex) {
		if (this.result != null) {
			this.result.completeExceptionally(ex);
		}
		else {
			this.method.failed(ex, this.invocation.getArguments());
		}
	}

	private static Throwable unwrap(Throwable ex) {
		Throwable cause = ex.getCause();
		return ((ex instanceof CompletionException || ex instanceof ExecutionException) && cause != null) ? cause : ex;
	}

	@Override
	public String toString() {
		return "delayed call to " + this.method.description();
	}

}
