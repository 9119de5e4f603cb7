package io.github.wheeltimer;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;

import io.github.wheeltimer.annotation.DelayedMethod;
import io.github.wheeltimer.annotation.DelayedMethodRegistry;
import io.github.wheeltimer.autoconfigure.WheelTimerBuilderCustomizer;
import io.github.wheeltimer.durable.DurableCalls;
import io.github.wheeltimer.durable.engine.DurableEngine;
import io.github.wheeltimer.virtualtime.VirtualTicker;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * A configuration a test adds to its application to put every timer on the project's virtual
 * clock, and with them what delayed calls do in time: due times (durable rows' too), durable
 * polls, retries' backoffs. {@link #advance} returns once what fell due ran, the delayed methods
 * on their executor and durable polls, gates and finishes included, so a test asserts right after
 * it, without waiting. What {@code @VirtualWheelTime} does for a user's test, which this module
 * cannot depend on (that module depends on this one).
 * <p>
 * Durable leases and heartbeats stay on real time and the database's clock: what a test on this
 * clock checks is when a call runs, not how instances share them. The timers' shutdown drain is
 * zero unless a test sets one, so a close needs no driver of virtual time.
 */
@Configuration(proxyBeanMethods = false)
public class VirtualTime {

	@Bean
	VirtualTicker virtualTicker() {
		return new VirtualTicker();
	}

	@Bean
	@Order(Ordered.LOWEST_PRECEDENCE)
	WheelTimerBuilderCustomizer virtualTimeCustomizer(VirtualTicker ticker) {
		return (builder) -> builder.ticker(ticker);
	}

	/** An advance waits for durable polls and batches, and for the delayed calls on their executor. */
	@Bean
	SmartInitializingSingleton virtualTimeAwaitsCalls(VirtualTicker ticker, ObjectProvider<DurableEngine> engine,
			ObjectProvider<DelayedMethodRegistry> registry) {
		return () -> {
			engine.ifAvailable((durable) -> ticker.awaitAlso(durable::busy));
			registry.ifAvailable((methods) -> ticker.awaitAlso(() -> {
				List<DelayedMethod> running = methods.inFlight();
				return running.isEmpty() ? null : running.stream()
					.map((method) -> method.description() + " x" + method.inFlight())
					.collect(Collectors.joining(", ", "delayed calls still running: ", ""));
			}));
		};
	}

	/** Moves the virtual clock of an application that has this configuration. */
	public static void advance(ApplicationContext app, Duration amount) {
		app.getBean(VirtualTicker.class).advance(amount);
	}

	/** @return the durable calls' time, virtual with this configuration: the one due times are on */
	public static Instant now(ApplicationContext app) {
		return app.getBean(DurableCalls.class).now();
	}

}
