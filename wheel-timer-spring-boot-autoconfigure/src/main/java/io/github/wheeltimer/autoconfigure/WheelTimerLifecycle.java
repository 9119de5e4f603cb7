package io.github.wheeltimer.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.Timeout;
import io.github.wheeltimer.annotation.DelayedMethod;
import io.github.wheeltimer.annotation.DelayedMethodRegistry;
import io.github.wheeltimer.annotation.UnprocessedCalls;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.Ordered;
import org.springframework.scheduling.concurrent.ExecutorConfigurationSupport;

/**
 * Starts the context's {@link HashedWheelTimer} beans with it, and stops them gracefully: refuse
 * new calls, keep firing due ones for the drain timeout, report what is left, then wait (bounded)
 * for delayed methods still running.
 * <p>
 * The stop runs on {@link ContextClosedEvent}, as the first listener, rather than in this
 * lifecycle's own stop phase: Spring's executors stop accepting tasks as soon as that event is
 * published, before any lifecycle phase, so a drain that began later would hand due calls to an
 * executor that refuses them. {@link #stop()} covers a context that is stopped without being
 * closed; a stopped timer cannot be restarted.
 */
final class WheelTimerLifecycle implements SmartLifecycle, ApplicationListener<ContextClosedEvent>,
		ApplicationContextAware, Ordered {

	/** Stops before the executors (their phase) that run the delayed methods. */
	static final int PHASE = ExecutorConfigurationSupport.DEFAULT_PHASE + 1024;

	private static final Log logger = LogFactory.getLog(WheelTimerLifecycle.class);

	private final ListableBeanFactory beanFactory;

	private final DelayedMethodRegistry registry;

	private final Duration drainTimeout;

	private final Duration awaitTermination;

	private final AtomicBoolean stopped = new AtomicBoolean();

	private volatile boolean running;

	private @Nullable ApplicationContext applicationContext;

	WheelTimerLifecycle(ListableBeanFactory beanFactory, DelayedMethodRegistry registry, Duration drainTimeout,
			Duration awaitTermination) {
		this.beanFactory = beanFactory;
		this.registry = registry;
		this.drainTimeout = drainTimeout;
		this.awaitTermination = awaitTermination;
	}

	@Override
	public void setApplicationContext(ApplicationContext applicationContext) {
		this.applicationContext = applicationContext;
	}

	@Override
	public void start() {
		if (!this.stopped.get()) {
			timers().values().forEach(HashedWheelTimer::start);
			this.running = true;
		}
	}

	@Override
	public void stop() {
		stopTimers();
	}

	@Override
	public void onApplicationEvent(ContextClosedEvent event) {
		if (event.getApplicationContext() == this.applicationContext) {
			stopTimers();
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	private void stopTimers() {
		if (!this.stopped.compareAndSet(false, true)) {
			return;
		}
		this.running = false;
		long drainDeadline = System.nanoTime() + nanos(this.drainTimeout);
		// One drain budget for all timers: they keep firing in parallel while each is stopped in turn.
		for (Map.Entry<String, HashedWheelTimer> entry : timers().entrySet()) {
			Duration drain = Duration.ofNanos(Math.max(0, drainDeadline - System.nanoTime()));
			report(entry.getKey(), entry.getValue().stopGracefully(drain));
		}
		List<DelayedMethod> stillRunning = this.registry.awaitInFlight(this.awaitTermination);
		if (!stillRunning.isEmpty()) {
			logger.warn("Delayed methods still running " + this.awaitTermination + " after the timers stopped: "
					+ stillRunning.stream()
						.map((method) -> method.description() + " x" + method.inFlight())
						.collect(Collectors.joining(", ")));
		}
	}

	private static void report(String timerName, Set<Timeout> unprocessed) {
		UnprocessedCalls calls = UnprocessedCalls.cancel(unprocessed);
		if (!calls.isEmpty()) {
			logger.warn("Timer '" + timerName + "' stopped with " + calls.total()
					+ " delayed calls that never ran (their futures are cancelled): " + calls);
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("Timer '" + timerName + "' stopped with no delayed calls left");
		}
	}

	private Map<String, HashedWheelTimer> timers() {
		return this.beanFactory.getBeansOfType(HashedWheelTimer.class, false, false);
	}

	private static long nanos(Duration duration) {
		try {
			return duration.toNanos();
		}
		catch (ArithmeticException tooLong) {
			return Long.MAX_VALUE / 2;
		}
	}

}
