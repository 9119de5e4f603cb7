package io.github.wheeltimer.test;

import java.time.Instant;

import io.github.wheeltimer.autoconfigure.WheelTimerAutoConfiguration;
import io.github.wheeltimer.autoconfigure.WheelTimerBuilderCustomizer;
import io.github.wheeltimer.durable.engine.DurableEngine;
import io.github.wheeltimer.virtualtime.VirtualTicker;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * What {@link VirtualWheelTime @VirtualWheelTime} adds to a test's context: the
 * {@link VirtualWheelClock}, a {@link WheelTimerBuilderCustomizer} that builds every timer on it
 * (applied last, so that no other customizer's ticker wins), a check that no timer bean escaped
 * it, and the lifecycle that shows the clock the timers and runs their shutdown drain in virtual
 * time, and the polls of durable calls. Imported by the annotation only, never by the application's own auto-configuration.
 */
@AutoConfiguration(before = WheelTimerAutoConfiguration.class)
public final class VirtualWheelTimeAutoConfiguration {

	@Bean
	VirtualWheelClock wheelTimerVirtualClock() {
		return new VirtualWheelClock(new VirtualTicker(), Instant.now());
	}

	@Bean
	@Order(Ordered.LOWEST_PRECEDENCE)
	WheelTimerBuilderCustomizer wheelTimerVirtualTimeCustomizer(VirtualWheelClock clock) {
		return (builder) -> builder.ticker(clock.ticker());
	}

	@Bean
	static VirtualTimersCheck wheelTimerVirtualTimersCheck(ObjectProvider<VirtualWheelClock> clock) {
		return new VirtualTimersCheck(clock);
	}

	@Bean
	VirtualTimeLifecycle wheelTimerVirtualTimeLifecycle(VirtualWheelClock clock, ListableBeanFactory beanFactory) {
		return new VirtualTimeLifecycle(clock, beanFactory);
	}

	/**
	 * Durable calls poll the database on the virtual clock: an advance also waits for a poll in
	 * progress, so that a call claimed by it is on a wheel before virtual time passes its due time.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.jdbc.core.JdbcTemplate")
	static class DurableCallsConfiguration {

		@Bean
		SmartInitializingSingleton wheelTimerVirtualTimeAwaitsDurablePolls(VirtualWheelClock clock,
				ObjectProvider<DurableEngine> calls) {
			return () -> calls.ifAvailable((durable) -> clock.ticker().awaitAlso(durable::busy));
		}

	}

}
