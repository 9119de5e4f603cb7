package io.github.wheeltimer.autoconfigure;

import io.github.wheeltimer.annotation.DelayedCallObserver;
import io.github.wheeltimer.annotation.DelayedExecution;
import io.github.wheeltimer.observation.DelayedCallObservationConvention;
import io.github.wheeltimer.observation.DurableCallTracingObservationHandler;
import io.github.wheeltimer.observation.ObservingCallObserver;
import io.github.wheeltimer.observation.PropagatingCallObserver;
import io.github.wheeltimer.observation.TraceParents;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.util.ClassUtils;

/**
 * Auto-configuration of what follows each {@link DelayedExecution} call from its caller to its
 * run: the caller's context (SLF4J's MDC, and with context-propagation the current observation and
 * every registered {@code ThreadLocalAccessor}) is captured when the method is called and put back
 * around the method when it runs; with an {@link ObservationRegistry}, each call is observed as
 * {@code wheel.timer.delayed.call}, a child of the caller's observation; with a Micrometer Tracing
 * {@link Tracer}, durable calls store their caller's span as a W3C {@code traceparent} and their
 * span links to it.
 * <p>
 * A {@link DelayedCallObservationConvention} bean replaces the default names and tags; Spring
 * Boot's {@code management.observations.enable.wheel.timer=false} switches the observation off (the
 * context is still carried).
 */
@AutoConfiguration(after = WheelTimerAutoConfiguration.class,
		afterName = { "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
				"org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration",
				"org.springframework.boot.micrometer.tracing.autoconfigure.NoopTracerAutoConfiguration",
				"org.springframework.boot.micrometer.tracing.brave.autoconfigure.BraveAutoConfiguration",
				"org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.OpenTelemetryTracingAutoConfiguration" })
@ConditionalOnBooleanProperty(name = "wheel-timer.enabled", matchIfMissing = true)
public final class WheelTimerObservationAutoConfiguration {

	/** Ahead of Spring Boot's receiver, sender and default tracing handlers, which would claim the context first. */
	static final int DURABLE_CALL_TRACING_HANDLER_ORDER = 500;

	private static final String MDC = "org.slf4j.MDC";

	private static final String CONTEXT_SNAPSHOT = "io.micrometer.context.ContextSnapshotFactory";

	/** Without an {@link ObservationRegistry}: the caller's context is carried, and nothing observed. */
	@Bean
	@ConditionalOnMissingBean
	DelayedCallObserver wheelTimerDelayedCallObserver(ApplicationContext context) {
		return new PropagatingCallObserver(present(MDC, context), present(CONTEXT_SNAPSHOT, context));
	}

	static boolean present(String className, ApplicationContext context) {
		return ClassUtils.isPresent(className, context.getClassLoader());
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(ObservationRegistry.class)
	@ConditionalOnBean(ObservationRegistry.class)
	static final class ObservationConfiguration {

		@Bean
		@ConditionalOnMissingBean(DelayedCallObserver.class)
		ObservingCallObserver wheelTimerDelayedCallObserver(ObservationRegistry registry,
				ObjectProvider<DelayedCallObservationConvention> convention, ObjectProvider<TraceParents> traceParents,
				ApplicationContext context) {
			TraceParents fromTracer = traceParents.getIfAvailable();
			return new ObservingCallObserver(registry, convention.getIfAvailable(), present(MDC, context),
					present(CONTEXT_SNAPSHOT, context), (fromTracer != null) ? fromTracer : () -> null);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ Tracer.class, ObservationRegistry.class })
	@ConditionalOnBean(Tracer.class)
	static final class TracingConfiguration {

		@Bean
		@ConditionalOnMissingBean
		TraceParents wheelTimerTraceParents(Tracer tracer) {
			return new TraceParents(tracer);
		}

		@Bean
		@ConditionalOnMissingBean
		@Order(DURABLE_CALL_TRACING_HANDLER_ORDER)
		DurableCallTracingObservationHandler wheelTimerDurableCallTracingObservationHandler(Tracer tracer) {
			return new DurableCallTracingObservationHandler(tracer);
		}

	}

}
