package io.github.wheeltimer.benchmarks;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Rows L1, L2 and L3: how late timeouts fire. Each timeout's task records, with
 * {@link System#nanoTime()}, how long after its intended time it ran; the intended time is the
 * clock read just before {@code schedule} plus the delay, so the time the timer itself takes to
 * schedule counts in its favour, never against it. A negative lateness means the timeout fired
 * early. Lateness goes into a primitive array indexed by timeout, so that recording does not
 * allocate and millions of timeouts fit in the heap.
 * <ul>
 * <li>L1: one timeout per millisecond, paced against an absolute schedule, delays 1-100 ms, tick
 * 1 ms;</li>
 * <li>L2: a burst of 200,000 scheduled as fast as one thread can, delays 1-1000 ms, tick 1 ms;</li>
 * <li>L3: an overload of 3,000,000 at once, delays 0-200 ms, tick 100 ms: p50 and max.</li>
 * </ul>
 * Before each burst, an unmeasured one of 100,000 timeouts due within 20 ms gets the peer's code
 * compiled. Every timeout must fire: once the last has fallen due, a peer that fires none for two
 * seconds (or still has some left after a minute) is reported as failed, with the figures of those
 * that did fire.
 */
final class Lateness implements PlainRow {

	private static final int TICKS_PER_WHEEL = 512;

	private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

	/** How long after the last timeout fell due a peer may fire nothing before it is given up on. */
	private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(2);

	/** How long after the last timeout fell due a peer that keeps firing is given up on. */
	private static final long CAP_NANOS = TimeUnit.SECONDS.toNanos(60);

	/** The unmeasured burst before a measured one. */
	private static final int WARM_UP_BURST = 100_000;

	/** Marks a slot whose timeout has not fired: no real lateness comes near it. */

	private final String id;

	private final String title;

	private final Duration tick;

	/** Timeouts per burst; 0 for the paced row. */
	private final int burst;

	private final long minDelayNanos;

	private final long maxDelayNanos;

	/** L3 reports p50/max, the others p50/p99/max. */
	private final boolean overload;

	private Lateness(String id, String title, Duration tick, int burst, long minDelayMs, long maxDelayMs,
			boolean overload) {
		this.id = id;
		this.title = title;
		this.tick = tick;
		this.burst = burst;
		this.minDelayNanos = minDelayMs * MS;
		this.maxDelayNanos = maxDelayMs * MS;
		this.overload = overload;
	}

	static List<PlainRow> rows() {
		return List.of(
				new Lateness("L1", "lateness p99, 1 timeout/ms, delays 1-100 ms, tick 1 ms", Duration.ofMillis(1), 0, 1,
						100, false),
				new Lateness("L2", "lateness p99, burst of 200k, delays 1-1000 ms, tick 1 ms", Duration.ofMillis(1),
						200_000, 1, 1000, false),
				new Lateness("L3", "lateness max, overload of 3M at once, delays 0-200 ms, tick 100 ms",
						Duration.ofMillis(100), 3_000_000, 0, 200, true));
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
		return eachPeer(this.id, List.of(Peer.values()), (peer) -> measure(peer, mode));
	}

	private Measurement measure(Peer peer, Mode mode) throws InterruptedException {
		if (this.burst > 0) {
			// A burst's lateness depends on how fast the worker takes timeouts in, which depends
			// on whether its code is compiled yet: every peer's code is new to the JVM when its
			// turn comes. A smaller burst, unmeasured, compiles it first: over the same delays, so
			// that it runs every path the measured one does (a hierarchical wheel's moves between
			// levels are only taken by delays beyond its finest level).
			Measurement warmUp = burst(peer, Math.min(this.burst, WARM_UP_BURST), this.minDelayNanos,
					this.maxDelayNanos);
			if (Double.isNaN(warmUp.value())) {
				return new Measurement(Double.NaN, warmUp.text() + " (warm-up burst)");
			}
			System.gc();
			return burst(peer, this.burst, this.minDelayNanos, this.maxDelayNanos);
		}
		return paced(peer, (int) (Duration.ofSeconds(mode.scale(3)).toNanos() / MS));
	}

	private Measurement burst(Peer peer, int count, long minDelayNanos, long maxDelayNanos)
			throws InterruptedException {
		LatenessRecorder recorder = new LatenessRecorder(count);
		// The same delays for every peer.
		SplittableRandom random = new SplittableRandom(42);
		Peer.PeerTimer timer = peer.create(this.tick, TICKS_PER_WHEEL);
		try {
			for (int i = 0; i < count; i++) {
				schedule(timer, recorder, i, randomDelay(random, minDelayNanos, maxDelayNanos));
			}
			recorder.awaitFired(count, maxDelayNanos, STALL_NANOS, CAP_NANOS);
		}
		finally {
			closeAndJoin(timer);
		}
		return summarize(recorder, count, this.overload);
	}

	private Measurement paced(Peer peer, int count) throws InterruptedException {
		LatenessRecorder recorder = new LatenessRecorder(count);
		SplittableRandom random = new SplittableRandom(42);
		Peer.PeerTimer timer = peer.create(this.tick, TICKS_PER_WHEEL);
		try {
			// Paced against absolute times, so that a late wake-up of this thread is caught up
			// on rather than pushing every later timeout back (no drift).
			long start = System.nanoTime();
			for (int i = 0; i < count; i++) {
				long target = start + i * MS;
				long wait;
				while ((wait = target - System.nanoTime()) > 0) {
					LockSupport.parkNanos(wait);
				}
				schedule(timer, recorder, i, randomDelay(random, this.minDelayNanos, this.maxDelayNanos));
			}
			recorder.awaitFired(count, this.maxDelayNanos, STALL_NANOS, CAP_NANOS);
		}
		finally {
			closeAndJoin(timer);
		}
		return summarize(recorder, count, this.overload);
	}

	private static long randomDelay(SplittableRandom random, long minDelayNanos, long maxDelayNanos) {
		return minDelayNanos + random.nextLong(maxDelayNanos - minDelayNanos + 1);
	}

	private static void schedule(Peer.PeerTimer timer, LatenessRecorder recorder, int index, long delayNanos) {
		// Read the clock before the timer does: the intended time is then never later than the
		// timer's own deadline, and lateness never counts the time scheduling takes.
		long intended = System.nanoTime() + delayNanos;
		timer.schedule(timer.task(new LatenessRecorder.Probe(recorder, index, intended)), delayNanos);
	}

	/**
	 * Measures each peer in turn, one timer at a time; shared by the plain rows. A peer that fails
	 * is reported as such, and the row goes on with the next.
	 */
	static Map<Peer, Measurement> eachPeer(String rowId, List<Peer> peers, PeerMeasure measure) {
		Map<Peer, Measurement> results = new LinkedHashMap<>();
		for (Peer peer : peers) {
			System.err.println(rowId + ": " + peer.label());
			Measurement measurement;
			try {
				measurement = measure.measure(peer);
			}
			catch (Exception | Error ex) {
				// Errors too: a peer that runs out of heap or misses a class must not end the row.
				measurement = new Measurement(Double.NaN, "failed: " + ex);
			}
			results.put(peer, measurement);
			// The next peer should not pay for this one's garbage.
			System.gc();
		}
		return results;
	}

	/**
	 * Closes a timer and waits (boundedly) for its worker to end, so that the next timer's worker
	 * is the only thread of that name.
	 */
	static void closeAndJoin(Peer.PeerTimer timer) throws InterruptedException {
		Thread worker = null;
		try {
			worker = timer.worker();
		}
		catch (RuntimeException ex) {
			// Nothing to wait for then.
		}
		timer.close();
		if (worker != null) {
			worker.join(TimeUnit.SECONDS.toMillis(10));
		}
	}

	/** Runs the rows in QUICK mode, or FULL with the argument {@code full}, and prints them. */
	public static void main(String[] args) throws Exception {
		print(rows(), args);
	}

	/** Shared by the plain rows' {@code main} methods. */
	static void print(List<PlainRow> rows, String[] args) throws Exception {
		Mode mode = (args.length > 0 && args[0].equals("full")) ? Mode.FULL : Mode.QUICK;
		for (PlainRow row : rows) {
			long start = System.nanoTime();
			Map<Peer, Measurement> results = row.measure(mode);
			System.out.printf(Locale.ROOT, "%s  %s  (%.1f s)%n", row.id(), row.title(),
					(System.nanoTime() - start) / 1e9);
			results.forEach((peer, measurement) -> System.out.printf(Locale.ROOT, "    %-14s %s%n", peer.label(),
					measurement.text()));
		}
		// Kafka's timer threads are not daemons: do not let a peer that failed to close keep the
		// JVM alive.
		System.exit(0);
	}

	/** One peer's measurement in a row. */
	@FunctionalInterface
	interface PeerMeasure {

		Measurement measure(Peer peer) throws Exception;

	}

	private static Measurement summarize(LatenessRecorder recorder, int count, boolean overload) {
		long[] sorted = recorder.sortedLateness(count);
		int n = sorted.length;
		if (n == 0) {
			return new Measurement(Double.NaN, "failed: none of " + count + " fired");
		}
		int early = LatenessRecorder.early(sorted);
		double p50 = LatenessRecorder.percentile(sorted, 0.50);
		double p99 = LatenessRecorder.percentile(sorted, 0.99);
		double max = sorted[n - 1] / 1e6;
		double earlyPercent = 100.0 * early / n;
		String figures = overload
				? String.format(Locale.ROOT, "p50 %.2f / max %.1f ms, %.2f %% early", p50, max, earlyPercent)
				: String.format(Locale.ROOT, "p50 %.2f / p99 %.2f / max %.1f ms, %.2f %% early", p50, p99, max,
						earlyPercent);
		if (early > 0) {
			figures += String.format(Locale.ROOT, " (earliest %.2f ms)", sorted[0] / 1e6);
		}
		if (recorder.duplicates() > 0) {
			figures += ", " + recorder.duplicates() + " fired twice";
		}
		if (n < count) {
			return new Measurement(Double.NaN, "failed: " + (count - n) + " of " + count
					+ " never fired; those that did: " + figures);
		}
		return new Measurement(overload ? max : p99, figures);
	}

}
