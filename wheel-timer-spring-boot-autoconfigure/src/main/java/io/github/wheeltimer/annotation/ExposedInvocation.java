package io.github.wheeltimer.annotation;

import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Method;

import org.aopalliance.intercept.MethodInvocation;
import org.aspectj.lang.ProceedingJoinPoint;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.interceptor.ExposeInvocationInterceptor;

/**
 * The call's original invocation, re-exposed on the thread that finally runs the method.
 * <p>
 * Spring's AspectJ advice finds its invocation through {@link ExposeInvocationInterceptor}'s
 * thread-local, which the proxy fills only on the caller's thread. Advice ordered after
 * {@link DelayedExecutionAspect} (an {@code @Before}, an {@code args(..)} binding) runs later on an
 * executor thread, where that thread-local is empty and the advice would fail with "No
 * MethodInvocation found". So the delayed run goes through {@link ExposeInvocationInterceptor}
 * again with this view: it answers like the original invocation, whose user attributes hold the
 * pointcut matches, and proceeds through the join point, which continues the advice chain right
 * after this aspect.
 */
final class ExposedInvocation implements ProxyMethodInvocation {

	private final ProxyMethodInvocation original;

	private final ProceedingJoinPoint joinPoint;

	ExposedInvocation(ProxyMethodInvocation original, ProceedingJoinPoint joinPoint) {
		this.original = original;
		this.joinPoint = joinPoint;
	}

	/** Proceeds with the rest of the advice chain and the method, with the thread-local set. */
	@Nullable Object proceedExposed() throws Throwable {
		return ExposeInvocationInterceptor.INSTANCE.invoke(this);
	}

	@Override
	public @Nullable Object proceed() throws Throwable {
		return this.joinPoint.proceed();
	}

	@Override
	public Method getMethod() {
		return this.original.getMethod();
	}

	@Override
	public @Nullable Object[] getArguments() {
		return this.original.getArguments();
	}

	@Override
	public @Nullable Object getThis() {
		return this.original.getThis();
	}

	@Override
	public AccessibleObject getStaticPart() {
		return this.original.getStaticPart();
	}

	@Override
	public Object getProxy() {
		return this.original.getProxy();
	}

	@Override
	public MethodInvocation invocableClone() {
		return this.original.invocableClone();
	}

	@Override
	public MethodInvocation invocableClone(@Nullable Object... arguments) {
		return this.original.invocableClone(arguments);
	}

	@Override
	public void setArguments(@Nullable Object... arguments) {
		this.original.setArguments(arguments);
	}

	@Override
	public void setUserAttribute(String key, @Nullable Object value) {
		this.original.setUserAttribute(key, value);
	}

	@Override
	public @Nullable Object getUserAttribute(String key) {
		return this.original.getUserAttribute(key);
	}

}
