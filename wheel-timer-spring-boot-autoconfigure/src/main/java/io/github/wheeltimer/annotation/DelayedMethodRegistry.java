package io.github.wheeltimer.annotation;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.autoproxy.AutoProxyUtils;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * The application's {@link DelayedExecution} methods: finds every one among the beans at startup,
 * has each annotation resolved once into a {@link DelayedMethod}, and fails startup with an
 * {@link InvalidDelayedExecutionException} naming the method if one is wrong. At call time it maps
 * the method a proxy sees to its resolved description.
 * <p>
 * Registered by the auto-configuration; {@link #methods()} is what monitoring, the lifecycle and
 * tests read.
 */
public final class DelayedMethodRegistry
		implements BeanFactoryAware, ApplicationEventPublisherAware, SmartInitializingSingleton {

	private final Function<String, ? extends Executor> executors;

	private @Nullable ConfigurableListableBeanFactory beanFactory;

	private @Nullable DelayedMethodResolver resolver;

	/** Where {@code MethodRetryEvent}s of retried calls go: the application context. */
	private @Nullable ApplicationEventPublisher events;

	/** One resolved method per annotated method. */
	private final ConcurrentMap<Method, ResolvedMethod> methods = new ConcurrentHashMap<>();

	/** The bean that runs each durable method's calls, by method. */
	private final ConcurrentMap<Method, String> durableBeans = new ConcurrentHashMap<>();

	/** The call path's cache: the method a proxy sees, and the target class, to the resolved method. */
	private final ConcurrentMap<MethodClassKey, ResolvedMethod> methodsByCall = new ConcurrentHashMap<>();

	/**
	 * Creates a registry.
	 * @param executors gives, for a timer's bean name, the executor that runs the delayed methods
	 * of that timer; asked when a method on that timer is resolved, failing startup if it throws
	 */
	public DelayedMethodRegistry(Function<String, ? extends Executor> executors) {
		this.executors = executors;
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		if (!(beanFactory instanceof ConfigurableListableBeanFactory configurable)) {
			throw new IllegalArgumentException(
					"DelayedMethodRegistry needs a ConfigurableListableBeanFactory, got " + beanFactory);
		}
		this.beanFactory = configurable;
		this.resolver = new DelayedMethodResolver(configurable, this.executors, () -> this.events);
	}

	@Override
	public void setApplicationEventPublisher(ApplicationEventPublisher events) {
		this.events = events;
	}

	/**
	 * Resolves the annotation of every {@link DelayedExecution} method of the beans defined in the
	 * context, and warns about those that their own bean calls directly.
	 * @throws InvalidDelayedExecutionException if an annotation is wrong
	 */
	@Override
	public void afterSingletonsInstantiated() {
		ConfigurableListableBeanFactory beanFactory = beanFactory();
		// Each type once: its first delayed method (to name in a failure), or empty if it has none.
		Map<Class<?>, Optional<Method>> inspected = new HashMap<>();
		for (String beanName : beanFactory.getBeanDefinitionNames()) {
			if (ScopedProxyUtils.isScopedTarget(beanName)) {
				continue;
			}
			Class<?> type = AutoProxyUtils.determineTargetClass(beanFactory, beanName);
			Class<?> userType = (type != null) ? ClassUtils.getUserClass(type) : null;
			if (userType == null) {
				continue;
			}
			Optional<Method> delayed = inspected.get(userType);
			if (delayed == null) {
				delayed = Optional.ofNullable(registerMethodsOf(userType, beanName));
				inspected.put(userType, delayed);
			}
			else if (delayed.isPresent()) {
				requireOneBeanIfDurable(userType, beanName);
			}
			delayed.ifPresent((method) -> requireIntercepted(beanName, method));
		}
		SelfInvocations
			.warnAbout(inspected.keySet().stream().filter((type) -> inspected.get(type).isPresent()).toList());
	}

	/**
	 * A bean created before the post-processor that applies {@link DelayedExecution} (say, one a
	 * {@code BeanPostProcessor} depends on) has no proxy, and its calls would run at once: fail
	 * instead. Only singletons that exist are checked; a lazy or scoped bean is proxied when
	 * created, as every bean created after startup is.
	 */
	private void requireIntercepted(String beanName, Method delayed) {
		ConfigurableListableBeanFactory beanFactory = beanFactory();
		if (!beanFactory.containsSingleton(beanName) || beanFactory.isFactoryBean(beanName)) {
			return;
		}
		Object bean = beanFactory.getSingleton(beanName);
		boolean intercepted = bean instanceof Advised advised && Arrays.stream(advised.getAdvisors())
			.anyMatch(DelayingAdvice::isDelaying);
		if (!intercepted) {
			throw new InvalidDelayedExecutionException(delayed, "its bean '" + beanName + "' was created before"
					+ " the post-processor that delays its calls, so they would run at once. Is it a dependency of a"
					+ " BeanPostProcessor or a BeanFactoryPostProcessor? Inject it there lazily (ObjectProvider or"
					+ " @Lazy)");
		}
	}

	/**
	 * Returns the resolved {@link DelayedExecution} methods, sorted by description.
	 * @return the methods
	 */
	public List<DelayedMethod> methods() {
		List<DelayedMethod> methods = new ArrayList<>(this.methods.size());
		this.methods.values().forEach((resolved) -> methods.add(resolved.method()));
		methods.sort(Comparator.comparing(DelayedMethod::description));
		return methods;
	}

	/**
	 * Returns the methods with calls in flight (handed to their executor and not finished),
	 * sorted by description: what shutdown and a virtual clock wait for.
	 * @return the methods in flight, empty if none
	 */
	public List<DelayedMethod> inFlight() {
		return methods().stream().filter((method) -> method.inFlight() > 0).toList();
	}

	/** Finds the resolved method for a call; resolves it now if startup did not see it. */
	ResolvedMethod lookup(Method method, Class<?> targetClass) {
		MethodClassKey key = new MethodClassKey(method, targetClass);
		ResolvedMethod found = this.methodsByCall.get(key);
		if (found == null) {
			found = register(AopUtils.getMostSpecificMethod(method, targetClass), null);
			this.methodsByCall.putIfAbsent(key, found);
		}
		return found;
	}

	/**
	 * A durable call names its method, and runs on the one bean that declares it: a second bean of
	 * the same class would have its calls run on the first.
	 */
	private void requireOneBeanIfDurable(Class<?> type, String beanName) {
		this.durableBeans.forEach((method, durableBean) -> {
			if (method.getDeclaringClass().isAssignableFrom(type) && !durableBean.equals(beanName)) {
				throw new InvalidDelayedExecutionException(method, "its calls are durable and run on one"
						+ " bean, but beans '" + durableBean + "' and '" + beanName + "' are both of"
						+ " type " + type.getName() + "; make it one bean, or move the method into a bean of its own");
			}
		});
	}

	/** @return one of the type's delayed methods, or {@code null} if it has none */
	private @Nullable Method registerMethodsOf(Class<?> type, String beanName) {
		if (!AnnotationUtils.isCandidateClass(type, DelayedExecution.class)) {
			return null;
		}
		Method first = null;
		for (Method method : ReflectionUtils.getUniqueDeclaredMethods(type, ReflectionUtils.USER_DECLARED_METHODS)) {
			if (method.isAnnotationPresent(DelayedExecution.class)) {
				ResolvedMethod registered = register(method, beanName);
				this.methodsByCall.putIfAbsent(new MethodClassKey(method, type), registered);
				first = (first != null) ? first : method;
			}
			else if (AnnotatedElementUtils.findMergedAnnotation(method, DelayedExecution.class) != null) {
				throw new InvalidDelayedExecutionException(method, "the annotation is on a declaration that this"
						+ " method overrides (in an interface or a superclass); proxies only see annotations on the"
						+ " implementing method, so calls would run at once. Annotate "
						+ MethodNames.describe(method) + " itself");
			}
		}
		return first;
	}

	/** Resolves each method once; two threads racing on a method's first call keep the first answer. */
	private ResolvedMethod register(Method method, @Nullable String beanName) {
		ResolvedMethod registered = this.methods.get(method);
		if (registered == null) {
			registered = resolver().resolve(method, beanName);
			ResolvedMethod raced = this.methods.putIfAbsent(method, registered);
			if (raced != null) {
				registered = raced;
			}
			else if (registered.method().isDurable() && beanName != null) {
				this.durableBeans.put(method, beanName);
			}
		}
		return registered;
	}

	private ConfigurableListableBeanFactory beanFactory() {
		if (this.beanFactory == null) {
			throw new IllegalStateException("DelayedMethodRegistry is used before its bean factory was set");
		}
		return this.beanFactory;
	}

	private DelayedMethodResolver resolver() {
		if (this.resolver == null) {
			throw new IllegalStateException("DelayedMethodRegistry is used before its bean factory was set");
		}
		return this.resolver;
	}

}
