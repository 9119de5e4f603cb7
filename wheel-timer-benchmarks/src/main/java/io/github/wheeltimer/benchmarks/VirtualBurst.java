package io.github.wheeltimer.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.TimerTask;

/**
 * Row H2: the burst variant of H1, ours only, on a virtual clock. 1,000,000 far timeouts are
 * scheduled at once, with delays spread uniformly over (0, 30 min], and a near timeout due in
 * 100 ms arrives every 100 µs (10,000/s) until the last far one is due; the clock then runs on
 * until every timeout has fired. Tick 10 ms, 512 buckets. The burst reaches the worker at once: it
 * is asleep while they are scheduled, and wakes to find them all queued. The 30 virtual minutes
 * take seconds of real time, so the row sees all of it: every far timeout's stay in the wheel from
 * its arrival to its fire, and, once the wheel has levels, each move down a level.
 * <p>
 * The clock is a {@link DrivenTicker}, driven event by event from this thread: it moves to
 * whichever comes first, the next time the worker asked to wake at (the end of the next tick
 * with something due) or the next near arrival; at an arrival this thread schedules the near
 * timeout at that virtual time. The clock moves only while the worker is parked, so each pass of
 * the worker does exactly what a real clock standing still would let it do. Measured:
 * <ul>
 * <li><b>worst pass</b>: the wall-clock time, in this JVM on this machine, from the worker's return
 * from a park until it parks again, worst of the run, with the worker's CPU time in it and the
 * virtual time it started at. The passes of the first 100 virtual ms, before any near timeout
 * falls due, take the burst in: the worst of them is given apart, and so is the worst pass after
 * them (by wall-clock time, and by CPU time: a long wall-clock pass with little CPU time was
 * descheduled), with the p99 of those;</li>
 * <li><b>worker CPU per virtual second</b>: the worker thread's CPU time ({@code ThreadMXBean}),
 * from its first park (the burst not yet scheduled) to the end, over the virtual time covered.
 * Milliseconds per virtual second read as tenths of a percent of a core: what the same work
 * would cost on a real clock, without that clock's waiting;</li>
 * <li>passes per virtual second (the wake-ups a real clock would see), the near timeouts fired
 * before their deadline on the virtual clock (must be none), and the real time the run took.</li>
 * </ul>
 * Why ours only: Netty's timer, the JDK's executor and Kafka's reaper read
 * {@code System.nanoTime()} themselves, so they cannot run on a virtual clock, and on the real
 * clock the burst lasts 30 minutes; their steady-state cost with the same million far timeouts is
 * row H1's. The wall-clock figures include whatever else the machine did meanwhile (2 shared
 * cores): the worst pass is the figure most exposed to it. No garbage collection runs during the
 * measured run: the harness's young generation holds everything it allocates, and it starts
 * empty. An unmeasured round of 100,000 far timeouts over 60 virtual seconds gets the code
 * compiled first. The run is the same in quick and full mode: virtual time fixes its length.
 */
final class VirtualBurst implements PlainRow {

	private static final Duration TICK = Duration.ofMillis(10);

	private static final int TICKS_PER_WHEEL = 512;

	private static final long NEAR_INTERVAL = TimeUnit.SECONDS.toNanos(1) / MixedLoad.NEAR_PER_SECOND;

	/** The passes before this virtual time take the burst in: no near timeout is due yet. */
	private static final long INTAKE = MixedLoad.NEAR_DELAY;

	private static final int WARM_UP_FAR = 100_000;

	private static final long WARM_UP_HORIZON = TimeUnit.SECONDS.toNanos(60);

	static List<PlainRow> rows() {
		return List.of(new VirtualBurst());
	}

	@Override
	public String id() {
		return "H2";
	}

	@Override
	public String title() {
		return "burst: 1M far at once (delays 0-30 min) + 10k/s near (100 ms), tick 10 ms, ours on a virtual clock:"
				+ " worst worker pass (wall), worker CPU per virtual s";
	}

	@Override
	public Map<Peer, Measurement> measure(Mode mode) {
		return Lateness.eachPeer(id(), List.of(Peer.OURS), (peer) -> {
			Run warmUp = run(WARM_UP_FAR, WARM_UP_HORIZON);
			if (warmUp.failure() != null) {
				return new Measurement(Double.NaN, "failed in the warm-up round: " + warmUp.failure());
			}
			System.gc();
			return run(MixedLoad.FAR, MixedLoad.FAR_HORIZON).measurement();
		});
	}

