package io.github.wheeltimer.annotation;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.Timeout;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.core.task.TaskRejectedException;

/**
 * Puts a call on its method's timer, in memory. Stateless: one instance serves every method.
 * Runs on the caller's thread: two allocations of ours (the call, and its future if the method
 * returns one) plus the timer's timeout, and a third when the caller has a context to carry (an
 * MDC, a current observation).
 */
final class InMemoryScheduler implements DelayedCallScheduler {

	static final InMemoryScheduler INSTANCE = new InMemoryScheduler();

	private InMemoryScheduler() {
	}

	@Override
	public @Nullable Object schedule(DelayedMethod method, MethodInvocation invocation) {
		DelayedResult result = method.returnsFuture() ? new DelayedResult() : null;
		InMemoryCall call = new InMemoryCall(method, invocation, result, method.observer().capture());
		Timeout timeout;
		try {
			timeout = method.timer().newTimeout(call, method.delayNanos(), TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			throw new TaskRejectedException(refusal(method, ex), ex);
		}
		catch (IllegalStateException ex) {
			// The only IllegalStateException our timer throws here: it has been stopped.
			throw (method.timer() instanceof HashedWheelTimer) ? new TimerStoppedException(refusal(method, ex), ex)
					: new TaskRejectedException(refusal(method, ex), ex);
		}
		if (result != null) {
			result.cancelsTimeout(timeout);
		}
		return result;
	}

	private static String refusal(DelayedMethod method, RuntimeException ex) {
		return "Timer '" + method.timerBeanName() + "' refused the delayed call to " + method.description() + ": "
				+ ex.getMessage();
	}

}
