package io.github.wheeltimer.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of the auto-configured wheel timer and of {@code @DelayedExecution} methods,
 * under the {@code wheel-timer} prefix.
 */
@ConfigurationProperties("wheel-timer")
public class WheelTimerProperties {

	/**
	 * Default name of the executor bean that runs delayed methods: Spring Boot's.
	 */
	public static final String DEFAULT_EXECUTOR = "applicationTaskExecutor";

	/**
	 * Whether to auto-configure the timer and run @DelayedExecution methods on it. When false,
	 * annotated methods run at once.
	 */
	private boolean enabled = true;

	/**
	 * Length of one tick: the timer's precision. A delayed call runs on the first tick at or after
	 * its delay has passed. At least 1ms.
	 */
	private Duration tickDuration = Duration.ofMillis(100);

	/**
	 * Number of buckets on the wheel, rounded up to a power of two, from 1 to 1073741824 (2^30). One
	 * revolution lasts tick-duration times this; delays longer than a revolution wait several
	 * turns.
	 */
	private int ticksPerWheel = 512;

	/**
	 * Maximum number of delayed calls pending at once; a call beyond it is refused at once with a
	 * TaskRejectedException. 0 means no limit.
	 */
	private long maxPendingTimeouts = 0;

	/**
	 * Name of the timer's worker thread.
	 */
	private String threadName = "wheel-timer";

	/**
	 * Name of the Executor bean that runs @DelayedExecution methods. If no bean has the default
	 * name, the application's only Executor bean runs them.
	 */
	private String executor = DEFAULT_EXECUTOR;

	private final Shutdown shutdown = new Shutdown();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getTickDuration() {
		return this.tickDuration;
	}

	public void setTickDuration(Duration tickDuration) {
		this.tickDuration = tickDuration;
	}

	public int getTicksPerWheel() {
		return this.ticksPerWheel;
	}

	public void setTicksPerWheel(int ticksPerWheel) {
		this.ticksPerWheel = ticksPerWheel;
	}

	public long getMaxPendingTimeouts() {
		return this.maxPendingTimeouts;
	}

	public void setMaxPendingTimeouts(long maxPendingTimeouts) {
		this.maxPendingTimeouts = maxPendingTimeouts;
	}

	public String getThreadName() {
		return this.threadName;
	}

	public void setThreadName(String threadName) {
		this.threadName = threadName;
	}

	public String getExecutor() {
		return this.executor;
	}

	public void setExecutor(String executor) {
		this.executor = executor;
	}

	public Shutdown getShutdown() {
		return this.shutdown;
	}

	/**
	 * What happens to delayed calls when the application stops.
	 */
	public static class Shutdown {

		/**
		 * How long to keep running delayed calls that fall due after shutdown begins. Calls still
		 * pending then never run: they are logged at WARN and their futures cancelled.
		 */
		private Duration drainTimeout = Duration.ofSeconds(0);

		/**
		 * Maximum time to wait for delayed methods that are already running (or queued in the
		 * executor) when shutdown begins, after the drain.
		 */
		private Duration awaitTermination = Duration.ofSeconds(10);

		public Duration getDrainTimeout() {
			return this.drainTimeout;
		}

		public void setDrainTimeout(Duration drainTimeout) {
			this.drainTimeout = drainTimeout;
		}

		public Duration getAwaitTermination() {
			return this.awaitTermination;
		}

		public void setAwaitTermination(Duration awaitTermination) {
			this.awaitTermination = awaitTermination;
		}

	}

}
