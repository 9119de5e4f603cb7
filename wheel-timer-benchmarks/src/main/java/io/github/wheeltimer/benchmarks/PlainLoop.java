package io.github.wheeltimer.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.BiConsumer;

/**
 * A second harness for rows S1, C1 and C2, with no JMH in it: plain loops timed with
 * {@link System#nanoTime()}, one row and one peer per JVM ({@code run-plain} starts the JVMs, with
 * the heap flags of JMH's forks, alternating the peers). Each round times a million operations and
 * is followed by an untimed {@link System#gc()}, as JMH's {@code -gc true} does between iterations;
 * a few rounds warm up first and are not reported.
 * <ul>
 * <li>S1: a fresh timer (100 ms tick, 512 buckets), then a million schedules one hour away.</li>
 * <li>C1: a timer holding a million pending timeouts; then, a thousand times, a batch of a thousand
 * schedules (untimed) and their thousand cancels (timed), as {@link CancelBenchmark} does.</li>
 * <li>C2: a fresh timer, then a million schedule-then-cancel pairs, 30 s away.</li>
 * </ul>
 * The million operations of a round run as a thousand calls of a method doing a thousand: a
 * round is never one huge loop, which the JIT would compile on the stack (OSR) while it runs, and
 * the method each round calls is the one compiled during the warm-up.
 *
 * <p>Arguments: {@code --row S1|C1|C2 --peer ours|netty|... [--rounds 10] [--warmup 5]
 * [--verbose]}. Prints one line: the row, the peer, and the median, minimum, maximum, spread
 * (maximum minus minimum) and interquartile range of the rounds, in ns per operation;
 * {@code --verbose} prints each round. The spread is one round's, the slowest: on a shared
 * machine, a spell in which the vCPU slows sets it for either peer. The interquartile range
 * (the middle half of the rounds) is the steadiness that such a spell does not decide.
 */
public final class PlainLoop {

	static final int BATCH = 1_000;

	static final int BATCHES = 1_000;

	static final int PENDING = 1_000_000;

	private final Peer peer;

	private final Object[] handles = new Object[BATCH];

	private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

	/** The worker's CPU time during the last round's measured part, in ns. */
	private long workerCpu;

	/** The wall time of the last round's measured part, in ns. */
	private long measuredWall;

	private PlainLoop(Peer peer) {
		this.peer = peer;
	}

	public static void main(String[] args) throws Exception {
		String row = null;
		String peerLabel = null;
		int rounds = 10;
		int warmUp = 5;
		boolean verbose = false;
		for (int i = 0; i < args.length; i++) {
			switch (args[i]) {
				case "--row" -> row = args[++i];
				case "--peer" -> peerLabel = args[++i];
				case "--rounds" -> rounds = Integer.parseInt(args[++i]);
				case "--warmup" -> warmUp = Integer.parseInt(args[++i]);
				case "--verbose" -> verbose = true;
				default -> throw new IllegalArgumentException("Unknown argument '" + args[i] + "'");
			}
		}
		if (row == null || peerLabel == null) {
			throw new IllegalArgumentException("Usage: PlainLoop --row S1|C1|C2 --peer PEER [--rounds N] [--warmup N] [--verbose]");
		}
		PlainLoop loop = new PlainLoop(Peer.ofLabel(peerLabel));
		double[] nanosPerOp = new double[rounds];
		double[] workerShare = new double[rounds];
		for (int round = -warmUp; round < rounds; round++) {
			double perOp = switch (row) {
				case "S1" -> loop.scheduleRound();
				case "C1" -> loop.cancelRound();
				case "C2" -> loop.scheduleThenCancelRound();
				default -> throw new IllegalArgumentException("Unknown row '" + row + "'");
			};
			System.gc();
			double share = 100.0 * loop.workerCpu / loop.measuredWall;
			if (verbose) {
				System.out.printf(Locale.ROOT, "%s %s round %d: %.1f ns/op, worker CPU %.0f%%%s%n", row, peerLabel, round,
						perOp, share, (round < 0) ? " (warm-up)" : "");
			}
			if (round >= 0) {
				nanosPerOp[round] = perOp;
				workerShare[round] = share;
			}
		}
		Arrays.sort(nanosPerOp);
		double median = (nanosPerOp[(rounds - 1) / 2] + nanosPerOp[rounds / 2]) / 2;
		double min = nanosPerOp[0];
		double max = nanosPerOp[rounds - 1];
		Arrays.sort(workerShare);
		System.out.printf(Locale.ROOT,
				"%s %s rounds %d median %.1f min %.1f max %.1f spread %.1f (%.0f%%) iqr %.1f worker-cpu %.0f%%%n", row,
				peerLabel, rounds, median, min, max, max - min, 100 * (max - min) / median,
				quantile(nanosPerOp, 0.75) - quantile(nanosPerOp, 0.25), workerShare[(rounds - 1) / 2]);
	}

