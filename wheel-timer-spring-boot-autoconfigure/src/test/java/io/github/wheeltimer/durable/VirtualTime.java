package io.github.wheeltimer.durable;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;

import io.github.wheeltimer.annotation.DelayedMethod;
import io.github.wheeltimer.annotation.DelayedMethodRegistry;
import io.github.wheeltimer.autoconfigure.WheelTimerBuilderCustomizer;
import io.github.wheeltimer.durable.engine.DurableEngine;
import io.github.wheeltimer.virtualtime.VirtualTicker;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * A hook of a test's {@link DurableApp} that puts its timers on the project's virtual clock, and
 * with them what durable calls do in time: due times (the rows' too), polls, retries' backoffs.
 * {@link #advance} returns once what fell due ran, its polls, gates, runs and finishes included,
 * so a test asserts right after it, without waiting. What {@code @VirtualWheelTime} does for a
 * user's test, which this module cannot depend on (that module depends on this one).
 * <p>
 * Leases and heartbeats stay on real time and the database's clock: what a test on this hook
 * checks is when a call runs, not how instances share them. The timers' shutdown drain is zero
 * here, so a close needs no driver of virtual time.
 */
@Configuration(proxyBeanMethods = false)
class VirtualTime {

	@Bean
	VirtualTicker virtualTicker() {
		return new VirtualTicker();
	}

	@Bean
	@Order(Ordered.LOWEST_PRECEDENCE)
	WheelTimerBuilderCustomizer virtualTimeCustomizer(VirtualTicker ticker) {
		return (builder) -> builder.ticker(ticker);
	}

	/** An advance waits for the polls and batches, then for the calls on their executor. */
	@Bean
	SmartInitializingSingleton virtualTimeAwaitsDurableCalls(VirtualTicker ticker, ObjectProvider<DurableEngine> engine,
			ObjectProvider<DelayedMethodRegistry> registry) {
		return () -> {
			ticker.awaitAlso(engine.getObject()::busy);
			DelayedMethodRegistry methods = registry.getObject();
			ticker.awaitAlso(() -> {
				List<DelayedMethod> running = methods.inFlight();
				return running.isEmpty() ? null : running.stream()
					.map((method) -> method.description() + " x" + method.inFlight())
					.collect(Collectors.joining(", ", "delayed calls still running: ", ""));
			});
		};
	}

	/** Moves the virtual clock of an application started with this hook. */
	static void advance(ConfigurableApplicationContext app, Duration amount) {
		app.getBean(VirtualTicker.class).advance(amount);
	}

	/** @return the application's time, virtual with this hook: the one due times are on */
	static Instant now(ConfigurableApplicationContext app) {
		return app.getBean(DurableCalls.class).now();
	}

}
