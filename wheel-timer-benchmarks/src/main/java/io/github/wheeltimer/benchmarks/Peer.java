package io.github.wheeltimer.benchmarks;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.Timeout;
import org.apache.kafka.server.util.timer.SystemTimer;
import org.apache.kafka.server.util.timer.SystemTimerReaper;
import org.apache.kafka.server.util.timer.TimerTask;

/**
 * The timers measured side by side, behind one small interface, so that every row runs the same
 * code against each of them. Each is built with the same tick and wheel size where it has them.
 */
public enum Peer {

	/** {@code io.github.wheeltimer.HashedWheelTimer}. */
	OURS("ours") {
		@Override
		PeerTimer create(Duration tick, int ticksPerWheel) {
			return new Ours(tick, ticksPerWheel);
		}
	},

	/** Netty's {@code io.netty.util.HashedWheelTimer} 4.2. */
	NETTY("netty") {
		@Override
		PeerTimer create(Duration tick, int ticksPerWheel) {
			return new Netty(tick, ticksPerWheel);
		}
	},

	/** A one-thread {@link ScheduledThreadPoolExecutor}: cancelled tasks stay queued until due. */
	JDK("jdk-stpe") {
		@Override
		PeerTimer create(Duration tick, int ticksPerWheel) {
			return new Jdk(false);
		}
	},

	/** A one-thread {@link ScheduledThreadPoolExecutor} with {@code setRemoveOnCancelPolicy(true)}. */
	JDK_REMOVE_ON_CANCEL("jdk-stpe-roc") {
		@Override
		PeerTimer create(Duration tick, int ticksPerWheel) {
			return new Jdk(true);
		}
	},

	/** Kafka's hierarchical {@code SystemTimer}, driven by its {@code SystemTimerReaper}. */
	KAFKA("kafka") {
		@Override
		PeerTimer create(Duration tick, int ticksPerWheel) {
			return new Kafka(tick, ticksPerWheel);
		}
	};

	/** The name of the thread that drives each timer, so that harnesses can find it in /proc. */
	static final String WORKER_NAME = "bench-worker";

	private final String label;

	Peer(String label) {
		this.label = label;
	}

	/**
	 * Returns the short name used in tables and on the command line.
	 * @return the label
	 */
	public String label() {
		return this.label;
	}

	/**
	 * Creates a started timer of this kind.
	 * @param tick the tick, for the wheels
	 * @param ticksPerWheel the wheel size, for the wheels
	 * @return the timer
	 */
	abstract PeerTimer create(Duration tick, int ticksPerWheel);

	static Peer ofLabel(String label) {
		for (Peer peer : values()) {
			if (peer.label.equals(label)) {
				return peer;
			}
		}
		throw new IllegalArgumentException("Unknown peer '" + label + "'");
	}

	/**
	 * One timer under measurement. Harnesses adapt a task once with {@link #task(Runnable)} and
	 * schedule it as often as they like, so that adapting costs nothing per schedule; the handle
	 * {@link #schedule} returns is the peer's own (no wrapper), and only {@link #cancel} reads it.
	 */
	interface PeerTimer extends AutoCloseable {

		/** The task in the peer's own type. */
		Object task(Runnable task);

		Object schedule(Object task, long delayNanos);

		void cancel(Object handle);

		/** The thread that keeps time (ticks, or waits for the next due task). */
		Thread worker();

		@Override
		void close();

	}

	/** Names the one thread a timer creates, and remembers it. */
	static final class WorkerThreadFactory implements ThreadFactory {

		private final AtomicReference<Thread> thread = new AtomicReference<>();

		@Override
		public Thread newThread(Runnable runnable) {
			Thread worker = new Thread(runnable, WORKER_NAME);
			worker.setDaemon(true);
			this.thread.set(worker);
			return worker;
		}

		Thread thread() {
			return this.thread.get();
		}

	}

	private static final class Ours implements PeerTimer {

		private final WorkerThreadFactory threads = new WorkerThreadFactory();

		private final HashedWheelTimer timer;

		Ours(Duration tick, int ticksPerWheel) {
			this.timer = HashedWheelTimer.builder()
				.tickDuration(tick)
				.ticksPerWheel(ticksPerWheel)
				.threadFactory(this.threads)
				.build();
			this.timer.start();
		}

