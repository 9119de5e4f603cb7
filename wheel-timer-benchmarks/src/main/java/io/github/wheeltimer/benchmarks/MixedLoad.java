package io.github.wheeltimer.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Rows H1 and H1b: a steady mixed workload, the case hierarchical wheels are for. A million far
 * timeouts stay pending while near ones fall due in every tick, so a single-level wheel finds
 * something due in every bucket it reaches and walks the far timeouts that share it, once per
 * revolution, long before they are due.
 * <ul>
 * <li><b>Far:</b> 1,000,000 scheduled at once with delays spread uniformly over (0, 30 min], then
 * new ones at 1,000,000 per 30 minutes (555.6/s), each due in exactly 30 minutes. As many fall due
 * as arrive, so about 1,000,000 stay pending, spread evenly over the next 30 minutes: a server
 * holding a million idle sessions or leases. One shared task counts them.</li>
 * <li><b>Near:</b> 10,000 per second, each due in 100 ms: request timeouts.</li>
 * </ul>
 * One producer thread schedules both, paced against an absolute schedule in steps of 100 µs (one
 * near per step, and a far one every 18 steps); after a late wake-up it catches up on what it owes
 * rather than drifting. After a settling time of 3 s (5 s with {@code --full}), in which the new
 * far timeouts reach the wheels, the timers' code gets compiled and the near stream reaches its
 * steady state (each fires 100 ms after it came), a window of wall time measures:
 * <ul>
 * <li><b>worker CPU</b>: the CPU time of the thread that keeps time (the wheels' worker, the
 * executor's thread, Kafka's reaper) over the window's wall time, in % of one core, read with
 * {@code ThreadMXBean} as in row R1;</li>
 * <li><b>wake-ups/s</b>: the growth of that thread's {@code voluntary_ctxt_switches} in /proc
 * (each one a sleep, so a wake-up after it), as in row I1;</li>
 * <li><b>near lateness</b> of the near timeouts scheduled in the window, measured as rows L1 to L3
 * do: the intended time is the clock read just before {@code schedule} plus 100 ms, and each task
 * reads the clock when it runs. p50, p99, max, and how many ran before their intended time
 * (early), with the earliest.</li>
 * </ul>
 * The ours, netty, jdk-stpe and kafka columns are measured; nothing is cancelled, so jdk-stpe-roc
 * would measure the same as jdk-stpe. Kafka's reaper hands due tasks to a thread of its own
 * ({@code executor-bench}), whose CPU is given beside the reaper's; the wheels and the executor run
 * these tiny tasks on the thread that keeps time. The ratio is the worker CPU's.
 * <ul>
 * <li>H1: tick 10 ms, 512 buckets (a revolution of 5.12 s), window 20 s (60 s);</li>
 * <li>H1b: tick 1 ms, 512 buckets (0.512 s), window 10 s (30 s).</li>
 * </ul>
 */
final class MixedLoad implements PlainRow {

	private static final int TICKS_PER_WHEEL = 512;

	private static final List<Peer> PEERS = List.of(Peer.OURS, Peer.NETTY, Peer.JDK, Peer.KAFKA);

	/** Far timeouts pending: scheduled at once first, then kept there by new ones. */
	static final int FAR = 1_000_000;

	/** The far timeouts' delays: spread over (0, 30 min] at first, then exactly 30 min. */
	static final long FAR_HORIZON = TimeUnit.MINUTES.toNanos(30);

	static final int NEAR_PER_SECOND = 10_000;

	static final long NEAR_DELAY = TimeUnit.MILLISECONDS.toNanos(100);

	/**
	 * The producer's step: one near timeout's worth, so that the near stream comes spread out as
	 * requests would, not in clumps of simultaneous deadlines (which would spare the JDK's executor
	 * most of its wake-ups). The thread wakes that often if it can, later if it cannot (parking
	 * rounds up), and then schedules all it owes.
	 */
	private static final long STEP = TimeUnit.SECONDS.toNanos(1) / NEAR_PER_SECOND;

	/** How long after the last near timeout fell due a peer may fire none before it is given up on. */
	private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(2);

	/** However a peer keeps firing, it has at most this long after the last near timeout fell due. */
	private static final long CAP_NANOS = TimeUnit.SECONDS.toNanos(30);

	/** Kafka's {@code SystemTimer} names its task thread "executor-" and the name Peer gives it. */
	private static final String KAFKA_TASK_THREAD = "executor-bench";

	/** Marks a slot whose near timeout has not fired: no real lateness comes near it. */

	private final String id;

	private final String title;

	private final Duration tick;

	private final int quickWindowSeconds;

	private final int fullWindowSeconds;

	private MixedLoad(String id, String title, Duration tick, int quickWindowSeconds, int fullWindowSeconds) {
		this.id = id;
		this.title = title;
		this.tick = tick;
		this.quickWindowSeconds = quickWindowSeconds;
		this.fullWindowSeconds = fullWindowSeconds;
	}

