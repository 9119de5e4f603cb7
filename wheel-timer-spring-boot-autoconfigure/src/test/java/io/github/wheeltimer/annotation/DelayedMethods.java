package io.github.wheeltimer.annotation;

import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;

import io.github.wheeltimer.Timer;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * Builds {@link DelayedMethod}s outside a Spring context, for unit tests of the schedulers behind
 * them (the durable calls' engine), and calls them as the advice would.
 */
public final class DelayedMethods {

	/** The timer's bean name every method built here gives. */
	public static final String TIMER_BEAN_NAME = "testTimer";

	private DelayedMethods() {
	}

	/**
	 * Builds a durable method, observed by nothing.
	 * @param exceptionHandler what the failures of its {@code void} calls go to, or {@code null} for
	 * the log
	 * @return the method
	 */
	public static DelayedMethod durable(Method method, Duration delay, Timer timer, Executor executor,
			@Nullable DelayedExecutionExceptionHandler exceptionHandler) {
		Class<?> returns = method.getReturnType();
		boolean returnsFuture = Future.class.isAssignableFrom(returns) || CompletionStage.class.isAssignableFrom(returns);
		return new DelayedMethod(method, delay, TIMER_BEAN_NAME, timer, returnsFuture, executor, exceptionHandler,
				DelayedCallObserver.NONE, true, null);
	}

	/**
	 * Calls a delayed method as its advice does: hands the call to its scheduler, on this thread.
	 * @param method the method
	 * @param target the bean called
	 * @param arguments the call's arguments
	 * @return {@code null} for a {@code void} method, else the caller's future
	 */
	public static @Nullable Object call(DelayedMethod method, DelayedCallScheduler scheduler, Object target,
			@Nullable Object... arguments) {
		return new ResolvedMethod(method, scheduler).schedule(new Call(method.method(), target, arguments));
	}

	/** The invocation the advice would hand over: a scheduler reads its arguments, never proceeds. */
	private record Call(Method method, Object target, @Nullable Object[] arguments) implements MethodInvocation {

		@Override
		public Method getMethod() {
			return this.method;
		}

		@Override
		public @Nullable Object[] getArguments() {
			return this.arguments;
		}

		@Override
		public @Nullable Object proceed() {
			throw new UnsupportedOperationException("A delayed call does not proceed on its caller's thread");
		}

		@Override
		public Object getThis() {
			return this.target;
		}

		@Override
		public AccessibleObject getStaticPart() {
			return this.method;
		}

	}

}
