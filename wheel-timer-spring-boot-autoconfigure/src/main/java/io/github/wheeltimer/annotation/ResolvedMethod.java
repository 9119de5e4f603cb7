package io.github.wheeltimer.annotation;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * A {@link DelayedExecution} method as the advice finds it for a call: the method, and the
 * scheduler that keeps its calls (in memory, or in the database).
 */
record ResolvedMethod(DelayedMethod method, DelayedCallScheduler scheduler) {

	/** Hands a call to its scheduler, on the caller's thread, and counts it once accepted. */
	@Nullable Object schedule(MethodInvocation invocation) {
		Object result = this.scheduler.schedule(this.method, invocation);
		this.method.accepted();
		return result;
	}

}
