package io.github.wheeltimer.durable;

import java.lang.reflect.Method;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The innermost advice of durable methods: when the method runs inside a transaction on the
 * durable calls' {@code DataSource} (it is {@code @Transactional} itself), deletes the call's row
 * in that transaction, right after the method returns. Its database effects and the end of the
 * call then commit, or roll back, together: a crash cannot make it run twice.
 * <p>
 * Runs on the executor thread that runs the call; every other invocation passes straight through
 * after one thread-local read.
 */
final class DurableCompletionInterceptor implements MethodInterceptor {

	private final ObjectProvider<DurableCalls> calls;

	DurableCompletionInterceptor(ObjectProvider<DurableCalls> calls) {
		this.calls = calls;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		DurableCall call = DurableCall.running();
		if (call == null || call.method().returnsFuture() || !isCallOf(call, invocation)
				|| !this.calls.getObject().inTransaction()
				|| TransactionSynchronizationManager.isCurrentTransactionReadOnly()) {
			return invocation.proceed();
		}
		Object value = invocation.proceed();
		this.calls.getObject().finishInTransaction(call);
		return value;
	}

	private static boolean isCallOf(DurableCall call, MethodInvocation invocation) {
		Object target = invocation.getThis();
		Method invoked = (target != null)
				? AopUtils.getMostSpecificMethod(invocation.getMethod(), AopUtils.getTargetClass(target))
				: invocation.getMethod();
		return invoked.equals(call.durableMethod().method().method());
	}

}
