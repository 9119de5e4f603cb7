package io.github.wheeltimer.autoconfigure;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.Timeout;
import io.github.wheeltimer.annotation.DelayedMethod;
import io.github.wheeltimer.annotation.DelayedMethodRegistry;
import io.github.wheeltimer.annotation.UnprocessedCalls;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.ExecutorConfigurationSupport;

/**
 * Starts the context's {@link HashedWheelTimer} beans with it, and stops them gracefully: refuse
 * new calls, keep firing due ones for each timer's drain timeout, report what is left, then wait
 * (bounded by each timer's await-termination) for delayed methods still running.
 * <p>
 * Its {@link #PHASE} puts the stop after the web server's graceful shutdown, so requests still
 * being served can schedule delayed calls, and before the executors' own lifecycle stop, so the
 * calls that fall due during the drain still find them running. A stopped timer cannot be
 * restarted: stopping the context ends the timers for good.
 */
final class WheelTimerLifecycle implements SmartLifecycle {

	/**
	 * Stops after the web server ({@code SmartLifecycle.DEFAULT_PHASE - 1024} and lower) and
	 * before the executors ({@link ExecutorConfigurationSupport#DEFAULT_PHASE}).
	 */
	static final int PHASE = ExecutorConfigurationSupport.DEFAULT_PHASE + 1024;

	private static final Duration IN_FLIGHT_POLL = Duration.ofMillis(10);

	private static final Log logger = LogFactory.getLog(WheelTimerLifecycle.class);

	private final ListableBeanFactory beanFactory;

	private final DelayedMethodRegistry registry;

	private final ConfiguredTimers configured;

	private final AtomicBoolean stopped = new AtomicBoolean();

	private volatile boolean running;

	WheelTimerLifecycle(ListableBeanFactory beanFactory, DelayedMethodRegistry registry, ConfiguredTimers configured) {
		this.beanFactory = beanFactory;
		this.registry = registry;
		this.configured = configured;
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
		if (!this.stopped.compareAndSet(false, true)) {
			return;
		}
		this.running = false;
		Map<String, HashedWheelTimer> timers = timers();
		// Each timer's drain counts from the same start, on the timer's own clock (a test's
		// virtual one too): they keep firing in parallel while each is stopped in turn.
		Map<String, Long> drainStarts = new HashMap<>();
		int neverRan = 0;
		timers.forEach((name, timer) -> drainStarts.put(name, timer.ticker().nanoTime()));
		for (Map.Entry<String, HashedWheelTimer> entry : timers.entrySet()) {
			HashedWheelTimer timer = entry.getValue();
			Duration drainLeft = this.configured.settings(entry.getKey())
				.drainTimeout()
				.value()
				.minusNanos(timer.ticker().nanoTime() - drainStarts.get(entry.getKey()));
			Duration drain = drainLeft.isNegative() ? Duration.ZERO : drainLeft;
			UnprocessedCalls left = report(entry.getKey(), timer.stopGracefully(drain));
			neverRan += left.total() - left.handedBack();
		}
		boolean durable = this.registry.methods().stream().anyMatch(DelayedMethod::isDurable);
		if ((neverRan > 0 || durable) && JvmExit.lastThreadEnded()) {
			logger.warn("The JVM is exiting because its last non-daemon thread ended: main() returned, and nothing"
					+ " keeps this application running (it has no web server, and spring.main.keep-alive is not"
					+ " true). Its delayed calls end with it: "
					+ ((neverRan > 0) ? neverRan + ((neverRan == 1) ? " in-memory call" : " in-memory calls") + " never ran"
							+ (durable ? ", and " : "") : "")
					+ (durable ? "durable calls wait in the database for the next start" : "")
					+ ". Set spring.main.keep-alive=true to keep the application running.");
		}
		List<DelayedMethod> stillRunning = awaitInFlight();
		if (!stillRunning.isEmpty()) {
			logger.warn("Delayed methods still running after waiting for them (wheel-timer.shutdown.await-termination"
					+ " of their timer): "
					+ stillRunning.stream()
						.map((method) -> method.description() + " x" + method.inFlight() + " after "
								+ awaitTermination(method).toMillis() + "ms")
						.collect(Collectors.joining(", "))
					+ ". Their executor's own shutdown decides whether they finish.");
		}
	}

	/**
	 * Waits until no delayed method is running or queued in its executor, each for at most its
	 * timer's await-termination. Only at shutdown: a short poll keeps the per-call path free of
	 * any wake-up signalling.
	 * @return the methods still in flight when their wait ended, empty if none
	 */
	private List<DelayedMethod> awaitInFlight() {
		long start = System.nanoTime();
		while (true) {
			long waited = System.nanoTime() - start;
			List<DelayedMethod> inFlight = this.registry.inFlight();
			boolean mayWait = inFlight.stream().anyMatch((method) -> awaitTermination(method).toNanos() > waited);
			if (!mayWait || Thread.currentThread().isInterrupted()) {
				return inFlight;
			}
			LockSupport.parkNanos(IN_FLIGHT_POLL.toNanos());
		}
	}

	private Duration awaitTermination(DelayedMethod method) {
		return this.configured.settings(method.timerBeanName()).awaitTermination().value();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	private static UnprocessedCalls report(String timerName, Set<Timeout> unprocessed) {
		UnprocessedCalls calls = UnprocessedCalls.of(unprocessed);
		if (!calls.isEmpty()) {
			logger.warn(calls.describe(timerName));
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("Timer '" + timerName + "' stopped with no delayed calls left");
		}
		return calls;
	}

	private Map<String, HashedWheelTimer> timers() {
		return this.beanFactory.getBeansOfType(HashedWheelTimer.class, false, false);
	}

}
