package io.github.wheeltimer.autoconfigure;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ThreadFactory;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.InvalidTimerSettingException;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.env.Environment;

/**
 * The settings of one timer the starter builds, each with the property it was read from: the
 * default timer's from {@code wheel-timer.*}, a named timer's from
 * {@code wheel-timer.timers.<name>.*} or, where that is left out, from the default's. This is the
 * one place that maps the timer's settings to properties: the timer checks its own settings, and
 * its {@link InvalidTimerSettingException} is turned here into a startup failure that names the
 * property that gave the bad value.
 *
 * @param name the timer's bean name
 */
record TimerSettings(String name, Setting<Duration> tickDuration, Setting<Integer> ticksPerWheel,
		Setting<Long> maxPendingTimeouts, Setting<String> threadName, Setting<String> executor,
		Setting<Duration> drainTimeout, Setting<Duration> awaitTermination) {

	private static final String PREFIX = "wheel-timer.";

	/** The name of the auto-configured default timer. */
	static final String DEFAULT_TIMER = "wheelTimer";

	/**
	 * A value and the property it came from.
	 *
	 * @param <T> the value's type
	 * @param property the full property name
	 * @param value the bound value
	 */
	record Setting<T>(String property, T value) {

		/** The named timer's own value, or the default timer's setting when it has none. */
		static <T> Setting<T> either(String property, @Nullable T value, Setting<T> fallback) {
			return (value != null) ? new Setting<>(property, value) : fallback;
		}

	}

	static TimerSettings ofDefault(WheelTimerProperties properties) {
		WheelTimerProperties.Shutdown shutdown = properties.getShutdown();
		return new TimerSettings(DEFAULT_TIMER, new Setting<>(PREFIX + "tick-duration", properties.getTickDuration()),
				new Setting<>(PREFIX + "ticks-per-wheel", properties.getTicksPerWheel()),
				new Setting<>(PREFIX + "max-pending-timeouts", properties.getMaxPendingTimeouts()),
				new Setting<>(PREFIX + "thread-name", properties.getThreadName()),
				new Setting<>(PREFIX + "executor", properties.getExecutor()),
				new Setting<>(PREFIX + "shutdown.drain-timeout", shutdown.getDrainTimeout()),
				new Setting<>(PREFIX + "shutdown.await-termination", shutdown.getAwaitTermination()));
	}

	static TimerSettings ofNamed(String name, WheelTimerProperties.NamedTimer timer, TimerSettings defaults) {
		String prefix = PREFIX + "timers." + name + ".";
		WheelTimerProperties.NamedTimer.Shutdown shutdown = timer.getShutdown();
		String threadName = (timer.getThreadName() != null) ? timer.getThreadName()
				: defaults.threadName().value() + "-" + name;
		return new TimerSettings(name,
				Setting.either(prefix + "tick-duration", timer.getTickDuration(), defaults.tickDuration()),
				Setting.either(prefix + "ticks-per-wheel", timer.getTicksPerWheel(), defaults.ticksPerWheel()),
				Setting.either(prefix + "max-pending-timeouts", timer.getMaxPendingTimeouts(),
						defaults.maxPendingTimeouts()),
				new Setting<>(prefix + "thread-name", threadName),
				Setting.either(prefix + "executor", timer.getExecutor(), defaults.executor()),
				Setting.either(prefix + "shutdown.drain-timeout", shutdown.getDrainTimeout(), defaults.drainTimeout()),
				Setting.either(prefix + "shutdown.await-termination", shutdown.getAwaitTermination(),
						defaults.awaitTermination()));
	}

	/** The starter's own rules, then the timer's. */
	void validate(Environment environment) {
		if (this.maxPendingTimeouts.value() == null || this.maxPendingTimeouts.value() < 0) {
			throw invalid(environment, this.maxPendingTimeouts,
					"The maximum number of pending timeouts must be positive, or 0 for no limit.");
		}
		String thread = this.threadName.value();
		if (thread == null || thread.isBlank()) {
			throw invalid(environment, this.threadName, "The thread name must not be blank.");
		}
		requireNotNegative(environment, this.drainTimeout);
		requireNotNegative(environment, this.awaitTermination);
		if (this.executor.value() == null || this.executor.value().isBlank()) {
			throw invalid(environment, this.executor, "The executor's bean name must not be blank.");
		}
		if (this.tickDuration.value() == null) {
			throw invalid(environment, this.tickDuration, "The tick duration must be given.");
		}
		// The timer's own rules too, now: whichever bean builds a timer first (the durable calls' poll
		// timer, a timer of the application's own from the builder bean), the report names the property.
		try {
			applyTo(HashedWheelTimer.builder()).validate();
		}
		catch (InvalidTimerSettingException ex) {
			throw reported(ex, environment);
		}
	}

	/** Applies the settings to a builder; customizers come after, and may override them. */
	HashedWheelTimer.Builder applyTo(HashedWheelTimer.Builder builder) {
		return builder.tickDuration(this.tickDuration.value())
			.ticksPerWheel(this.ticksPerWheel.value())
			.maxPendingTimeouts(this.maxPendingTimeouts.value())
			.threadFactory(daemonThreadNamed(this.threadName.value()));
	}

	/**
	 * Builds the timer, naming the property whose value it refuses. A setting a customizer
	 * changed is named by its builder method, since no property gave it.
	 */
	HashedWheelTimer build(HashedWheelTimer.Builder builder, Environment environment) {
		try {
			return builder.build();
		}
		catch (InvalidTimerSettingException ex) {
			throw reported(ex, environment);
		}
	}

	/** The property that gave the refused value, or the timer's own exception if none did. */
	private RuntimeException reported(InvalidTimerSettingException ex, Environment environment) {
		Setting<?> setting = Map.<String, Setting<?>>of("tickDuration", this.tickDuration, "ticksPerWheel",
				this.ticksPerWheel, "maxPendingTimeouts", this.maxPendingTimeouts).get(ex.getSetting());
		if (setting == null || !String.valueOf(setting.value()).equals(String.valueOf(ex.getValue()))) {
			return ex;
		}
		return invalid(environment, setting, "The timer's " + ex.getSetting() + " " + ex.getReason() + ".");
	}

	private static void requireNotNegative(Environment environment, Setting<Duration> setting) {
		if (setting.value() == null || setting.value().isNegative()) {
			throw invalid(environment, setting, "The duration must be zero or positive.");
		}
	}

	private static InvalidConfigurationPropertyValueException invalid(Environment environment, Setting<?> setting,
			String reason) {
		return InvalidPropertyValues.invalid(environment, setting.property(), setting.value(), reason);
	}

	private static ThreadFactory daemonThreadNamed(String name) {
		return (runnable) -> {
			Thread thread = new Thread(runnable, name);
			thread.setDaemon(true);
			return thread;
		};
	}

}
