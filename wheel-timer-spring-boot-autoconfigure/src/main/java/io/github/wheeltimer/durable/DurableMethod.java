package io.github.wheeltimer.durable;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

import io.github.wheeltimer.annotation.DelayedMethod;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.util.ReflectionUtils;

/**
 * The durable side of a {@code @DelayedExecution(durable = true)} method, resolved once at
 * startup: its stable id, its key expression, how its arguments become JSON and back, and the
 * bean whose proxy runs it when a row falls due.
 * <p>
 * Immutable and shared by every call; the proxy is looked up on the first call that runs, by
 * whichever executor thread that is (a racing lookup only repeats it).
 */
public final class DurableMethod {

	private final DelayedMethod method;

	private final String id;

	private final @Nullable Expression key;

	private final DurableArguments arguments;

	private final String beanName;

	private final BeanFactory beanFactory;

	private final DurableCalls calls;

	private volatile @Nullable Object proxy;

	DurableMethod(DelayedMethod method, String id, @Nullable Expression key, DurableArguments arguments,
			String beanName, BeanFactory beanFactory, DurableCalls calls) {
		this.method = method;
		this.id = id;
		this.key = key;
		this.arguments = arguments;
		this.beanName = beanName;
		this.beanFactory = beanFactory;
		this.calls = calls;
	}

	/**
	 * Returns the stable id stored with each call.
	 * @return the method id
	 */
	public String id() {
		return this.id;
	}

	/**
	 * Returns the delayed method this is the durable side of.
	 * @return the method
	 */
	public DelayedMethod method() {
		return this.method;
	}

	/**
	 * Writes the call as a row and returns at once; called by the method's advice, in the caller's
	 * thread. Not for application code.
	 * @param invocation the call
	 * @return {@code null} for a {@code void} method, else the caller's future
	 */
	public @Nullable Object schedule(MethodInvocation invocation) {
		@Nullable Object[] values = invocation.getArguments();
		return this.calls.schedule(this, keyOf(values), this.arguments.write(values));
	}

	/**
	 * Returns the name of the bean whose proxy runs the calls.
	 * @return the bean name
	 */
	public String beanName() {
		return this.beanName;
	}

	DurableArguments arguments() {
		return this.arguments;
	}

	DurableCalls calls() {
		return this.calls;
	}

	/** Runs the method through its bean's proxy, so that every other advice applies. */
	@Nullable Object invoke(@Nullable Object[] values) throws Throwable {
		Object proxy = this.proxy;
		if (proxy == null) {
			proxy = this.beanFactory.getBean(this.beanName);
			this.proxy = proxy;
		}
		Method invocable = AopUtils.selectInvocableMethod(this.method.method(), proxy.getClass());
		// A public method of a package-private bean class, as @Scheduled methods may be too.
		ReflectionUtils.makeAccessible(invocable);
		try {
			return invocable.invoke(proxy, values);
		}
		catch (InvocationTargetException ex) {
			throw (ex.getCause() != null) ? ex.getCause() : ex;
		}
	}

	private @Nullable String keyOf(@Nullable Object[] values) {
		if (this.key == null) {
			return null;
		}
		Object value = this.key.getValue(
				new MethodBasedEvaluationContext(null, this.method.method(), values, KeyVariables.parameterNames));
		if (value == null) {
			throw new IllegalArgumentException("The key \"" + this.key.getExpressionString() + "\" of the durable"
					+ " delayed method " + this.method.description() + " evaluated to null; a key names the pending"
					+ " call, so it must have a value");
		}
		String text = value.toString();
		if (!storable(text)) {
			throw new IllegalArgumentException("The key \"" + this.key.getExpressionString() + "\" of the durable"
					+ " delayed method " + this.method.description() + " gave a value of " + text.length()
					+ " characters" + ((text.indexOf('\0') >= 0) ? " holding a NUL character" : "")
					+ "; a key is stored as text of at most " + DurableCallStore.KEY_LENGTH
					+ " characters (UTF-16 units), without NUL");
		}
		return text;
	}

	/** @return whether a key's text fits its column on every supported database */
	static boolean storable(String key) {
		return key.length() <= DurableCallStore.KEY_LENGTH && key.indexOf('\0') < 0;
	}

	@Override
	public String toString() {
		return this.id + " (" + this.method.description() + ")";
	}

}
