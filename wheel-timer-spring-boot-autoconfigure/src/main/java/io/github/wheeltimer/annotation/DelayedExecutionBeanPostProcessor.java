package io.github.wheeltimer.annotation;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.AopConfigException;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.util.ReflectionUtils;

/**
 * Applies {@link DelayedExecution} to the beans that have annotated methods: a bean post-processor
 * that adds one advisor (an annotation pointcut and the interceptor that puts calls on a timer),
 * as Spring's {@code AsyncAnnotationBeanPostProcessor} does for {@code @Async}. It needs neither
 * AspectJ nor auto-proxying.
 * <p>
 * The advisor goes <em>before</em> any advisor already on a bean's proxy, so that all other
 * advice on the method ({@code @Transactional}, {@code @Retryable}, your own aspects) runs when
 * the delayed call runs, on the executor's thread, and not when the method is called. A bean that
 * no other advice proxies gets a proxy of its own.
 */
public class DelayedExecutionBeanPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {

	private final ObjectProvider<DelayedMethodRegistry> registry;

	/**
	 * Creates the post-processor.
	 * @param registry the resolved {@link DelayedExecution} methods, asked for on the first call
	 * only, so that creating this post-processor early does not create the registry early
	 */
	public DelayedExecutionBeanPostProcessor(ObjectProvider<DelayedMethodRegistry> registry) {
		this.registry = registry;
		setBeforeExistingAdvisors(true);
	}

	/**
	 * Proxies the bean; a final class, which a class-based proxy cannot subclass, fails naming
	 * its delayed method and the fix, rather than with CGLIB's generic error.
	 */
	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		try {
			return super.postProcessAfterInitialization(bean, beanName);
		}
		catch (AopConfigException ex) {
			Class<?> type = bean.getClass();
			Method delayed = Modifier.isFinal(type.getModifiers()) ? firstDelayedMethod(type) : null;
			if (delayed == null) {
				throw ex;
			}
			throw new InvalidDelayedExecutionException(delayed, "its class " + type.getName() + " is final, so Spring"
					+ " cannot make the proxy that delays its calls (a subclass). Remove final; in Kotlin, declare"
					+ " the class open, or annotate it with a Spring stereotype such as @Service so that the"
					+ " kotlin-spring plugin opens it", ex);
		}
	}

	private static @Nullable Method firstDelayedMethod(Class<?> type) {
		for (Method method : ReflectionUtils.getUniqueDeclaredMethods(type, ReflectionUtils.USER_DECLARED_METHODS)) {
			if (method.isAnnotationPresent(DelayedExecution.class)) {
				return method;
			}
		}
		return null;
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		super.setBeanFactory(beanFactory);
		// Only the annotation on the method itself counts, as for the registry: one on an interface
		// method fails startup there instead of silently applying to some implementations only.
		this.advisor = new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(null, DelayedExecution.class, false),
				new DelayedExecutionInterceptor(this.registry));
	}

}
