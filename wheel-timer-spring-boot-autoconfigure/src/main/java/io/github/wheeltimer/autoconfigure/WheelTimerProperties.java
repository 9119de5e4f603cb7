package io.github.wheeltimer.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of the auto-configured wheel timers and of {@code @DelayedExecution} methods,
 * under the {@code wheel-timer} prefix: the default timer, {@code wheelTimer}, from the top-level
 * settings, and one more timer per entry of {@code wheel-timer.timers}.
 */
@ConfigurationProperties("wheel-timer")
public class WheelTimerProperties {

	/**
	 * Default name of the executor bean that runs delayed methods: Spring Boot's.
	 */
	public static final String DEFAULT_EXECUTOR = "applicationTaskExecutor";

	/**
	 * Whether to auto-configure the timer and run @DelayedExecution methods on it. When false,
	 * annotated methods run at once, in the caller's thread.
	 */
	private boolean enabled = true;

	/**
	 * Length of one tick: the timer's precision. A delayed call runs on the first tick at or after
	 * its delay has passed. At least 1ms.
	 */
	private Duration tickDuration = Duration.ofMillis(100);

	/**
	 * Number of one-tick buckets of the wheel's level 0, rounded up to a power of two, from 1 to
	 * 1073741824 (2^30). A call due within level 0's turn, tick-duration times this, goes straight
	 * into a bucket; a further one waits in an upper level and moves down at most once per level.
	 * Each bucket costs about 40 bytes.
	 */
	private int ticksPerWheel = 512;

	/**
	 * Maximum number of delayed calls pending at once; a call beyond it is refused at once with a
	 * TaskRejectedException. 0 means no limit.
	 */
	private long maxPendingTimeouts = 0;

	/**
	 * Name of the timer's worker thread, a daemon thread.
	 */
	private String threadName = "wheel-timer";

	/**
	 * Name of the Executor bean that runs @DelayedExecution methods. If no bean has the default
	 * name, the application's only Executor bean runs them.
	 */
	private String executor = DEFAULT_EXECUTOR;

	private final Shutdown shutdown = new Shutdown();

	/**
	 * Further timers, each a HashedWheelTimer bean named by its key, for
	 * @DelayedExecution(timer = "name"). A setting an entry leaves out is the default timer's.
	 */
	private final Map<String, NamedTimer> timers = new LinkedHashMap<>();

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

	public Map<String, NamedTimer> getTimers() {
		return this.timers;
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

	/**
	 * One entry of {@code wheel-timer.timers}: the same settings as the default timer, each
	 * falling back to the default timer's when left out.
	 */
	public static class NamedTimer {

		/**
		 * Length of one tick: the timer's precision. At least 1ms. Defaults to
		 * wheel-timer.tick-duration.
		 */
		private @Nullable Duration tickDuration;

		/**
		 * Number of one-tick buckets of the wheel's level 0, rounded up to a power of two, from 1
		 * to 1073741824 (2^30). Defaults to wheel-timer.ticks-per-wheel.
		 */
		private @Nullable Integer ticksPerWheel;

		/**
		 * Maximum number of delayed calls pending at once on this timer; 0 means no limit. Defaults
		 * to wheel-timer.max-pending-timeouts.
		 */
		private @Nullable Long maxPendingTimeouts;

		/**
		 * Name of the timer's worker thread. Defaults to wheel-timer.thread-name followed by a dash
		 * and the timer's name.
		 */
		private @Nullable String threadName;

		/**
		 * Name of the Executor bean that runs this timer's @DelayedExecution methods. Defaults to
		 * wheel-timer.executor.
		 */
		private @Nullable String executor;

		private final Shutdown shutdown = new Shutdown();

		public @Nullable Duration getTickDuration() {
			return this.tickDuration;
		}

		public void setTickDuration(@Nullable Duration tickDuration) {
			this.tickDuration = tickDuration;
		}

		public @Nullable Integer getTicksPerWheel() {
			return this.ticksPerWheel;
		}

		public void setTicksPerWheel(@Nullable Integer ticksPerWheel) {
			this.ticksPerWheel = ticksPerWheel;
		}

		public @Nullable Long getMaxPendingTimeouts() {
			return this.maxPendingTimeouts;
		}

		public void setMaxPendingTimeouts(@Nullable Long maxPendingTimeouts) {
			this.maxPendingTimeouts = maxPendingTimeouts;
		}

		public @Nullable String getThreadName() {
			return this.threadName;
		}

		public void setThreadName(@Nullable String threadName) {
			this.threadName = threadName;
		}

		public @Nullable String getExecutor() {
			return this.executor;
		}

		public void setExecutor(@Nullable String executor) {
			this.executor = executor;
		}

		public Shutdown getShutdown() {
			return this.shutdown;
		}

		/**
		 * What happens to this timer's delayed calls when the application stops.
		 */
		public static class Shutdown {

			/**
			 * How long to keep running this timer's delayed calls that fall due after shutdown
			 * begins. Defaults to wheel-timer.shutdown.drain-timeout.
			 */
			private @Nullable Duration drainTimeout;

			/**
			 * Maximum time to wait for this timer's delayed methods that are already running when
			 * shutdown begins. Defaults to wheel-timer.shutdown.await-termination.
			 */
			private @Nullable Duration awaitTermination;

			public @Nullable Duration getDrainTimeout() {
				return this.drainTimeout;
			}

			public void setDrainTimeout(@Nullable Duration drainTimeout) {
				this.drainTimeout = drainTimeout;
			}

			public @Nullable Duration getAwaitTermination() {
				return this.awaitTermination;
			}

			public void setAwaitTermination(@Nullable Duration awaitTermination) {
				this.awaitTermination = awaitTermination;
			}

		}

	}

}
