package io.github.wheeltimer.test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.WheelSnapshot;
import io.github.wheeltimer.annotation.DelayedMethodRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

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
 * thread that advances virtual time while a timer drains: from wake-up to wake-up once every
 * timer left is draining, a tick of the draining timers at a time while another timer still runs
 * (it must not run calls due after the drain). It ends once every timer's worker has ended, or
 * after a bound of real time.
 */
final class VirtualTimeLifecycle implements SmartLifecycle {

	/** Before the timers' lifecycle ({@code ExecutorConfigurationSupport.DEFAULT_PHASE + 1024}) stops them. */
	static final int PHASE = ExecutorConfigurationSupport.DEFAULT_PHASE + 2048;

	private static final Duration DRIVE_LIMIT = Duration.ofSeconds(60);

	private static final long IDLE_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

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
		if (this.clock.timers().isEmpty()) {
			return;
		}
		Thread driver = new Thread(this::driveDrains, "virtual-wheel-time-shutdown");
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

	private void driveDrains() {
		long giveUpAt = System.nanoTime() + DRIVE_LIMIT.toNanos();
		try {
			while (System.nanoTime() - giveUpAt < 0) {
				List<WheelSnapshot> snapshots = this.clock.timers().values().stream().map(HashedWheelTimer::snapshot).toList();
				if (snapshots.stream().noneMatch((snapshot) -> snapshot.worker().alive())) {
					return;
				}
				List<WheelSnapshot> alive = snapshots.stream().filter((snapshot) -> snapshot.worker().alive()).toList();
				Duration step = alive.stream()
					.filter((snapshot) -> snapshot.state() == WheelSnapshot.State.SHUTDOWN)
					.map(WheelSnapshot::tickDuration)
					.min(Duration::compareTo)
					.orElse(null);
				if (step == null) {
					// No timer drains right now: the next one has not been told to stop yet.
					LockSupport.parkNanos(this, IDLE_POLL_NANOS);
				}
				else if (alive.stream().allMatch((snapshot) -> snapshot.state() == WheelSnapshot.State.SHUTDOWN)) {
					// Every wake-up is a draining timer's, and none lies past its drain: jump.
					this.clock.ticker().advanceToNextWakeUp();
				}
				else {
					// A timer that is still running may have calls due after the drain: a tick at a time.
					this.clock.advance(step);
				}
			}
			logger.warn("Gave up moving virtual time for the timers' shutdown drain after " + DRIVE_LIMIT.toSeconds()
					+ "s of real time: " + this.clock.timers().keySet());
		}
		catch (RuntimeException ex) {
			logger.warn("Could not move virtual time for the timers' shutdown drain", ex);
		}
	}

}
