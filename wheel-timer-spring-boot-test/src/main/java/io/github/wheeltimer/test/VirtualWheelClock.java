package io.github.wheeltimer.test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.annotation.DelayedMethod;
import io.github.wheeltimer.annotation.DelayedMethodRegistry;
import io.github.wheeltimer.virtualtime.VirtualTicker;
import org.jspecify.annotations.Nullable;

/**
 * The virtual clock of a {@link VirtualWheelTime @VirtualWheelTime} test: every wheel timer of the
 * context reads its time from here, and the time moves only when the test says so.
 * <p>
 * {@link #advance(Duration)} is the one method most tests need. It returns when every delayed
 * call that fell due up to the new time has <em>finished running</em>, on whatever executor runs
 * it, in due order, including the calls that those calls scheduled within the advanced window:
 * a heartbeat that re-arms itself every minute runs 30 times in {@code advance(30 min)}, not for
 * ever. The futures of future-returning delayed methods are complete when it returns, as long as
 * the method's own future was (a method that hands its result to another thread is finished when
 * it returns). Nothing sleeps in real time: the clock jumps from one tick that has something due
 * to the next, so 30 virtual minutes take milliseconds.
 * <ul>
 * <li><b>Precision.</b> A call runs on the first tick of its timer at or after its due time,
 * never before. It runs exactly at its due time when that is a tick of its timer: when it was
 * made while the clock stood on a tick of that timer (after advances by whole ticks) and its delay
 * is a whole number of ticks. Then {@code advance(Duration.ofMinutes(30))} runs a call made 30
 * minutes earlier. Otherwise it runs at the end of the tick, up to a tick later: after
 * {@code advance(Duration.ofMillis(150))} on a 100 ms timer, a 1 s call runs at 1.2 s. Calls due
 * on the same tick are not ordered among themselves.</li>
 * <li><b>A call that blocks.</b> A delayed method that does not finish within
 * {@link VirtualTicker#DEFAULT_SETTLE_TIMEOUT 10 seconds} of real time makes {@code advance} throw
 * an {@link IllegalStateException} that names the method, instead of hanging the test. Raise the
 * bound with {@link #setSettleTimeout(Duration)} for a method that really works that long.</li>
 * <li><b>Threads.</b> Advance from the test's thread, one advance at a time. Calls scheduled from
 * other threads while an advance runs are due relative to the virtual time it has reached.</li>
 * <li><b>Other readers of time.</b> {@link #asClock()} is a {@link Clock} on this virtual time,
 * for code of your own that must agree with the timers.</li>
 * </ul>
 */
public final class VirtualWheelClock {

	private final VirtualTicker ticker;

	private final Instant start;

	/*
	 * Set once, by the auto-configuration, after the context's singletons exist: before that no
	 * delayed method can have run. Read by the advancing thread; volatile publishes them to it.
	 */
	private volatile Map<String, HashedWheelTimer> timers = Map.of();

	private volatile @Nullable DelayedMethodRegistry registry;

	/**
	 * Creates a clock whose virtual time starts at {@code start}.
	 * @param ticker the ticker every timer of the context is built with
	 * @param start the instant that virtual time zero stands for, as {@link #asClock()} shows it
	 */
	public VirtualWheelClock(VirtualTicker ticker, Instant start) {
		this.ticker = Objects.requireNonNull(ticker, "ticker must not be null");
		this.start = Objects.requireNonNull(start, "start must not be null");
		ticker.awaitAlso(this::busy);
	}

	/**
	 * Moves virtual time forward by {@code amount} and returns when every delayed call that fell
	 * due up to the new time has finished running, including those that such calls scheduled
	 * within the window.
	 * @param amount how far to move, zero or more
	 * @throws IllegalArgumentException if {@code amount} is negative
	 * @throws IllegalStateException if a delayed call did not finish within the settle timeout;
	 * the message names its method
	 */
	public void advance(Duration amount) {
		this.ticker.advance(amount);
	}

