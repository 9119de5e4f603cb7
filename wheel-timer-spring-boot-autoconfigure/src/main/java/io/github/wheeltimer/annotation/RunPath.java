package io.github.wheeltimer.annotation;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

import org.aopalliance.intercept.MethodInterceptor;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.ProxyFactory;

/**
 * How a delayed call's run reaches its method: through the bean's advice ({@code @Transactional},
 * the application's aspects) without the advice that delays calls and without the retry
 * interceptor of {@code @EnableResilientMethods} (the wheel retries, see {@link DelayedRetry}),
 * and with the run's own last step innermost, inside any transaction the advice began. Built once
 * per bean from its proxy's configuration, so that a run never goes back through the public
 * proxy. Durable calls run through it; in-memory calls of a {@code @Retryable} method too, each
 * attempt anew.
 * <p>
 * The path is a proxy of Spring's own over that advice, a JDK proxy whose handler each run calls
 * with the bean's public proxy: Spring then does for the run what the bean's proxy does for a call,
 * exposing the public proxy as {@code AopContext.currentProxy()} when the bean's proxy exposes
 * itself (so that a call through it is delayed as any other), getting and releasing the target,
 * and answering {@code return this} with the proxy. Immutable and shared by every run of the bean's
 * delayed methods, on any executor thread; the advice chain of each method is cached by Spring's
 * {@code AdvisedSupport}.
 */
public final class RunPath {

	/** The run's last step, for the run on this thread: the path's innermost advice hands over to it. */
	private static final ThreadLocal<MethodInterceptor> lastStep = new ThreadLocal<>();

	/** The innermost advice of every path. */
	private static final MethodInterceptor LAST_STEP = (invocation) -> {
		MethodInterceptor last = lastStep.get();
		return (last != null) ? last.invoke(invocation) : invocation.proceed();
	};

	/** The bean as the application sees it. */
	private final Object proxy;

	/** The handler of Spring's proxy over the path's advice. */
	private final InvocationHandler advice;

	private RunPath(Object proxy, InvocationHandler advice) {
		this.proxy = proxy;
		this.advice = advice;
	}

	/**
	 * Builds the invocation path of a bean.
	 * @param bean the bean as the application sees it: the proxy that delays its calls
	 * @param beanName its name, for the error
	 * @return its path
	 * @throws IllegalStateException if the bean is not such a proxy
	 */
	public static RunPath of(Object bean, String beanName) {
		if (!(bean instanceof Advised advised)) {
			throw new IllegalStateException("Bean '" + beanName + "' has durable delayed methods but is not a proxy:"
					+ " its calls cannot be run");
		}
		ProxyFactory path = new ProxyFactory();
		path.setTargetSource(advised.getTargetSource());
		for (Advisor advisor : advised.getAdvisors()) {
			if (!DelayingAdvice.isDelaying(advisor) && !DelayedRetry.isSpringRetry(advisor)) {
				path.addAdvisor(advisor);
			}
		}
		path.addAdvice(LAST_STEP);
		path.setExposeProxy(advised.isExposeProxy());
		// An interface of its own makes Spring's proxy a JDK one, whose handler takes the proxy to expose.
		path.setInterfaces(Path.class);
		return new RunPath(bean, Proxy.getInvocationHandler(path.getProxy(RunPath.class.getClassLoader())));
	}

	/**
	 * Runs the method through the bean's other advice, then {@code innermost}, then the method.
	 * @param method the annotated method, as the bean's class declares it
	 * @param arguments its arguments
	 * @param innermost the run's last step before the method, or {@code null} for none
	 * @return what the method returned
	 * @throws Throwable what the method or its advice threw
	 */
	public @Nullable Object invoke(Method method, @Nullable Object[] arguments, @Nullable MethodInterceptor innermost)
			throws Throwable {
		// A delayed method may run another's call inline (a test's virtual time does): each its own step.
		MethodInterceptor outer = lastStep.get();
		lastStep.set(innermost);
		try {
			return this.advice.invoke(this.proxy, method, arguments);
		}
		finally {
			if (outer != null) {
				lastStep.set(outer);
			}
			else {
				lastStep.remove();
			}
		}
	}

	/**
	 * What the path's own proxy implements, so that Spring makes it a JDK proxy. Nothing calls
	 * through that proxy: only its handler is kept.
	 */
	interface Path {

	}

}
