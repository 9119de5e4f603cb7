package io.github.wheeltimer.annotation;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

import io.github.wheeltimer.Timer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.aspectj.annotation.AnnotationAwareAspectJAutoProxyCreator;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.aop.framework.autoproxy.AutoProxyUtils;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.config.EmbeddedValueResolver;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.format.annotation.DurationFormat;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;
import org.springframework.util.function.SingletonSupplier;

/**
 * Finds every {@link DelayedExecution} method of the application's beans at startup, resolves each
 * annotation once into a {@link DelayedMethod}, and fails startup with an
 * {@link InvalidDelayedExecutionException} naming the method if one is wrong. Also holds what the
 * delayed calls share: the executor that runs them and the
 * {@link DelayedExecutionExceptionHandler}.
 * <p>
 * Registered by the auto-configuration; {@link #methods()} is what monitoring reads.
 */
public final class DelayedMethodRegistry implements BeanFactoryAware, SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(DelayedMethodRegistry.class);

	private static final Set<Class<?>> SUPPORTED_RETURN_TYPES = Set.of(void.class, CompletableFuture.class,
			CompletionStage.class, Future.class);

	private static final Duration IN_FLIGHT_POLL = Duration.ofMillis(10);

	private final SingletonSupplier<Executor> executor;

	private @Nullable ConfigurableListableBeanFactory beanFactory;

	private @Nullable StringValueResolver valueResolver;

	/** One resolved method per annotated method. */
	private final ConcurrentMap<Method, DelayedMethod> methods = new ConcurrentHashMap<>();

	/** The call path's cache: the method a proxy sees, and the target class, to the resolved method. */
	private final ConcurrentMap<MethodClassKey, DelayedMethod> methodsByCall = new ConcurrentHashMap<>();

	/**
	 * Creates a registry.
	 * @param executor supplies the executor that runs delayed methods; asked once, when the first
	 * {@link DelayedExecution} method is found, and failing startup if it throws
	 */
	public DelayedMethodRegistry(Supplier<? extends Executor> executor) {
		this.executor = SingletonSupplier.of(executor::get);
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		if (!(beanFactory instanceof ConfigurableListableBeanFactory configurable)) {
			throw new IllegalArgumentException(
					"DelayedMethodRegistry needs a ConfigurableListableBeanFactory, got " + beanFactory);
		}
		this.beanFactory = configurable;
		this.valueResolver = new EmbeddedValueResolver(configurable);
	}

	/**
	 * Resolves the annotation of every {@link DelayedExecution} method of the beans defined in the
	 * context, and the executor and exception handler if there is at least one.
	 * @throws InvalidDelayedExecutionException if an annotation is wrong
	 */
	@Override
	public void afterSingletonsInstantiated() {
		ConfigurableListableBeanFactory beanFactory = beanFactory();
		Set<Class<?>> inspected = new HashSet<>();
		for (String beanName : beanFactory.getBeanDefinitionNames()) {
			if (ScopedProxyUtils.isScopedTarget(beanName)) {
				continue;
			}
			Class<?> type = AutoProxyUtils.determineTargetClass(beanFactory, beanName);
			Class<?> userType = (type != null) ? ClassUtils.getUserClass(type) : null;
			if (userType != null && inspected.add(userType)) {
				registerMethodsOf(userType);
			}
		}
		if (!this.methods.isEmpty()) {
			requireAspectJAutoProxying();
			executor();
			exceptionHandler();
		}
	}

	/**
	 * Returns the resolved {@link DelayedExecution} methods, sorted by description.
	 * @return the methods
	 */
	public List<DelayedMethod> methods() {
		List<DelayedMethod> methods = new ArrayList<>(this.methods.values());
		methods.sort(Comparator.comparing(DelayedMethod::description));
		return methods;
	}

	/**
	 * Waits until no delayed method is running or queued in the executor, or the timeout passes.
	 * @param timeout how long to wait at most
	 * @return the methods still in flight when the wait ended, empty if none
	 */
	public List<DelayedMethod> awaitInFlight(Duration timeout) {
		long start = System.nanoTime();
		List<DelayedMethod> inFlight = inFlight();
		while (!inFlight.isEmpty()) {
			Duration remaining = timeout.minusNanos(System.nanoTime() - start);
			if (remaining.isNegative() || remaining.isZero() || Thread.currentThread().isInterrupted()) {
				break;
			}
			// Only at shutdown: a short poll keeps the per-call path free of any wake-up signalling.
			LockSupport.parkNanos(((remaining.compareTo(IN_FLIGHT_POLL) < 0) ? remaining : IN_FLIGHT_POLL).toNanos());
			inFlight = inFlight();
		}
		return inFlight;
	}

	private List<DelayedMethod> inFlight() {
		return methods().stream().filter((method) -> method.inFlight() > 0).toList();
	}

	/** Finds the resolved method for a call; resolves it now if startup did not see it. */
	DelayedMethod lookup(Method method, Class<?> targetClass) {
		MethodClassKey key = new MethodClassKey(method, targetClass);
		DelayedMethod found = this.methodsByCall.get(key);
		if (found == null) {
			found = register(AopUtils.getMostSpecificMethod(method, targetClass));
			this.methodsByCall.putIfAbsent(key, found);
		}
		return found;
	}

	Executor executor() {
		return this.executor.obtain();
	}

	void handleFailure(Throwable ex, DelayedMethod method, @Nullable Object[] arguments) {
		DelayedExecutionExceptionHandler handler = exceptionHandler();
		if (handler != null) {
			try {
				handler.handleUncaughtException(ex, method.method(), arguments);
				return;
			}
			catch (Throwable handlerFailure) {
				logger.error("DelayedExecutionExceptionHandler " + handler + " failed to handle the failure of a"
						+ " delayed call to " + method.description(), handlerFailure);
			}
		}
		logger.error("Delayed call to " + method.description() + " failed", ex);
	}

	/** Looked up when needed: failures are rare, and the bean factory caches lookups by type. */
	private @Nullable DelayedExecutionExceptionHandler exceptionHandler() {
		return beanFactory().getBeanProvider(DelayedExecutionExceptionHandler.class).getIfAvailable();
	}

	private void registerMethodsOf(Class<?> type) {
		if (!AnnotationUtils.isCandidateClass(type, DelayedExecution.class)) {
			return;
		}
		for (Method method : ReflectionUtils.getUniqueDeclaredMethods(type, ReflectionUtils.USER_DECLARED_METHODS)) {
			if (method.isAnnotationPresent(DelayedExecution.class)) {
				DelayedMethod registered = register(method);
				this.methodsByCall.putIfAbsent(new MethodClassKey(method, type), registered);
			}
			else if (AnnotatedElementUtils.findMergedAnnotation(method, DelayedExecution.class) != null) {
				throw new InvalidDelayedExecutionException(method, "the annotation is on a declaration that this"
						+ " method overrides (in an interface or a superclass); proxies only see annotations on the"
						+ " implementing method, so calls would run at once. Annotate "
						+ DelayedMethod.describe(method) + " itself");
			}
		}
	}

	private DelayedMethod register(Method method) {
		DelayedMethod registered = this.methods.get(method);
		if (registered == null) {
			registered = resolve(method);
			DelayedMethod raced = this.methods.putIfAbsent(method, registered);
			if (raced != null) {
				registered = raced;
			}
		}
		return registered;
	}

	private DelayedMethod resolve(Method method) {
		DelayedExecution annotation = method.getAnnotation(DelayedExecution.class);
		if (annotation == null) {
			throw new InvalidDelayedExecutionException(method, "the annotation is not on this method itself;"
					+ " proxies only see annotations on the implementing method");
		}
		requireInterceptable(method);
		Class<?> returnType = method.getReturnType();
		if (!SUPPORTED_RETURN_TYPES.contains(returnType)) {
			throw new InvalidDelayedExecutionException(method, "its return type " + returnType.getName()
					+ " is not supported: a delayed call returns before the method runs, so the method must"
					+ " return void, CompletableFuture, CompletionStage or Future");
		}
		Duration delay = delay(method, annotation);
		String timerName = annotation.timer();
		String timerBeanName = StringUtils.hasText(timerName) ? timerName : defaultTimerName(method);
		Timer timer = timer(method, timerBeanName);
		return new DelayedMethod(method, delay, timerBeanName, timer, returnType != void.class, this);
	}

	private void requireInterceptable(Method method) {
		int modifiers = method.getModifiers();
		String problem = Modifier.isPrivate(modifiers) ? "private" : Modifier.isStatic(modifiers) ? "static"
				: Modifier.isFinal(modifiers) ? "final" : null;
		if (problem != null) {
			throw new InvalidDelayedExecutionException(method, "it is " + problem
					+ ", so Spring's proxy cannot intercept it and calls would run at once; make it a public,"
					+ " non-final instance method");
		}
	}

	private Duration delay(Method method, DelayedExecution annotation) {
		boolean hasDelay = annotation.delay() != -1;
		boolean hasDelayString = StringUtils.hasText(annotation.delayString());
		if (hasDelay == hasDelayString) {
			throw new InvalidDelayedExecutionException(method, (hasDelay ? "both delay (" + annotation.delay()
					+ ") and delayString (\"" + annotation.delayString() + "\") are given"
					: "neither delay nor delayString is given") + "; give exactly one");
		}
		Duration delay = hasDelay ? toDuration(method, annotation.delay(), annotation.timeUnit())
				: parse(method, annotation.delayString(), annotation.timeUnit());
		if (delay.isNegative()) {
			throw new InvalidDelayedExecutionException(method, "the delay " + describe(annotation)
					+ " is negative; it must be zero or more");
		}
		return delay;
	}

	private static Duration toDuration(Method method, long delay, TimeUnit unit) {
		try {
			return Duration.of(delay, unit.toChronoUnit());
		}
		catch (ArithmeticException tooLong) {
			throw new InvalidDelayedExecutionException(method,
					"the delay " + delay + " " + unit + " is too long for a java.time.Duration", tooLong);
		}
	}

	private Duration parse(Method method, String delayString, TimeUnit unit) {
		String resolved;
		try {
			resolved = valueResolver().resolveStringValue(delayString);
		}
		catch (BeansException | IllegalArgumentException ex) {
			throw new InvalidDelayedExecutionException(method,
					"delayString \"" + delayString + "\" cannot be resolved: " + ex.getMessage(), ex);
		}
		String value = (resolved != null) ? resolved.trim() : "";
		String shown = value.equals(delayString) ? "\"" + delayString + "\""
				: "\"" + delayString + "\" (resolved to \"" + value + "\")";
		if (value.isEmpty()) {
			throw new InvalidDelayedExecutionException(method, "delayString " + shown + " is empty");
		}
		if (value.contains("${")) {
			// A lenient resolver (no placeholder configurer in the context) leaves unknown keys as they are.
			throw new InvalidDelayedExecutionException(method,
					"delayString " + shown + " cannot be resolved: a placeholder names no property");
		}
		try {
			return DurationFormatterUtils.detectAndParse(value,
					DurationFormat.Unit.fromChronoUnit(unit.toChronoUnit()));
		}
		catch (IllegalArgumentException | DateTimeParseException | ArithmeticException ex) {
			throw new InvalidDelayedExecutionException(method, "delayString " + shown
					+ " is not a duration; use a number of " + unit.name().toLowerCase()
					+ " (\"1500\"), a number with a unit (\"500ms\", \"10s\", \"30m\", \"2h\", \"1d\")"
					+ " or ISO-8601 (\"PT30S\")", ex);
		}
	}

	private static String describe(DelayedExecution annotation) {
		return (annotation.delay() != -1) ? annotation.delay() + " " + annotation.timeUnit()
				: "\"" + annotation.delayString() + "\"";
	}

	private String defaultTimerName(Method method) {
		ConfigurableListableBeanFactory beanFactory = beanFactory();
		String[] names = beanFactory.getBeanNamesForType(Timer.class);
		if (names.length == 1) {
			return names[0];
		}
		for (String name : names) {
			if (beanFactory.containsBeanDefinition(name) && beanFactory.getBeanDefinition(name).isPrimary()) {
				return name;
			}
		}
		throw new InvalidDelayedExecutionException(method, (names.length == 0)
				? "there is no io.github.wheeltimer.Timer bean to hold its calls"
				: "there are several Timer beans " + Arrays.toString(names)
						+ " and none is @Primary; name one with @DelayedExecution(timer = \"...\")");
	}

	private Timer timer(Method method, String beanName) {
		ConfigurableListableBeanFactory beanFactory = beanFactory();
		if (!beanFactory.containsBean(beanName)) {
			throw new InvalidDelayedExecutionException(method, "there is no bean named '" + beanName
					+ "'; the Timer beans are " + Arrays.toString(beanFactory.getBeanNamesForType(Timer.class)));
		}
		if (!beanFactory.isTypeMatch(beanName, Timer.class)) {
			throw new InvalidDelayedExecutionException(method, "bean '" + beanName + "' is a "
					+ beanFactory.getType(beanName) + ", not an io.github.wheeltimer.Timer");
		}
		return beanFactory.getBean(beanName, Timer.class);
	}

	private void requireAspectJAutoProxying() {
		ConfigurableListableBeanFactory beanFactory = beanFactory();
		String creator = AopConfigUtils.AUTO_PROXY_CREATOR_BEAN_NAME;
		boolean aspectJ = beanFactory.containsBeanDefinition(creator) && AnnotationAwareAspectJAutoProxyCreator.class
			.getName()
			.equals(beanFactory.getBeanDefinition(creator).getBeanClassName());
		if (!aspectJ) {
			DelayedMethod example = methods().get(0);
			throw new IllegalStateException("@DelayedExecution methods such as " + example.description()
					+ " need AspectJ auto-proxying, which is off (spring.aop.auto=false?), so their calls would"
					+ " run at once. Remove spring.aop.auto=false or add @EnableAspectJAutoProxy");
		}
	}

	private ConfigurableListableBeanFactory beanFactory() {
		if (this.beanFactory == null) {
			throw new IllegalStateException("DelayedMethodRegistry is used before its bean factory was set");
		}
		return this.beanFactory;
	}

	private StringValueResolver valueResolver() {
		if (this.valueResolver == null) {
			throw new IllegalStateException("DelayedMethodRegistry is used before its bean factory was set");
		}
		return this.valueResolver;
	}

}