	/**
	 * Moves virtual time to the next tick on which a delayed call (or any timeout of the context's
	 * timers) runs, and returns when it has finished, as {@link #advance(Duration)} does.
	 * @return how far virtual time moved; {@link Duration#ZERO} if nothing is pending
	 * @throws IllegalStateException as {@link #advance(Duration)} does
	 */
	public Duration advanceToNextCall() {
		long handedToRunBefore = handedToRun();
		Duration moved = Duration.ZERO;
		while (pendingCalls() > 0) {
			// A timer's worker may also wake at a boundary only to take in new calls, or to move far
			// calls down a level of its wheel: go on until something ran.
			Duration step = this.ticker.advanceToNextWakeUp();
			if (step.isZero()) {
				break;
			}
			moved = moved.plus(step);
			if (handedToRun() != handedToRunBefore) {
				break;
			}
		}
		return moved;
	}

	/**
	 * Returns the virtual time elapsed since the context started.
	 * @return the elapsed virtual time
	 */
	public Duration elapsed() {
		return this.ticker.elapsed();
	}

	/**
	 * Returns the current virtual instant: the real instant the context started at, plus
	 * {@link #elapsed()}.
	 * @return the current virtual instant
	 */
	public Instant instant() {
		return this.start.plus(elapsed());
	}

	/**
	 * Returns a {@link Clock} on this virtual time, in UTC, for code of your own that must agree
	 * with the timers.
	 * @return a clock whose instant is {@link #instant()}
	 */
	public Clock asClock() {
		return new VirtualClock(ZoneOffset.UTC);
	}

	/**
	 * Returns how many calls wait on the context's timers: accepted, neither run nor cancelled.
	 * @return the pending calls of every timer
	 */
	public long pendingCalls() {
		return this.timers.values().stream().mapToLong(HashedWheelTimer::pendingTimeouts).sum();
	}

	/**
	 * Sets how long, in real time, an advance waits at most for what fell due at one virtual time
	 * to finish: 10 seconds unless changed. The clock belongs to a context that later tests may
	 * share, so a test that changes it should set it back.
	 * @param settleTimeout the longest wait, positive
	 */
	public void setSettleTimeout(Duration settleTimeout) {
		this.ticker.setSettleTimeout(settleTimeout);
	}

	/**
	 * Returns the ticker the context's timers read, to build a timer of your own on this clock
	 * ({@code HashedWheelTimer.builder().ticker(clock.ticker())}) where you do not use the
	 * auto-configured builder.
	 * @return the ticker
	 */
	public VirtualTicker ticker() {
		return this.ticker;
	}

	void watch(Map<String, HashedWheelTimer> timers, @Nullable DelayedMethodRegistry registry) {
		this.timers = Map.copyOf(timers);
		this.registry = registry;
	}

	@Override
	public String toString() {
		return "VirtualWheelClock(" + elapsed() + " elapsed, at " + instant() + ")";
	}

	/** Fired, or being run: counted once a worker hands a timeout over. */
	private long handedToRun() {
		long handed = 0;
		for (HashedWheelTimer timer : this.timers.values()) {
			handed += timer.counters().fired();
		}
		return handed;
	}

	/**
	 * What still runs outside the timers' worker threads: delayed calls handed to their executor,
	 * and tasks of timers built with a task executor. Asked by the ticker, from the advancing
	 * thread, each time the workers have settled.
	 */
	private @Nullable String busy() {
		DelayedMethodRegistry registry = this.registry;
		if (registry != null) {
			List<DelayedMethod> running = registry.inFlight();
			if (!running.isEmpty()) {
				return "delayed calls still running: " + running.stream()
					.map((method) -> method.description() + " x" + method.inFlight())
					.collect(Collectors.joining(", "));
			}
		}
		for (Map.Entry<String, HashedWheelTimer> entry : this.timers.entrySet()) {
			long running = entry.getValue().counters().running();
			if (running > 0) {
				return running + " task(s) of timer '" + entry.getKey() + "' still running";
			}
		}
		return null;
	}

	private final class VirtualClock extends Clock {

		private final ZoneId zone;

		VirtualClock(ZoneId zone) {
			this.zone = zone;
		}

		@Override
		public ZoneId getZone() {
			return this.zone;
		}

		@Override
		public Clock withZone(ZoneId zone) {
			return new VirtualClock(zone);
		}

		@Override
		public Instant instant() {
			return VirtualWheelClock.this.instant();
		}

		@Override
		public String toString() {
			return "VirtualClock(" + VirtualWheelClock.this + ", " + this.zone + ")";
		}

	}

}
