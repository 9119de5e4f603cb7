package io.github.wheeltimer.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Row E1: the cost of expiring a timeout. 1,000,000 timeouts share one absolute deadline, so they
 * fall due in the same tick; one shared task counts them with a plain counter (each peer runs its
 * tasks on one thread: the wheels' worker, the executor's thread, Kafka's task executor) and the
 * first and the last record {@link System#nanoTime()}. The cost per expiry is the time between the
 * first and the last over the N - 1 expiries between them; the task neither allocates nor blocks.
 * <p>
 * The deadline is 200 ms after the scheduling starts, plus the time Netty needs to move them all
 * into its wheel (100,000 per tick), plus three ticks to spare: due earlier, Netty would expire
 * them a tick apart as it takes them in, and the row would measure that limit instead of expiry.
 * Each timeout's delay is the deadline minus the time it is scheduled, so every peer (Kafka rounds
 * up to the millisecond) has the same deadline. An unmeasured round of 250,000 first gets each
 * peer's code compiled.
 */
final class Expiry implements PlainRow {

	private static final Duration TICK = Duration.ofMillis(100);

	private static final int TICKS_PER_WHEEL = 512;

	private static final int TIMEOUTS = 1_000_000;

	/** Netty's worker moves at most this many new timeouts into its wheel per tick. */
	private static final int NETTY_TRANSFER_PER_TICK = 100_000;

	/**
	 * A first, unmeasured round of this many timeouts gets each peer's expiry path compiled: every
	 * peer's code is new to the JVM when its turn comes, and the first hundred thousand expiries
	 * or so would otherwise run partly interpreted.
	 */
	private static final int WARM_UP_TIMEOUTS = 250_000;

	/** However slowly a peer expires, it has this long after the deadline. */
	private static final long GIVE_UP_NANOS = TimeUnit.SECONDS.toNanos(10);

	static List<PlainRow> rows() {
		return List.of(new Expiry());
	}

	@Override
	public String id() {
		return "E1";
	}

	@Override
	public String title() {
		return "ns per expiry, 1M due in the same tick, tick 100 ms";
	}

	@Override
	public Map<Peer, Measurement> measure(Mode mode) {
		return Lateness.eachPeer(id(), List.of(Peer.values()), Expiry::measure);
	}

	private static Measurement measure(Peer peer) throws InterruptedException {
		Measurement warmUp = expire(peer, WARM_UP_TIMEOUTS);
		if (Double.isNaN(warmUp.value())) {
			return new Measurement(Double.NaN, warmUp.text() + " (warm-up round)");
		}
		System.gc();
		return expire(peer, TIMEOUTS);
	}

	private static Measurement expire(Peer peer, int timeouts) throws InterruptedException {
		Counter counter = new Counter(timeouts);
		Peer.PeerTimer timer = peer.create(TICK, TICKS_PER_WHEEL);
		try {
			Object task = timer.task(counter);
			long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200)
					+ ((timeouts + NETTY_TRANSFER_PER_TICK - 1) / NETTY_TRANSFER_PER_TICK + 3) * TICK.toNanos();
			for (int i = 0; i < timeouts; i++) {
				timer.schedule(task, deadline - System.nanoTime());
			}
			long scheduled = System.nanoTime();
			long giveUp = deadline + GIVE_UP_NANOS;
			while (counter.last == 0 && System.nanoTime() - giveUp < 0) {
				Thread.sleep(10);
			}
			if (counter.last == 0) {
				// A racy read, but the count is only a clue here.
				return new Measurement(Double.NaN, "failed: " + counter.count + " of " + timeouts + " fired within "
						+ TimeUnit.NANOSECONDS.toSeconds(GIVE_UP_NANOS) + " s of the deadline");
			}
			if (counter.first - scheduled < 0) {
				return new Measurement(Double.NaN, String.format(Locale.ROOT,
						"failed: the first fired %.0f ms before scheduling ended (deadline too close)",
						(scheduled - counter.first) / 1e6));
			}
			double perExpiry = (double) (counter.last - counter.first) / (timeouts - 1);
			String text = String.format(Locale.ROOT, "%.1f ns", perExpiry);
			if (counter.first - deadline < 0) {
				text += String.format(Locale.ROOT, " (first fired %.1f ms early)", (deadline - counter.first) / 1e6);
			}
			return new Measurement(perExpiry, text);
		}
		finally {
			Lateness.closeAndJoin(timer);
		}
	}

	/** Runs the row in QUICK mode, or FULL with the argument {@code full}, and prints it. */
	public static void main(String[] args) throws Exception {
		Lateness.print(rows(), args);
	}

	/**
	 * The one task of all the timeouts. Plain fields: each peer runs its tasks on a single thread,
	 * and the volatile write of {@code last} publishes the others to the measuring thread.
	 */
	private static final class Counter implements Runnable {

		private final int target;

		private int count;

		private long first;

		private volatile long last;

		Counter(int target) {
			this.target = target;
		}

		@Override
		public void run() {
			int count = ++this.count;
			if (count == 1) {
				this.first = System.nanoTime();
			}
			else if (count == this.target) {
				this.last = System.nanoTime();
			}
		}

	}

}
