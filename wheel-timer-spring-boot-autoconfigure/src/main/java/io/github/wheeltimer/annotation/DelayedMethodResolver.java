package io.github.wheeltimer.annotation;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.Timer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.config.EmbeddedValueResolver;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.format.annotation.DurationFormat;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;
import org.springframework.util.function.SingletonSupplier;

/**
 * Turns one {@link DelayedExecution} annotation into a {@link DelayedMethod}: checks the method,
 * parses the delay, finds the timer, and asks for the timer's executor and the exception handler,
 * or fails with an {@link InvalidDelayedExecutionException} that says what is wrong.
 * <p>
 * Used by the {@link DelayedMethodRegistry} at startup and, for a method that startup did not
 * see, on its first call; it keeps no state of its own apart from the exception handler, looked
 * up once.
 */
final class DelayedMethodResolver {

	private static final Log logger = LogFactory.getLog(DelayedMethodResolver.class);

	private static final Set<Class<?>> SUPPORTED_RETURN_TYPES = Set.of(void.class, CompletableFuture.class,
			CompletionStage.class, Future.class);

	/** The timer that methods naming none use when there are several and none is primary. */
	static final String DEFAULT_TIMER = "wheelTimer";

	private static final String JDBC = "org.springframework.jdbc.core.JdbcTemplate";

	private static final String JACKSON = "tools.jackson.databind.json.JsonMapper";

	private final ConfigurableListableBeanFactory beanFactory;

	private final StringValueResolver valueResolver;

	private final Function<String, ? extends Executor> executors;

	private final SingletonSupplier<DelayedExecutionExceptionHandler> exceptionHandler;

	private final SingletonSupplier<DelayedCallObserver> observer;

	/** The application's events, set once the registry is: read when a method is resolved. */
	private final Supplier<@Nullable ApplicationEventPublisher> events;

	DelayedMethodResolver(ConfigurableListableBeanFactory beanFactory, Function<String, ? extends Executor> executors,
			Supplier<@Nullable ApplicationEventPublisher> events) {
		this.beanFactory = beanFactory;
		this.events = events;
		this.valueResolver = new EmbeddedValueResolver(beanFactory);
		this.executors = executors;
		this.exceptionHandler = SingletonSupplier
			.ofNullable(() -> beanFactory.getBeanProvider(DelayedExecutionExceptionHandler.class).getIfAvailable());
		this.observer = SingletonSupplier.of(() -> beanFactory.getBeanProvider(DelayedCallObserver.class)
			.getIfAvailable(() -> DelayedCallObserver.NONE));
	}

	/**
	 * @param beanName the singleton that declares the method, as found at startup; {@code null}
	 * for a method first seen on a call (a bean created later), which cannot be durable
	 */
	ResolvedMethod resolve(Method method, @Nullable String beanName) {
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
		warnIfShorterThanATick(method, delay, timerBeanName, timer);
		if (!annotation.durable() && (StringUtils.hasText(annotation.id()) || StringUtils.hasText(annotation.key()))) {
			throw new InvalidDelayedExecutionException(method, "it gives " + (StringUtils.hasText(annotation.id())
					? "an id" : "a key") + ", which only durable methods have; add durable = true, or remove it");
		}
		DurableCallScheduler durable = annotation.durable() ? durableScheduling(method, beanName) : null;
		DelayedMethod delayed = new DelayedMethod(method, delay, timerBeanName, timer, returnType != void.class,
				this.executors.apply(timerBeanName), this.exceptionHandler.get(), this.observer.obtain(),
				durable != null, retry(method, beanName));
		if (durable != null) {
			try {
				durable.register(delayed, annotation, beanName);
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidDelayedExecutionException(method, ex.getMessage(), ex);
			}
		}
		return new ResolvedMethod(delayed, (durable != null) ? durable : InMemoryScheduler.INSTANCE);
	}

	/** Its {@code @Retryable}, read from the method or the class of its bean. */
	private @Nullable DelayedRetry retry(Method method, @Nullable String beanName) {
		Class<?> type = (beanName != null) ? this.beanFactory.getType(beanName) : null;
		Class<?> targetClass = (type != null) ? ClassUtils.getUserClass(type) : method.getDeclaringClass();
		return DelayedRetry.resolve(method, targetClass, this.valueResolver, this.beanFactory, this.events.get());
	}

