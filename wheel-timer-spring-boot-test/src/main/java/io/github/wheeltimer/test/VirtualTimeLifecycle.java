package io.github.wheeltimer.test;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.WheelSnapshot;
import io.github.wheeltimer.annotation.DelayedMethodRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.ExecutorConfigurationSupport;

/**
 * Shows the clock the context's timers once they exist, and keeps virtual time moving while the
 * context closes.
 * <p>
 * A timer that stops gracefully keeps firing for its drain timeout, which it measures on its own
 * clock: on a virtual clock that nobody advances, that time would never pass and the context
 * would never close. So, stopping in a phase before the timers' own lifecycle, this starts a
 * thread that advances virtual time from wake-up to wake-up while a timer drains. It ends once
 * every timer's worker has ended. If virtual time cannot move (a delayed call never finishes) or a
 * bound of real time passes, it jumps far ahead, so that the drains end and the context closes.
 */
final class VirtualTimeLifecycle implements SmartLifecycle {

	/** Before the timers' lifecycle ({@code ExecutorConfigurationSupport.DEFAULT_PHASE + 1024}) stops them. */
	static final int PHASE = ExecutorConfigurationSupport.DEFAULT_PHASE + 2048;

	private static final Duration DRIVE_LIMIT = Duration.ofSeconds(60);

	private static final long IDLE_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	private static final Duration FAR_AHEAD = Duration.ofDays(36_500);

	private static final Log logger = LogFactory.getLog(VirtualTimeLifecycle.class);

	private final VirtualWheelClock clock;

	private final ListableBeanFactory beanFactory;

	private volatile boolean running;

	VirtualTimeLifecycle(VirtualWheelClock clock, ListableBeanFactory beanFactory) {
		this.clock = clock;
		this.beanFactory = beanFactory;
	}

	@Override
	public void start() {
		this.clock.watch(this.beanFactory.getBeansOfType(HashedWheelTimer.class, false, false),
				this.beanFactory.getBeanProvider(DelayedMethodRegistry.class).getIfAvailable());
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
		// Looked up now, while the context still stands (a timer created after it started drains
		// too); the driver must not ask the bean factory once the context has gone on to close.
		Collection<HashedWheelTimer> timers = List
			.copyOf(this.beanFactory.getBeansOfType(HashedWheelTimer.class, false, false).values());
		Thread driver = new Thread(() -> driveDrains(timers), "virtual-wheel-time-shutdown");
		driver.setDaemon(true);
		driver.start();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	private void driveDrains(Collection<HashedWheelTimer> timers) {
		long giveUpAt = System.nanoTime() + DRIVE_LIMIT.toNanos();
		try {
			while (System.nanoTime() - giveUpAt < 0) {
				List<WheelSnapshot> alive = timers.stream()
					.map(HashedWheelTimer::snapshot)
					.filter((snapshot) -> snapshot.worker().alive())
					.toList();
				if (alive.isEmpty()) {
					return;
				}
				if (alive.stream().noneMatch((snapshot) -> snapshot.state() == WheelSnapshot.State.SHUTDOWN)) {
					// No timer drains right now: the next one has not been told to stop yet.
					LockSupport.parkNanos(this, IDLE_POLL_NANOS);
					continue;
				}
				// A draining worker never sleeps past its drain's end, so the next wake-up is at the
				// latest there: the other timers run only what falls due during the drain, as they
				// would in real time.
				this.clock.ticker().advanceToNextWakeUp();
			}
			giveUp("after " + DRIVE_LIMIT.toSeconds() + "s of real time", null);
		}
		catch (RuntimeException ex) {
			giveUp("because virtual time could not move", ex);
		}
	}

	/**
	 * The timers' lifecycle waits for each drain to end, on virtual time: without this, a delayed
	 * call that never finishes would hold the context's close for ever.
	 */
	private void giveUp(String why, @Nullable RuntimeException cause) {
		logger.warn("Stopped waiting for the timers' shutdown drain " + why + "; virtual time jumps a century"
				+ " ahead, so the drains end now and the calls they would have run are reported unprocessed or"
				+ " run late", cause);
		this.clock.ticker().jump(FAR_AHEAD);
	}

}
