package io.github.wheeltimer.durable.cooperation;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.Ticker;
import io.github.wheeltimer.Timeout;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Where this instance's own durable work runs: its polls and its heartbeats, each kind on a
 * thread of its own, each kind armed on a wheel of its own clock.
 * <p>
 * Polls follow the application's clock, on a wheel built like the application's timers, so that
 * a test's virtual clock runs them when it moves. Heartbeats are judged by the database on its
 * real clock: they are armed on a small private wheel on real time, which neither a virtual clock
 * (that may stand still for as long as a test likes) nor the application's customizations of its
 * timers (a task executor kept busy, say) can hold up. Each kind keeps its thread so that neither
 * waits for the other: a poll that waits for a row lock or a connection must not make the
 * instance miss its beats and lose its lease. Each job arms its next run when it ends, so jobs of
 * a kind never overlap.
 */
public final class DurableThreads {

	/** Polls' wheel, on the application's clock. */
	private final HashedWheelTimer wheel;

	/** Heartbeats' wheel, on real time. */
	private final HashedWheelTimer realTime;

	private final ExecutorService polls = Executors.newSingleThreadExecutor(daemon("wheel-timer-durable-poll"));

	private final ExecutorService beats = Executors.newSingleThreadExecutor(daemon("wheel-timer-durable-heartbeat"));

	/**
	 * @param builder a builder of the application's timers, on their clock (a test's virtual one
	 * too)
	 */
	public DurableThreads(HashedWheelTimer.Builder builder) {
		this.wheel = builder.threadFactory(daemon("wheel-timer-durable-poll-timer")).build();
		this.realTime = HashedWheelTimer.builder()
			.tickDuration(Duration.ofMillis(100))
			.ticksPerWheel(64)
			.threadFactory(daemon("wheel-timer-durable-heartbeat-timer"))
			.build();
	}

	/**
	 * Makes the threads of durable calls: daemons, so that a JVM whose application forgot to close
	 * its context still exits.
	 * @param name the threads' name, which a number follows
	 * @return the factory
	 */
	static ThreadFactory daemon(String name) {
		CustomizableThreadFactory threads = new CustomizableThreadFactory(name + "-");
		threads.setDaemon(true);
		return threads;
	}

	public Ticker ticker() {
		return this.wheel.ticker();
	}

	public void start() {
		this.wheel.start();
		this.realTime.start();
	}

	/** Runs a poll on the polls' thread now. */
	void pollNow(Runnable poll) {
		this.polls.execute(poll);
	}

	/**
	 * Arms a poll: after {@code delay} of the application's clock, {@code due} runs on the wheel's
	 * thread, where it only counts the poll as in progress and hands it to {@link #pollNow}, so
	 * that a virtual clock sees the poll busy from the instant it is due.
	 */
	Timeout poll(Runnable due, Duration delay) {
		return this.wheel.newTimeout((timeout) -> due.run(), delay.toNanos(), TimeUnit.NANOSECONDS);
	}

	/** Arms a heartbeat, to run on the heartbeats' thread after {@code delay} of real time. */
	Timeout beat(Runnable beat, Duration delay) {
		return this.realTime.newTimeout((timeout) -> this.beats.execute(beat), delay.toNanos(), TimeUnit.NANOSECONDS);
	}

	/** Stops everything at once, interrupting a poll or a beat that waits for the database. */
	public void end() {
		this.wheel.stop();
		this.realTime.stop();
		this.polls.shutdownNow();
		this.beats.shutdownNow();
	}

}