	static List<PlainRow> rows() {
		return List.of(
				new MixedLoad("H1", "mixed: 1M far pending (due within 30 min) + 10k/s near (due in 100 ms), tick 10 ms:"
						+ " worker CPU, wake-ups/s, near lateness", Duration.ofMillis(10), 20, 60),
				new MixedLoad("H1b", "H1 at tick 1 ms", Duration.ofMillis(1), 10, 30));
	}

	@Override
	public String id() {
		return this.id;
	}

	@Override
	public String title() {
		return this.title;
	}

	@Override
	public Map<Peer, Measurement> measure(Mode mode) {
		return Lateness.eachPeer(this.id, PEERS, (peer) -> measure(peer, mode));
	}

	private Measurement measure(Peer peer, Mode mode) throws InterruptedException {
		long settle = TimeUnit.SECONDS.toNanos((mode == Mode.QUICK) ? 3 : 5);
		long window = TimeUnit.SECONDS.toNanos((mode == Mode.QUICK) ? this.quickWindowSeconds : this.fullWindowSeconds);
		// Room for every near timeout of the window, and a second's more for a producer catching up.
		int expectedNear = (int) (window / 1_000_000_000L * NEAR_PER_SECOND);
		LatenessRecorder recorder = new LatenessRecorder(expectedNear + NEAR_PER_SECOND);
		Peer.PeerTimer timer = peer.create(this.tick, TICKS_PER_WHEEL);
		Producer producer = null;
		try {
			LongAdder farFired = new LongAdder();
			Object farTask = timer.task(farFired::increment);
			// The same delays for every peer.
			SplittableRandom random = new SplittableRandom(42);
			for (int i = 0; i < FAR; i++) {
				timer.schedule(farTask, 1 + random.nextLong(FAR_HORIZON));
			}
			long start = System.nanoTime();
			long windowStart = start + settle;
			long windowEnd = windowStart + window;
			producer = new Producer(timer, farTask, recorder, start, windowStart, windowEnd);
			producer.start();

			sleepUntil(windowStart);
			Thread worker = timer.worker();
			Thread taskThread = (peer == Peer.KAFKA) ? Threads.named(KAFKA_TASK_THREAD) : null;
			long switches = Threads.voluntarySwitches(Peer.WORKER_NAME);
			long cpu = Threads.cpuNanos(worker);
			long taskCpu = (taskThread != null) ? Threads.cpuNanos(taskThread) : 0;
			long far = farFired.sum();
			long measuredFrom = System.nanoTime();
			sleepUntil(windowEnd);
			long cpuAfter = Threads.cpuNanos(worker);
			long taskCpuAfter = (taskThread != null) ? Threads.cpuNanos(taskThread) : 0;
			long switchesAfter = Threads.voluntarySwitches(Peer.WORKER_NAME);
			long farAfter = farFired.sum();
			long wall = System.nanoTime() - measuredFrom;

			producer.finish();
			if (producer.failure != null) {
				return new Measurement(Double.NaN, "failed: the producer failed: " + producer.failure);
			}
			if (cpu < 0 || cpuAfter < 0) {
				throw new IllegalStateException("no CPU time for thread " + worker.getName() + " (has it ended?)");
			}
			int recorded = producer.recorded;
			recorder.awaitFired(recorded, NEAR_DELAY, STALL_NANOS, CAP_NANOS);

			double cpuPercent = 100.0 * (cpuAfter - cpu) / wall;
			double wakeUps = (switches < 0 || switchesAfter < 0) ? Double.NaN : (switchesAfter - switches) * 1e9 / wall;
			double farPerSecond = (farAfter - far) * 1e9 / wall;
			System.err.printf(Locale.ROOT, "%s %s: %d near measured, far fired %.0f/s in the window, producer %.2f ms"
					+ " behind at worst%n", this.id, peer.label(), recorded, farPerSecond,
					producer.worstLagNanos / 1e6);
			StringBuilder text = new StringBuilder(String.format(Locale.ROOT, "%.2f %% CPU, %.0f wake-ups/s", cpuPercent,
					wakeUps));
			if (taskThread != null) {
				text.append(String.format(Locale.ROOT, " (its task thread: %.2f %% CPU)",
						100.0 * (taskCpuAfter - taskCpu) / wall));
			}
			text.append("; near: ").append(summarize(recorder, recorded));
			if (recorded < expectedNear * 99L / 100) {
				// The producer could not keep up (it shares 2 cores with the worker): say so.
				text.append(String.format(Locale.ROOT, " (producer reached %.0f near/s of %d)", recorded * 1e9 / window,
						NEAR_PER_SECOND));
			}
			if (recorder.fired() < recorded) {
				return new Measurement(Double.NaN, "failed: " + (recorded - recorder.fired()) + " of " + recorded
						+ " near timeouts never fired; " + text);
			}
			return new Measurement(cpuPercent, text.toString());
		}
		finally {
			if (producer != null) {
				producer.finish();
			}
			// Discards the million far timeouts.
			Lateness.closeAndJoin(timer);
		}
	}