	/** @return the {@code p} quantile of sorted values, interpolated between the two nearest */
	static double quantile(double[] sorted, double p) {
		double at = (sorted.length - 1) * p;
		int below = (int) at;
		int above = Math.min(below + 1, sorted.length - 1);
		return sorted[below] + (sorted[above] - sorted[below]) * (at - below);
	}

	private Peer.PeerTimer newTimer() {
		return this.peer.create(Duration.ofMillis(100), 512);
	}

	private long workerCpu(Peer.PeerTimer timer) {
		Thread worker = timer.worker();
		return (worker != null) ? Math.max(0, this.threads.getThreadCpuTime(worker.getId())) : 0;
	}

	/** S1: ns per schedule, a million of them on a fresh timer. */
	private double scheduleRound() {
		return timedRound(this::scheduleBatch);
	}

	/**
	 * A round that times every operation of a fresh timer: {@code batch} called a thousand times.
	 * @return ns per operation
	 */
	private double timedRound(BiConsumer<Peer.PeerTimer, Object> batch) {
		Peer.PeerTimer timer = newTimer();
		try {
			Object task = timer.task(() -> {
			});
			long cpu = workerCpu(timer);
			long start = System.nanoTime();
			for (int i = 0; i < BATCHES; i++) {
				batch.accept(timer, task);
			}
			this.measuredWall = System.nanoTime() - start;
			this.workerCpu = workerCpu(timer) - cpu;
			return (double) this.measuredWall / (BATCH * BATCHES);
		}
		finally {
			timer.close();
		}
	}

	private void scheduleBatch(Peer.PeerTimer timer, Object task) {
		Object[] handles = this.handles;
		for (int i = 0; i < BATCH; i++) {
			handles[i] = timer.schedule(task, ScheduleBenchmark.ONE_HOUR);
		}
	}

	/** C1: ns per cancel of a fresh timeout, with a million pending. */
	private double cancelRound() {
		Peer.PeerTimer timer = newTimer();
		try {
			Object task = timer.task(() -> {
			});
			for (int i = 0; i < PENDING; i++) {
				timer.schedule(task, ScheduleBenchmark.ONE_HOUR);
			}
			long total = 0;
			long cpu = workerCpu(timer);
			long begin = System.nanoTime();
			for (int i = 0; i < BATCHES; i++) {
				scheduleBatch(timer, task);
				long start = System.nanoTime();
				cancelBatch(timer);
				total += System.nanoTime() - start;
			}
			// The worker's share of the whole loop, the untimed schedules included.
			this.measuredWall = System.nanoTime() - begin;
			this.workerCpu = workerCpu(timer) - cpu;
			return (double) total / (BATCH * BATCHES);
		}
		finally {
			timer.close();
		}
	}

	private void cancelBatch(Peer.PeerTimer timer) {
		Object[] handles = this.handles;
		for (int i = 0; i < BATCH; i++) {
			timer.cancel(handles[i]);
		}
	}

	/** C2: ns per schedule-then-cancel pair on a fresh timer. */
	private double scheduleThenCancelRound() {
		return timedRound(PlainLoop::scheduleThenCancelBatch);
	}

	private static void scheduleThenCancelBatch(Peer.PeerTimer timer, Object task) {
		for (int i = 0; i < BATCH; i++) {
			timer.cancel(timer.schedule(task, ScheduleThenCancelBenchmark.THIRTY_SECONDS));
		}
	}

}
