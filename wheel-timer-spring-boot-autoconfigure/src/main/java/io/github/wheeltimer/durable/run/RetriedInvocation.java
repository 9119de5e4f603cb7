package io.github.wheeltimer.durable.run;

import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Method;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * A durable call's attempt as {@code MethodRetryEvent} listeners read it: its method and its
 * arguments. The run that failed is over, so it cannot proceed.
 */
record RetriedInvocation(Method method, @Nullable Object @Nullable [] arguments) implements MethodInvocation {

	@Override
	public Method getMethod() {
		return this.method;
	}

	@Override
	public @Nullable Object[] getArguments() {
		return (this.arguments != null) ? this.arguments : new Object[0];
	}

	@Override
	public @Nullable Object proceed() {
		throw new UnsupportedOperationException("The attempt of a durable call has ended: it cannot proceed");
	}

	@Override
	public @Nullable Object getThis() {
		return null;
	}

	@Override
	public AccessibleObject getStaticPart() {
		return this.method;
	}

}
