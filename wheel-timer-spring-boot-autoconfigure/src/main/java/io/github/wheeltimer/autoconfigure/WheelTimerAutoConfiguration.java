package io.github.wheeltimer.autoconfigure;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import java.util.function.Supplier;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.Timer;
import io.github.wheeltimer.annotation.DelayedExecution;
import io.github.wheeltimer.annotation.DelayedExecutionAspect;
import io.github.wheeltimer.annotation.DelayedMethodRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.util.function.SingletonSupplier;

/**
 * Auto-configuration of a {@link HashedWheelTimer} named {@code wheelTimer} from the
 * {@code wheel-timer.*} properties, and of {@link DelayedExecution} methods on it.
 * <p>
 * The timer backs off when the application defines its own {@link Timer} bean. Every
 * {@link HashedWheelTimer} bean, auto-configured or not, is stopped gracefully when the
 * application context closes; see {@link WheelTimerProperties.Shutdown}.
 */
@AutoConfiguration(after = { AopAutoConfiguration.class, TaskExecutionAutoConfiguration.class })
@ConditionalOnBooleanProperty(name = "wheel-timer.enabled", matchIfMissing = true)
@EnableConfigurationProperties(WheelTimerProperties.class)
public final class WheelTimerAutoConfiguration {

	private static final String PREFIX = "wheel-timer.";

	@Bean
	@ConditionalOnMissingBean(Timer.class)
	HashedWheelTimer wheelTimer(WheelTimerProperties properties, Environment environment) {
		Duration tick = properties.getTickDuration();
		if (tick == null || tick.compareTo(HashedWheelTimer.MIN_TICK_DURATION) < 0) {
			throw invalid(environment, "tick-duration", tick,
					"The tick duration must be at least 1ms.");
		}
		int ticksPerWheel = properties.getTicksPerWheel();
		if (ticksPerWheel < 1 || ticksPerWheel > HashedWheelTimer.MAX_TICKS_PER_WHEEL) {
			throw invalid(environment, "ticks-per-wheel", ticksPerWheel,
					"The number of ticks per wheel must be from 1 to " + HashedWheelTimer.MAX_TICKS_PER_WHEEL
							+ " (2^30).");
		}
		long maxPending = properties.getMaxPendingTimeouts();
		if (maxPending < 0) {
			throw invalid(environment, "max-pending-timeouts", maxPending,
					"The maximum number of pending timeouts must be positive, or 0 for no limit.");
		}
		String threadName = properties.getThreadName();
		if (threadName == null || threadName.isBlank()) {
			throw invalid(environment, "thread-name", threadName,
					"The thread name must not be blank.");
		}
		HashedWheelTimer.Builder builder = HashedWheelTimer.builder()
			.tickDuration(tick)
			.ticksPerWheel(ticksPerWheel)
			.maxPendingTimeouts(maxPending)
			.threadFactory(daemonThreadNamed(threadName));
		try {
			return builder.build();
		}
		catch (IllegalArgumentException ex) {
			// The single checks pass; what is left is their product overflowing.
			throw invalid(environment, "ticks-per-wheel", ticksPerWheel,
					ex.getMessage());
		}
	}

	@Bean
	@ConditionalOnMissingBean
	DelayedMethodRegistry delayedMethodRegistry(ListableBeanFactory beanFactory, WheelTimerProperties properties,
			Environment environment) {
		String executorName = properties.getExecutor();
		Supplier<Executor> executor = SingletonSupplier
			.of(() -> delayedMethodExecutor(beanFactory, environment, executorName));
		if (!WheelTimerProperties.DEFAULT_EXECUTOR.equals(executorName)) {
			// Named on purpose: a wrong name fails startup even before any delayed method needs it.
			executor.get();
		}
		return new DelayedMethodRegistry(executor);
	}

	@Bean
	@ConditionalOnMissingBean
	DelayedExecutionAspect delayedExecutionAspect(DelayedMethodRegistry registry) {
		return new DelayedExecutionAspect(registry);
	}

	@Bean
	@ConditionalOnMissingBean
	WheelTimerLifecycle wheelTimerLifecycle(ListableBeanFactory beanFactory, DelayedMethodRegistry registry,
			WheelTimerProperties properties, Environment environment) {
		WheelTimerProperties.Shutdown shutdown = properties.getShutdown();
		requireNotNegative(environment, "shutdown.drain-timeout", shutdown.getDrainTimeout());
		requireNotNegative(environment, "shutdown.await-termination", shutdown.getAwaitTermination());
		return new WheelTimerLifecycle(beanFactory, registry, shutdown.getDrainTimeout(),
				shutdown.getAwaitTermination());
	}

	private static void requireNotNegative(Environment environment, String property, Duration value) {
		if (value == null || value.isNegative()) {
			throw invalid(environment, property, value,
					"The duration must be zero or positive.");
		}
	}

	private static Executor delayedMethodExecutor(ListableBeanFactory beanFactory, Environment environment,
			String name) {
		String property = "executor";
		String[] executors = beanFactory.getBeanNamesForType(Executor.class);
		if (beanFactory.containsBean(name)) {
			if (!beanFactory.isTypeMatch(name, Executor.class)) {
				throw invalid(environment, property, name, "Bean '" + name + "' is a "
						+ beanFactory.getType(name) + ", not a java.util.concurrent.Executor. Executor beans: "
						+ Arrays.toString(executors) + ".");
			}
			return beanFactory.getBean(name, Executor.class);
		}
		boolean isDefault = WheelTimerProperties.DEFAULT_EXECUTOR.equals(name);
		if (isDefault && executors.length == 1) {
			return beanFactory.getBean(executors[0], Executor.class);
		}
		throw invalid(environment, property, name, "No bean named '" + name
				+ "' runs @DelayedExecution methods. Executor beans: " + Arrays.toString(executors) + "."
				+ (isDefault ? " Spring Boot defines 'applicationTaskExecutor' only when the application defines"
						+ " no Executor of its own; set " + PREFIX + property + " to the one to use." : ""));
	}

	private static InvalidConfigurationPropertyValueException invalid(Environment environment, String property,
			@Nullable Object boundValue, String reason) {
		return InvalidPropertyValues.invalid(environment, PREFIX + property, boundValue, reason);
	}

	private static ThreadFactory daemonThreadNamed(String name) {
		return (runnable) -> {
			Thread thread = new Thread(runnable, name);
			thread.setDaemon(true);
			return thread;
		};
	}

}