	private static void sleepUntil(long time) throws InterruptedException {
		long left;
		while ((left = time - System.nanoTime()) > 0) {
			Thread.sleep(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
		}
	}

	/** Runs the rows in QUICK mode, or FULL with the argument {@code full}, and prints them. */
	public static void main(String[] args) throws Exception {
		Lateness.print(rows(), args);
	}

	/**
	 * Schedules the near stream and the far arrivals, against an absolute schedule from
	 * {@code start}: by elapsed time t it has scheduled t x 10,000/s near and t x 555.6/s far
	 * timeouts. It records the near timeouts it schedules between {@code windowStart} and
	 * {@code windowEnd} (by its own clock reading); the others get a task that does nothing.
	 */
	private static final class Producer extends Thread {

		private final Peer.PeerTimer timer;

		private final Object farTask;

		private final Object unmeasuredNearTask;

		private final LatenessRecorder recorder;

		private final long start;

		private final long windowStart;

		private final long windowEnd;

		private volatile boolean stopped;

		/** Near timeouts recorded; read after {@link #finish()} (the join publishes it). */
		int recorded;

		/** How far behind its schedule the producer was at worst when it woke, in nanoseconds. */
		long worstLagNanos;

		volatile Throwable failure;

		Producer(Peer.PeerTimer timer, Object farTask, LatenessRecorder recorder, long start, long windowStart,
				long windowEnd) {
			super("bench-producer");
			setDaemon(true);
			this.timer = timer;
			this.farTask = farTask;
			this.unmeasuredNearTask = timer.task(() -> {
			});
			this.recorder = recorder;
			this.start = start;
			this.windowStart = windowStart;
			this.windowEnd = windowEnd;
		}

		@Override
		public void run() {
			try {
				long near = 0;
				long far = 0;
				long step = 1;
				while (!this.stopped) {
					long target = this.start + step * STEP;
					long wait;
					while ((wait = target - System.nanoTime()) > 0) {
						LockSupport.parkNanos(wait);
					}
					long now = System.nanoTime();
					this.worstLagNanos = Math.max(this.worstLagNanos, now - target);
					long elapsed = now - this.start;
					long nearOwed = elapsed * NEAR_PER_SECOND / 1_000_000_000L;
					long farOwed = elapsed * FAR / FAR_HORIZON;
					for (; near < nearOwed; near++) {
						scheduleNear();
					}
					for (; far < farOwed; far++) {
						this.timer.schedule(this.farTask, FAR_HORIZON);
					}
					// The next step still ahead: a late wake-up has been caught up on above.
					step = Math.max(step + 1, elapsed / STEP + 1);
				}
			}
			catch (Throwable ex) {
				this.failure = ex;
			}
		}

		private void scheduleNear() {
			// Read the clock before the timer does, as Lateness does: the intended time is then
			// never later than the timer's own deadline.
			long now = System.nanoTime();
			if (now - this.windowStart >= 0 && now - this.windowEnd < 0 && this.recorded < this.recorder.capacity()) {
				int index = this.recorded++;
				this.timer.schedule(this.timer.task(new LatenessRecorder.Probe(this.recorder, index, now + NEAR_DELAY)), NEAR_DELAY);
			}
			else {
				this.timer.schedule(this.unmeasuredNearTask, NEAR_DELAY);
			}
		}

		/** Stops scheduling and waits for the thread to end. Idempotent. */
		void finish() throws InterruptedException {
			this.stopped = true;
			join(TimeUnit.SECONDS.toMillis(10));
		}

	}

	/** p50 / p99 / max in ms, then the early ones: how many, what share, and the earliest. */
	private static String summarize(LatenessRecorder recorder, int count) {
		long[] sorted = recorder.sortedLateness(count);
		int n = sorted.length;
		if (n == 0) {
			return "none of " + count + " fired";
		}
		int early = LatenessRecorder.early(sorted);
		String text = String.format(Locale.ROOT, "p50 %.2f / p99 %.2f / max %.1f ms, %,d early (%.2f %%)",
				LatenessRecorder.percentile(sorted, 0.50), LatenessRecorder.percentile(sorted, 0.99),
				sorted[n - 1] / 1e6, early, 100.0 * early / n);
		if (early > 0) {
			text += String.format(Locale.ROOT, ", earliest %.2f ms", sorted[0] / 1e6);
		}
		if (recorder.duplicates() > 0) {
			text += ", " + recorder.duplicates() + " fired twice";
		}
		return text;
	}

}
