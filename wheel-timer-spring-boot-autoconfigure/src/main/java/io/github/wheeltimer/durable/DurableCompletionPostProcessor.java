package io.github.wheeltimer.durable;

import java.lang.reflect.Method;

import io.github.wheeltimer.annotation.DelayedExecution;

import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Adds the {@link DurableCompletionInterceptor} to beans with durable methods, after every advice
 * they already have (their {@code @Transactional} among them), so that it runs inside the
 * method's own transaction.
 */
public final class DurableCompletionPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {

	/**
	 * Creates the post-processor.
	 * @param calls the durable calls, looked up when a call runs
	 */
	public DurableCompletionPostProcessor(ObjectProvider<DurableCalls> calls) {
		this.advisor = new DefaultPointcutAdvisor(new DurableMethodPointcut(), new DurableCompletionInterceptor(calls));
		setBeforeExistingAdvisors(false);
	}

	private static final class DurableMethodPointcut extends StaticMethodMatcherPointcut {

		@Override
		public boolean matches(Method method, Class<?> targetClass) {
			DelayedExecution annotation = AopUtils.getMostSpecificMethod(method, targetClass)
				.getAnnotation(DelayedExecution.class);
			return annotation != null && annotation.durable();
		}

	}

}