	/**
	 * The durable calls' scheduler, or why there is none. Only names of classes are checked, so that
	 * applications without JDBC never load the classes of durable calls.
	 */
	private DurableCallScheduler durableScheduling(Method method, @Nullable String beanName) {
		ClassLoader classLoader = this.beanFactory.getBeanClassLoader();
		if (!ClassUtils.isPresent(JDBC, classLoader)) {
			throw new InvalidDelayedExecutionException(method, "it is durable, and durable calls are kept"
					+ " in the application's database: add spring-boot-starter-jdbc and a database driver");
		}
		if (!ClassUtils.isPresent(JACKSON, classLoader)) {
			throw new InvalidDelayedExecutionException(method, "it is durable, and durable calls store"
					+ " their arguments as JSON: add spring-boot-starter-jackson (Jackson 3)");
		}
		DurableCallScheduler durable = this.beanFactory.getBeanProvider(DurableCallScheduler.class).getIfAvailable();
		if (durable == null) {
			throw new InvalidDelayedExecutionException(method, "it is durable, and there is no DataSource"
					+ " bean to keep its calls in (or wheel-timer.durable.enabled is false): add"
					+ " spring-boot-starter-jdbc and a database driver, and set spring.datasource.url");
		}
		if (beanName == null) {
			throw new InvalidDelayedExecutionException(method, "it is durable, and its bean was not a"
					+ " singleton created at startup: a durable call read back from the database must find the"
					+ " one bean that runs it");
		}
		return durable;
	}

	/** Not an error: such a call runs at the end of the current tick, later than it says. */
	private static void warnIfShorterThanATick(Method method, Duration delay, String timerBeanName, Timer timer) {
		if (timer instanceof HashedWheelTimer wheel) {
			Duration tick = wheel.snapshot().tickDuration();
			if (delay.compareTo(tick) < 0) {
				logger.warn("@DelayedExecution on " + MethodNames.describe(method) + " has a delay of " + delay
						+ ", shorter than the tick of timer '" + timerBeanName + "' (" + tick
						+ "): its calls will run up to a tick late. Give it a timer with a finer tick, or a longer delay.");
			}
		}
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
			resolved = this.valueResolver.resolveStringValue(delayString);
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

	/**
	 * The only timer, else the primary one, else the auto-configured default: named timers from
	 * the properties sit beside {@code wheelTimer} without taking its methods.
	 */
	private String defaultTimerName(Method method) {
		String[] names = this.beanFactory.getBeanNamesForType(Timer.class);
		if (names.length == 1) {
			return names[0];
		}
		for (String name : names) {
			if (this.beanFactory.containsBeanDefinition(name) && this.beanFactory.getBeanDefinition(name).isPrimary()) {
				return name;
			}
		}
		if (Arrays.asList(names).contains(DEFAULT_TIMER)) {
			return DEFAULT_TIMER;
		}
		throw new InvalidDelayedExecutionException(method, (names.length == 0)
				? "there is no io.github.wheeltimer.Timer bean to hold its calls"
				: "there are several Timer beans " + Arrays.toString(names)
						+ ", none is @Primary and none is named '" + DEFAULT_TIMER
						+ "'; name one with @DelayedExecution(timer = \"...\")");
	}

	private Timer timer(Method method, String beanName) {
		if (!this.beanFactory.containsBean(beanName)) {
			throw new InvalidDelayedExecutionException(method, "there is no bean named '" + beanName
					+ "'; the Timer beans are " + Arrays.toString(this.beanFactory.getBeanNamesForType(Timer.class)));
		}
		if (!this.beanFactory.isTypeMatch(beanName, Timer.class)) {
			throw new InvalidDelayedExecutionException(method, "bean '" + beanName + "' is a "
					+ this.beanFactory.getType(beanName) + ", not an io.github.wheeltimer.Timer");
		}
		return this.beanFactory.getBean(beanName, Timer.class);
	}

}
