package io.github.wheeltimer.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Rows I1 and R1: what the thread that keeps time costs while nothing falls due. Measured on that
 * thread alone (the wheels' worker, the executor's thread, Kafka's reaper; not Kafka's task
 * executor, which sleeps on its queue): its wake-ups per second, counted as the growth of
 * {@code voluntary_ctxt_switches} in /proc (each voluntary switch is one sleep, so one wake-up
 * after it), and its CPU time over the wall time of the window.
 * <ul>
 * <li>I1: a timer with nothing ever scheduled, tick 1 ms (and 100 ms for the two wheels, whose
 * idle cost may depend on it);</li>
 * <li>R1: 1,000,000 timeouts pending, all due in 60 s, tick 1 ms: the cost of keeping them.</li>
 * </ul>
 */
final class WakeUps implements PlainRow {

	private static final int TICKS_PER_WHEEL = 512;

	private static final Duration FINE_TICK = Duration.ofMillis(1);

	private static final Duration COARSE_TICK = Duration.ofMillis(100);

	private static final List<Peer> PEERS = List.of(Peer.OURS, Peer.NETTY, Peer.JDK, Peer.KAFKA);

	/** Lets a new timer's thread start and reach its steady state before measuring. */
	private static final long SETTLE_MS = 500;

	private static final int PENDING = 1_000_000;

	private static final long PENDING_DELAY = TimeUnit.SECONDS.toNanos(60);

	private final boolean idle;

	private WakeUps(boolean idle) {
		this.idle = idle;
	}

	static List<PlainRow> rows() {
		return List.of(new WakeUps(true), new WakeUps(false));
	}

	@Override
	public String id() {
		return this.idle ? "I1" : "R1";
	}

	@Override
	public String title() {
		return this.idle ? "idle wake-ups/s, nothing scheduled, tick 1 ms"
				: "worker CPU %, 1M pending due in 60 s, tick 1 ms";
	}

	@Override
	public Map<Peer, Measurement> measure(Mode mode) {
		return Lateness.eachPeer(id(), PEERS, (peer) -> this.idle ? idle(peer, mode) : pending(peer, mode));
	}

	private static Measurement idle(Peer peer, Mode mode) throws InterruptedException {
		Sample fine = idleSample(peer, FINE_TICK, Duration.ofSeconds(mode.scale(3)));
		String text = fine.text();
		// Only these two could idle differently at another tick: the JDK's executor has none, and
		// Kafka's reaper polls every 200 ms whatever its tick.
		if (peer == Peer.OURS || peer == Peer.NETTY) {
			System.gc();
			Sample coarse = idleSample(peer, COARSE_TICK, Duration.ofSeconds(mode.scale(1)));
			text += "; at a 100 ms tick: " + coarse.text();
		}
		return new Measurement(fine.wakeUpsPerSecond(), text);
	}

	private static Sample idleSample(Peer peer, Duration tick, Duration window) throws InterruptedException {
		Peer.PeerTimer timer = peer.create(tick, TICKS_PER_WHEEL);
		try {
			Thread.sleep(SETTLE_MS);
			return Sample.of(timer.worker(), window);
		}
		finally {
			Lateness.closeAndJoin(timer);
		}
	}

	private static Measurement pending(Peer peer, Mode mode) throws InterruptedException {
		AtomicInteger fired = new AtomicInteger();
		Peer.PeerTimer timer = peer.create(FINE_TICK, TICKS_PER_WHEEL);
		try {
			// One task for all, so the heap holds only what the timer needs (Kafka aside: its API
			// makes one task per timeout). It counts firings, which would be a bug here.
			Object task = timer.task(fired::incrementAndGet);
			long start = System.nanoTime();
			for (int i = 0; i < PENDING; i++) {
				timer.schedule(task, PENDING_DELAY);
			}
			// Give them a second to reach the wheel (Netty moves 100,000 per tick), so that the
			// window sees them kept, not taken in.
			Thread.sleep(1000);
			Sample sample = Sample.of(timer.worker(), Duration.ofSeconds(mode.scale(3)));
			if (System.nanoTime() - start >= PENDING_DELAY) {
				throw new IllegalStateException("the timeouts fell due before the window ended");
			}
			if (fired.get() > 0) {
				return new Measurement(Double.NaN, "failed: " + fired.get() + " of " + PENDING
						+ " timeouts due in 60 s fired within " + (System.nanoTime() - start) / 1_000_000 + " ms");
			}
			return new Measurement(sample.cpuPercent(), String.format(Locale.ROOT, "%.2f %% CPU, %.1f wake-ups/s",
					sample.cpuPercent(), sample.wakeUpsPerSecond()));
		}
		finally {
			// Discards the million pending timeouts.
			Lateness.closeAndJoin(timer);
		}
	}

	/** Runs the rows in QUICK mode, or FULL with the argument {@code full}, and prints them. */
	public static void main(String[] args) throws Exception {
		Lateness.print(rows(), args);
	}

	/**
	 * One thread's wake-ups and CPU over a window of wall time.
	 *
	 * @param wakeUpsPerSecond voluntary context switches per second, NaN without /proc
	 * @param cpuPercent CPU time over wall time, in percent of one core
	 */
	private record Sample(double wakeUpsPerSecond, double cpuPercent) {

		static Sample of(Thread thread, Duration window) throws InterruptedException {
			long switches = Threads.voluntarySwitches(Peer.WORKER_NAME);
			long cpu = Threads.cpuNanos(thread);
			long start = System.nanoTime();
			Thread.sleep(window.toMillis());
			long cpuAfter = Threads.cpuNanos(thread);
			long switchesAfter = Threads.voluntarySwitches(Peer.WORKER_NAME);
			long wall = System.nanoTime() - start;
			if (cpu < 0 || cpuAfter < 0) {
				throw new IllegalStateException("no CPU time for thread " + thread.getName() + " (has it ended?)");
			}
			double perSecond = (switches < 0 || switchesAfter < 0) ? Double.NaN
					: (switchesAfter - switches) * 1e9 / wall;
			return new Sample(perSecond, 100.0 * (cpuAfter - cpu) / wall);
		}

		String text() {
			return String.format(Locale.ROOT, "%.1f wake-ups/s, %.2f %% CPU", this.wakeUpsPerSecond, this.cpuPercent);
		}

	}

}
