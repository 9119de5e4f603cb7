package io.github.wheeltimer.autoconfigure;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;

import io.github.wheeltimer.HashedWheelTimer;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.env.Environment;

/**
 * The timers the starter builds from the properties, and what else their settings decide: the
 * executor that runs each timer's delayed methods, and how each timer stops. Timers the
 * application defines itself get the default timer's settings.
 * <p>
 * Created once, at startup, before anything builds a timer; it checks every timer's settings
 * then, the starter's rules and the timer's own, so that a bad value fails startup with a report
 * naming its property whichever bean needs a timer first, even on a timer that nothing uses yet.
 * Immutable after that apart from the executors it has looked up, which any thread may look up (a
 * concurrent map).
 */
final class ConfiguredTimers {

	private final TimerSettings defaults;

	private final Map<String, TimerSettings> named;

	private final ListableBeanFactory beanFactory;

	private final Environment environment;

	private final ObjectProvider<WheelTimerBuilderCustomizer> customizers;

	private final ConcurrentMap<String, Executor> executors = new ConcurrentHashMap<>();

	ConfiguredTimers(WheelTimerProperties properties, ListableBeanFactory beanFactory, Environment environment,
			ObjectProvider<WheelTimerBuilderCustomizer> customizers) {
		this.beanFactory = beanFactory;
		this.environment = environment;
		this.customizers = customizers;
		this.defaults = TimerSettings.ofDefault(properties);
		Map<String, TimerSettings> named = new LinkedHashMap<>();
		properties.getTimers()
			.forEach((name, timer) -> named.put(name, TimerSettings.ofNamed(name, timer, this.defaults)));
		this.named = Collections.unmodifiableMap(named);
		this.defaults.validate(environment);
		this.named.values().forEach((settings) -> settings.validate(environment));
		// Named on purpose: a wrong name fails startup even before any delayed method needs it.
		for (TimerSettings settings : this.named.values()) {
			if (!settings.executor().equals(this.defaults.executor())) {
				executor(settings.name());
			}
		}
		if (!WheelTimerProperties.DEFAULT_EXECUTOR.equals(this.defaults.executor().value())) {
			executor(this.defaults.name());
		}
	}

	/**
	 * Returns a timer's settings: a named timer's own, the default timer's for any other.
	 */
	TimerSettings settings(String timerBeanName) {
		return this.named.getOrDefault(timerBeanName, this.defaults);
	}

	/** The default timer's settings applied, then the customizers. */
	HashedWheelTimer.Builder builder() {
		return builder(this.defaults);
	}

	/** Builds the timer of that name from its settings and the customizers. */
	HashedWheelTimer build(String timerBeanName) {
		TimerSettings settings = settings(timerBeanName);
		return settings.build(builder(settings), this.environment);
	}

	private HashedWheelTimer.Builder builder(TimerSettings settings) {
		HashedWheelTimer.Builder builder = settings.applyTo(HashedWheelTimer.builder());
		this.customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		return builder;
	}

	/**
	 * Returns the executor that runs the delayed methods of a timer: the bean its
	 * {@code executor} setting names or, for the default name when no bean has it, the
	 * application's only executor.
	 */
	Executor executor(String timerBeanName) {
		TimerSettings settings = settings(timerBeanName);
		Executor executor = this.executors.get(settings.executor().value());
		if (executor == null) {
			// Not computeIfAbsent: creating the executor bean may look up another one.
			Executor found = lookUpExecutor(settings);
			executor = this.executors.putIfAbsent(settings.executor().value(), found);
			executor = (executor != null) ? executor : found;
		}
		return executor;
	}

	private Executor lookUpExecutor(TimerSettings settings) {
		TimerSettings.Setting<String> setting = settings.executor();
		String name = setting.value();
		String[] executors = this.beanFactory.getBeanNamesForType(Executor.class);
		if (this.beanFactory.containsBean(name)) {
			if (!this.beanFactory.isTypeMatch(name, Executor.class)) {
				throw InvalidPropertyValues.invalid(this.environment, setting.property(), name, "Bean '" + name
						+ "' is a " + this.beanFactory.getType(name) + ", not a java.util.concurrent.Executor."
						+ " Executor beans: " + Arrays.toString(executors) + ".");
			}
			return this.beanFactory.getBean(name, Executor.class);
		}
		boolean isDefault = WheelTimerProperties.DEFAULT_EXECUTOR.equals(name);
		if (isDefault && executors.length == 1) {
			return this.beanFactory.getBean(executors[0], Executor.class);
		}
		throw InvalidPropertyValues.invalid(this.environment, setting.property(), name, "No bean named '" + name
				+ "' runs @DelayedExecution methods. Executor beans: " + Arrays.toString(executors) + "."
				+ (isDefault ? " Spring Boot defines 'applicationTaskExecutor' only when the application defines"
						+ " no Executor of its own; set " + setting.property() + " to the one to use." : ""));
	}

}
