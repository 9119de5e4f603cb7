package io.github.wheeltimer.actuate;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.wheeltimer.annotation.DelayedMethod;
import io.github.wheeltimer.annotation.DelayedMethodRegistry;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextRefreshedEvent;

/**
 * Meters of the {@code @Retryable} delayed methods, per method:
 * <ul>
 * <li>{@code wheel.timer.calls.retried}: failed runs that its {@code @Retryable} tried again, each
 * after its backoff, on a timer;</li>
 * <li>{@code wheel.timer.calls.exhausted}: calls that failed for good after retries.</li>
 * </ul>
 * Tagged with {@code method} (such as {@code Warehouse.ship(String)}) and {@code timer}. The
 * methods are resolved once every singleton exists, after meter registries bind their binders, so
 * the meters are registered when the context has refreshed.
 * <p>
 * Threads: bound and refreshed on the starting thread; the counters read the methods' adders.
 */
public final class DelayedMethodMetrics implements MeterBinder, ApplicationListener<ContextRefreshedEvent> {

	private final ObjectProvider<DelayedMethodRegistry> methods;

	private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();

	private volatile boolean refreshed;

	/**
	 * Creates the meters' binder.
	 * @param methods the resolved delayed methods
	 */
	public DelayedMethodMetrics(ObjectProvider<DelayedMethodRegistry> methods) {
		this.methods = methods;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		this.registries.add(registry);
		if (this.refreshed) {
			register(registry);
		}
	}

	@Override
	public void onApplicationEvent(ContextRefreshedEvent event) {
		if (!this.refreshed) {
			this.refreshed = true;
			this.registries.forEach(this::register);
		}
	}

	private void register(MeterRegistry registry) {
		DelayedMethodRegistry methods = this.methods.getIfAvailable();
		if (methods == null) {
			return;
		}
		for (DelayedMethod method : methods.methods()) {
			if (method.retry() == null) {
				continue;
			}
			FunctionCounter.builder("wheel.timer.calls.retried", method, DelayedMethod::retriedCalls)
				.description("Failed runs of a delayed method that its @Retryable tried again, after its backoff")
				.tags("method", method.description(), "timer", method.timerBeanName())
				.baseUnit("calls")
				.register(registry);
			FunctionCounter.builder("wheel.timer.calls.exhausted", method, DelayedMethod::exhaustedCalls)
				.description("Calls of a delayed method that failed for good after @Retryable retried them")
				.tags("method", method.description(), "timer", method.timerBeanName())
				.baseUnit("calls")
				.register(registry);
		}
	}

}
