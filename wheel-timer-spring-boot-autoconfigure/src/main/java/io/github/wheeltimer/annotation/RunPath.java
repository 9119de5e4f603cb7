package io.github.wheeltimer.annotation;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import org.aopalliance.intercept.MethodInterceptor;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.Advisor;
import org.springframework.aop.TargetSource;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.AopContext;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.framework.ReflectiveMethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.util.ReflectionUtils;

/**
 * How a delayed call's run reaches its method: through the bean's advice ({@code @Transactional},
 * the application's aspects) without the advice that delays calls and without the retry
 * interceptor of {@code @EnableResilientMethods} (the wheel retries, see {@link DelayedRetry}),
 * and with the run's own last step innermost, inside any transaction the advice began. Built once
 * per bean from its proxy's configuration, so that a run never goes back through the public
 * proxy. Durable calls run through it; in-memory calls of a {@code @Retryable} method too, each
 * attempt anew.
 * <p>
 * Immutable and shared by every run of the bean's delayed methods, on any executor thread; the
 * advice chain of each method is cached by Spring's {@code AdvisedSupport}.
 */
public final class RunPath {

	private final Object proxy;

	private final ProxyFactory advice;

	private final TargetSource targetSource;

	private final Class<?> targetClass;

	/** Whether the bean's proxy exposes itself to the method ({@code AopContext.currentProxy()}). */
	private final boolean exposeProxy;

	private RunPath(Object proxy, ProxyFactory advice, TargetSource targetSource, Class<?> targetClass,
			boolean exposeProxy) {
		this.proxy = proxy;
		this.advice = advice;
		this.targetSource = targetSource;
		this.targetClass = targetClass;
		this.exposeProxy = exposeProxy;
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
		ProxyFactory advice = new ProxyFactory();
		advice.setTargetSource(advised.getTargetSource());
		for (Advisor advisor : advised.getAdvisors()) {
			if (!DelayedExecutionBeanPostProcessor.isDelaying(advisor) && !DelayedRetry.isSpringRetry(advisor)) {
				advice.addAdvisor(advisor);
			}
		}
		Class<?> targetClass = advised.getTargetClass();
		return new RunPath(bean, advice, advised.getTargetSource(),
				(targetClass != null) ? targetClass : AopUtils.getTargetClass(bean), advised.isExposeProxy());
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
		Object target = this.targetSource.getTarget();
		// As a proxy does: the class of the target this call gets, for a target source that is not static.
		Class<?> targetClass = (target != null) ? target.getClass() : this.targetClass;
		List<Object> advice = this.advice.getInterceptorsAndDynamicInterceptionAdvice(method, targetClass);
		List<Object> chain = new ArrayList<>(advice.size() + 1);
		chain.addAll(advice);
		if (innermost != null) {
			chain.add(innermost);
		}
		Object exposed = this.exposeProxy ? ExposedProxy.set(this.proxy) : null;
		try {
			return new Invocation(this.proxy, target, method, arguments, targetClass, chain).proceed();
		}
		finally {
			if (this.exposeProxy) {
				ExposedProxy.set(exposed);
			}
			if (target != null && !this.targetSource.isStatic()) {
				this.targetSource.releaseTarget(target);
			}
		}
	}

	/**
	 * {@code AopContext.currentProxy()} for the method, as the bean's proxy sets it when it exposes
	 * itself: the public proxy, so that a call through it is delayed as any other. Spring keeps the
	 * setter to its own proxies; it is reached here reflectively (with a runtime hint for native
	 * images), only for beans that expose their proxy.
	 */
	static final class ExposedProxy {

		private static final Method SETTER;

		static {
			Method setter = ReflectionUtils.findMethod(AopContext.class, "setCurrentProxy", Object.class);
			if (setter == null) {
				throw new IllegalStateException("AopContext.setCurrentProxy(Object) is gone from Spring AOP");
			}
			ReflectionUtils.makeAccessible(setter);
			SETTER = setter;
		}

		private ExposedProxy() {
		}

		/** @return the proxy exposed before */
		static @Nullable Object set(@Nullable Object proxy) {
			return ReflectionUtils.invokeMethod(SETTER, null, proxy);
		}

	}

	/** Spring's own invocation of an advice chain; its constructor is for subclasses. */
	private static final class Invocation extends ReflectiveMethodInvocation {

		Invocation(Object proxy, @Nullable Object target, Method method, @Nullable Object[] arguments,
				Class<?> targetClass, List<Object> chain) {
			super(proxy, target, method, arguments, targetClass, chain);
		}

	}

}