	private static Run run(int far, long horizon) throws InterruptedException {
		DrivenTicker ticker = new DrivenTicker();
		ticker.drivenFromHere();
		Peer.WorkerThreadFactory threads = new Peer.WorkerThreadFactory();
		HashedWheelTimer timer = HashedWheelTimer.builder()
			.tickDuration(TICK)
			.ticksPerWheel(TICKS_PER_WHEEL)
			.threadFactory(threads)
			.ticker(ticker)
			.build();
		try {
			timer.start();
			// The worker's start-up is not a pass (see DrivenTicker): wait for its first park.
			ticker.awaitParked();
			Thread worker = threads.thread();
			long cpuBefore = Threads.cpuNanos(worker);
			long wallBefore = System.nanoTime();

			// Tasks run on the worker, one at a time, and the driver reads the counts only while
			// the worker is parked: plain fields suffice (see Counts).
			Counts counts = new Counts();
			TimerTask farTask = (timeout) -> counts.far++;
			SplittableRandom random = new SplittableRandom(42);
			// At once: the worker sees the whole burst when it wakes, rather than racing this
			// thread for each timeout as it comes (which would time this thread as much as it).
			ticker.hold();
			try {
				for (int i = 0; i < far; i++) {
					timer.newTimeout(farTask, 1 + random.nextLong(horizon), TimeUnit.NANOSECONDS);
				}
			}
			finally {
				// Else the stop's unpark would be held too, and the stop would wait for ever.
				ticker.release();
			}
			long nextNear = 0;
			long nearScheduled = 0;
			while (true) {
				ticker.awaitParked();
				long wakeUpAt = ticker.wakeUpAt();
				boolean arriving = nextNear <= horizon;
				long next = arriving ? Math.min(wakeUpAt, nextNear) : wakeUpAt;
				if (next == Long.MAX_VALUE) {
					// Nothing pending and no more arrivals: every timeout has fired.
					break;
				}
				ticker.moveTo(next);
				if (arriving && next == nextNear) {
					long deadline = next + MixedLoad.NEAR_DELAY;
					timer.newTimeout((timeout) -> counts.near(ticker.nanoTime() - deadline), MixedLoad.NEAR_DELAY,
							TimeUnit.NANOSECONDS);
					nearScheduled++;
					nextNear += NEAR_INTERVAL;
				}
			}
			long cpuAfter = Threads.cpuNanos(worker);
			long wall = System.nanoTime() - wallBefore;
			long virtual = ticker.nanoTime();
			String failure = null;
			if (counts.far != far || counts.near != nearScheduled) {
				failure = String.format(Locale.ROOT, "%,d of %,d far and %,d of %,d near fired", counts.far, far,
						counts.near, nearScheduled);
			}
			return new Run(ticker.passes(), cpuAfter - cpuBefore, wall, virtual, counts, nearScheduled, failure);
		}
		finally {
			timer.stop();
		}
	}

	/** Runs the row (the same in either mode) and prints it. */
	public static void main(String[] args) throws Exception {
		Lateness.print(rows(), args);
	}

	/** What the tasks count: written on the worker only, read by the driver while it is parked. */
	private static final class Counts {

		long far;

		long near;

		long nearEarly;

		void near(long lateness) {
			this.near++;
			if (lateness < 0) {
				this.nearEarly++;
			}
		}

	}

	private static double ms(long[] figures, int pass) {
		return (pass < 0) ? 0 : figures[pass] / 1e6;
	}

	private static double seconds(DrivenTicker.Passes passes, int pass) {
		return (pass < 0) ? 0 : passes.virtualStarts()[pass] / 1e9;
	}

	private record Run(DrivenTicker.Passes passes, long cpuNanos, long wallNanos, long virtualNanos, Counts counts,
			long nearScheduled, String failure) {

		Measurement measurement() {
			DrivenTicker.Passes passes = this.passes;
			int worst = passes.worst(passes.lengths(), 0, Long.MAX_VALUE);
			int intake = passes.worst(passes.lengths(), 0, INTAKE);
			int after = passes.worst(passes.lengths(), INTAKE, Long.MAX_VALUE);
			int afterByCpu = passes.worst(passes.cpu(), INTAKE, Long.MAX_VALUE);
			double virtualSeconds = this.virtualNanos / 1e9;
			double worstMs = ms(passes.lengths(), worst);
			String text = String.format(Locale.ROOT,
					"worst pass %.2f ms wall (%.2f ms CPU) at %.2f s virtual; taking the burst in (first 100 ms):"
							+ " %.2f ms wall (%.2f ms CPU); after that: worst %.2f ms wall (%.2f ms CPU) at %.1f s, worst CPU %.2f ms at"
							+ " %.1f s, p99 %.3f ms wall; worker CPU %.2f ms per virtual s, %.0f passes per virtual s;"
							+ " near: %,d early of %,d; %.0f virtual s in %.1f s real",
					worstMs, ms(passes.cpu(), worst), seconds(passes, worst), ms(passes.lengths(), intake), ms(passes.cpu(), intake),
					ms(passes.lengths(), after), ms(passes.cpu(), after), seconds(passes, after),
					ms(passes.cpu(), afterByCpu), seconds(passes, afterByCpu),
					passes.percentileFrom(INTAKE, 0.99) / 1e6, this.cpuNanos / 1e6 / virtualSeconds,
					passes.count() / virtualSeconds, this.counts.nearEarly, this.nearScheduled, virtualSeconds,
					this.wallNanos / 1e9);
			if (this.failure != null) {
				return new Measurement(Double.NaN, "failed: " + this.failure + "; " + text);
			}
			return new Measurement(worstMs, text);
		}

	}

}
