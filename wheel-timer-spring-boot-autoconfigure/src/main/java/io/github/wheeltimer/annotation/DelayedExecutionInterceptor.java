package io.github.wheeltimer.annotation;

import java.lang.reflect.Method;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;

/**
 * The advice behind {@link DelayedExecution}: instead of running the method, puts the call on the
 * method's timer and returns at once ({@code null} for {@code void}, otherwise a future). The
 * invocation is kept, and proceeds through the rest of the advice chain when the call falls due; a
 * durable call falls due as a row, and runs through an invocation path of its own, without this
 * advice.
 * <p>
 * Threads: any caller's thread. The registry is looked up once; a racing first lookup only
 * repeats it, and the reference is published through a volatile write.
 */
final class DelayedExecutionInterceptor implements MethodInterceptor, DelayingAdvice {

	private final ObjectProvider<DelayedMethodRegistry> registryProvider;

	private volatile @Nullable DelayedMethodRegistry registry;

	DelayedExecutionInterceptor(ObjectProvider<DelayedMethodRegistry> registryProvider) {
		this.registryProvider = registryProvider;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Method method = invocation.getMethod();
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : method.getDeclaringClass();
		return registry().lookup(method, targetClass).schedule(invocation);
	}

	private DelayedMethodRegistry registry() {
		DelayedMethodRegistry registry = this.registry;
		if (registry == null) {
			registry = this.registryProvider.getObject();
			this.registry = registry;
		}
		return registry;
	}

}
