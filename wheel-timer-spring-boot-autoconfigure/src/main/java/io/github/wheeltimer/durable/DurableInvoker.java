package io.github.wheeltimer.durable;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import io.github.wheeltimer.annotation.DelayedExecutionBeanPostProcessor;
import org.aopalliance.intercept.MethodInterceptor;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.Advisor;
import org.springframework.aop.TargetSource;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.framework.ReflectiveMethodInvocation;
import org.springframework.aop.support.AopUtils;

/**
 * How a durable call reaches its method: through the bean's advice ({@code @Transactional},
 * {@code @Retryable}, the application's aspects) without the advice that delays calls, and with
 * the run's own last step innermost, inside any transaction the advice began. Built once per
 * bean from its proxy's configuration, so that a run never goes back through the public proxy.
 * <p>
 * Immutable and shared by every run of the bean's durable methods, on any executor thread; the
 * advice chain of each method is cached by Spring's {@code AdvisedSupport}.
 */
final class DurableInvoker {

	private final Object proxy;

	private final ProxyFactory advice;

	private final TargetSource targetSource;

	private final Class<?> targetClass;

	private DurableInvoker(Object proxy, ProxyFactory advice, TargetSource targetSource, Class<?> targetClass) {
		this.proxy = proxy;
		this.advice = advice;
		this.targetSource = targetSource;
		this.targetClass = targetClass;
	}

	/**
	 * Builds the invocation path of a bean.
	 * @param bean the bean as the application sees it: the proxy that delays its calls
	 * @throws IllegalStateException if the bean is not such a proxy
	 */
	static DurableInvoker of(Object bean, String beanName) {
		if (!(bean instanceof Advised advised)) {
			throw new IllegalStateException("Bean '" + beanName + "' has durable delayed methods but is not a proxy:"
					+ " its calls cannot be run");
		}
		ProxyFactory advice = new ProxyFactory();
		advice.setTargetSource(advised.getTargetSource());
		for (Advisor advisor : advised.getAdvisors()) {
			if (!DelayedExecutionBeanPostProcessor.isDelaying(advisor)) {
				advice.addAdvisor(advisor);
			}
		}
		Class<?> targetClass = advised.getTargetClass();
		return new DurableInvoker(bean, advice, advised.getTargetSource(),
				(targetClass != null) ? targetClass : AopUtils.getTargetClass(bean));
	}

	/**
	 * Runs the method through the bean's other advice, then {@code innermost}, then the method.
	 * @param method the annotated method, as the bean's class declares it
	 * @param arguments its arguments
	 * @param innermost the run's last step before the method
	 * @return what the method returned
	 * @throws Throwable what the method or its advice threw
	 */
	@Nullable Object invoke(Method method, @Nullable Object[] arguments, MethodInterceptor innermost) throws Throwable {
		List<Object> advice = this.advice.getInterceptorsAndDynamicInterceptionAdvice(method, this.targetClass);
		List<Object> chain = new ArrayList<>(advice.size() + 1);
		chain.addAll(advice);
		chain.add(innermost);
		Object target = this.targetSource.getTarget();
		try {
			return new Invocation(this.proxy, target, method, arguments, this.targetClass, chain).proceed();
		}
		finally {
			if (target != null && !this.targetSource.isStatic()) {
				this.targetSource.releaseTarget(target);
			}
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