		@Override
		public Object task(Runnable task) {
			return (io.github.wheeltimer.TimerTask) (timeout) -> task.run();
		}

		@Override
		public Object schedule(Object task, long delayNanos) {
			return this.timer.newTimeout((io.github.wheeltimer.TimerTask) task, delayNanos, TimeUnit.NANOSECONDS);
		}

		@Override
		public void cancel(Object handle) {
			((Timeout) handle).cancel();
		}

		@Override
		public Thread worker() {
			return this.threads.thread();
		}

		@Override
		public void close() {
			this.timer.stop();
		}

	}

	private static final class Netty implements PeerTimer {

		private final WorkerThreadFactory threads = new WorkerThreadFactory();

		private final io.netty.util.HashedWheelTimer timer;

		Netty(Duration tick, int ticksPerWheel) {
			this.timer = new io.netty.util.HashedWheelTimer(this.threads, tick.toNanos(), TimeUnit.NANOSECONDS,
					ticksPerWheel);
			this.timer.start();
		}

		@Override
		public Object task(Runnable task) {
			return (io.netty.util.TimerTask) (timeout) -> task.run();
		}

		@Override
		public Object schedule(Object task, long delayNanos) {
			return this.timer.newTimeout((io.netty.util.TimerTask) task, delayNanos, TimeUnit.NANOSECONDS);
		}

		@Override
		public void cancel(Object handle) {
			((io.netty.util.Timeout) handle).cancel();
		}

		@Override
		public Thread worker() {
			return this.threads.thread();
		}

		@Override
		public void close() {
			this.timer.stop();
		}

	}

	private static final class Jdk implements PeerTimer {

		private final WorkerThreadFactory threads = new WorkerThreadFactory();

		private final ScheduledThreadPoolExecutor executor;

		Jdk(boolean removeOnCancel) {
			this.executor = new ScheduledThreadPoolExecutor(1, this.threads);
			this.executor.setRemoveOnCancelPolicy(removeOnCancel);
			this.executor.prestartAllCoreThreads();
		}

		@Override
		public Object task(Runnable task) {
			return task;
		}

		@Override
		public Object schedule(Object task, long delayNanos) {
			return this.executor.schedule((Runnable) task, delayNanos, TimeUnit.NANOSECONDS);
		}

		@Override
		public void cancel(Object handle) {
			((ScheduledFuture<?>) handle).cancel(false);
		}

		@Override
		public Thread worker() {
			return this.threads.thread();
		}

		@Override
		public void close() {
			this.executor.shutdownNow();
		}

	}

	/**
	 * Kafka's timer keeps time with a reaper thread that advances the clock, and runs tasks on an
	 * executor thread of its own. Its API takes milliseconds: delays are rounded up to the next
	 * millisecond (rounding down would fire early), and every timeout needs its own task object,
	 * which carries the delay.
	 */
	private static final class Kafka implements PeerTimer {

		private final SystemTimerReaper timer;

		Kafka(Duration tick, int ticksPerWheel) {
			this.timer = new SystemTimerReaper(WORKER_NAME,
					new SystemTimer("bench", Math.max(1, tick.toMillis()), ticksPerWheel, System.nanoTime() / 1_000_000));
		}

		@Override
		public Object task(Runnable task) {
			return task;
		}

		@Override
		public Object schedule(Object task, long delayNanos) {
			KafkaTask timerTask = new KafkaTask((delayNanos + 999_999) / 1_000_000, (Runnable) task);
			this.timer.add(timerTask);
			return timerTask;
		}

		@Override
		public void cancel(Object handle) {
			((KafkaTask) handle).cancel();
		}

		@Override
		public Thread worker() {
			return Threads.named(Peer.WORKER_NAME);
		}

		@Override
		public void close() {
			try {
				this.timer.close();
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}

	}

	private static final class KafkaTask extends TimerTask {

		private final Runnable task;

		KafkaTask(long delayMs, Runnable task) {
			super(delayMs);
			this.task = task;
		}

		@Override
		public void run() {
			this.task.run();
		}

	}

}
