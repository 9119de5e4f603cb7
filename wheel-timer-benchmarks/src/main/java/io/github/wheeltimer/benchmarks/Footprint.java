package io.github.wheeltimer.benchmarks;

import java.lang.ref.Reference;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Rows M1 and C1m: what pending and cancelled timeouts cost in heap.
 * <ul>
 * <li>M1: the used heap after a full GC, before and after scheduling 1,000,000 timeouts an hour
 * away, over their number. All share one task, which is therefore not counted, except on Kafka,
 * whose API takes one task object per timeout (it carries the delay): that object is counted, as
 * any Kafka user pays it. The array that holds the handles is allocated before the first reading,
 * so it is not counted either.</li>
 * <li>C1m: with 1,000,000 timeouts pending, each with a task of its own, cancel them all and drop
 * the handles; this harness then reaches the tasks and the handles (the timer's own object per
 * timeout) only through {@link WeakReference}s, one timeout in 16. Collect and see how soon 99.9 %
 * of both have been collected, that is, how soon the timer let go of what was cancelled. Both,
 * because some timers drop the task at once but keep their own entry (the JDK's queue keeps a
 * cancelled task's future until it is due, unless told to remove on cancel). A first round looks
 * once, right after cancelling: freed at once? If not, a second round leaves the timer alone for
 * a tick (plus 20 ms), then looks every 10 ms or twice as long as a look takes, whichever is
 * longer. Each full collection stops the timer's thread for tens of milliseconds, and on two cores
 * back-to-back ones starve it, so looking from the start would hold back a timer that lets go on
 * its next tick (a million unlinks take it tens of milliseconds) and make it look several ticks
 * slower than it is. The time reported is when the collection that found them gone began (they
 * were unreachable by then); it is capped at three seconds. Found gone at the look after a tick,
 * they were freed within a tick (and 20 ms), which the text says as such.</li>
 * </ul>
 * Both wait, after scheduling, until every timer has taken the timeouts into its wheel: Netty moves
 * at most 100,000 per tick.
 */
final class Footprint implements PlainRow {

	private static final Duration TICK = Duration.ofMillis(100);

	private static final int TICKS_PER_WHEEL = 512;

	private static final int TIMEOUTS = 1_000_000;

	private static final long HOUR = TimeUnit.HOURS.toNanos(1);

	/** Netty's worker moves at most this many new timeouts into its wheel per tick. */
	private static final int NETTY_TRANSFER_PER_TICK = 100_000;

	/** Twice the ticks Netty needs to take them all in, and never less than two seconds. */
	private static final long ABSORB_MS = Math.max(2000,
			2 * ((TIMEOUTS + NETTY_TRANSFER_PER_TICK - 1) / NETTY_TRANSFER_PER_TICK) * TICK.toMillis());

	private static final long FREED_CAP_MS = 3000;

	private static final double FREED_FRACTION = 0.999;

	/**
	 * C1m watches one timeout in this many (evenly spread over the order of scheduling and
	 * cancelling): two weak references per timeout would double the live heap, and with it how long
	 * each collection stops the timer's thread.
	 */
	private static final int WATCH_EVERY = 16;

	/** The first look of the second round: a tick, plus time to wake up and let go. */
	private static final long FIRST_TICK_SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

	private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

	private final boolean cancel;

	private Footprint(boolean cancel) {
		this.cancel = cancel;
	}

	static List<PlainRow> rows() {
		return List.of(new Footprint(false), new Footprint(true));
	}

	@Override
	public String id() {
		return this.cancel ? "C1m" : "M1";
	}

	@Override
	public String title() {
		return this.cancel ? "cancel with 1M pending: ms until they are freed, tick 100 ms"
				: "heap bytes per pending timeout, 1M pending, tick 100 ms";
	}

	@Override
	public Map<Peer, Measurement> measure(Mode mode) {
		return Lateness.eachPeer(id(), List.of(Peer.values()), this.cancel ? Footprint::freedAfterCancel
				: Footprint::bytesPerTimeout);
	}

	private static Measurement bytesPerTimeout(Peer peer) throws InterruptedException {
		Object[] handles = new Object[TIMEOUTS];
		Peer.PeerTimer timer = peer.create(TICK, TICKS_PER_WHEEL);
		try {
			Object task = timer.task(() -> {
			});
			long before = Heap.usedAfterGc();
			for (int i = 0; i < TIMEOUTS; i++) {
				handles[i] = timer.schedule(task, HOUR);
			}
			// Until taken in, the timeouts sit in the timers' queues, which cost more or less
			// than the wheel: measure what stays.
			Thread.sleep(ABSORB_MS);
			long after = Heap.usedAfterGc();
			double perTimeout = (double) (after - before) / TIMEOUTS;
			String text = String.format(Locale.ROOT, "%.1f B", perTimeout);
			if (peer == Peer.KAFKA) {
				text += " (incl. the task object Kafka needs per timeout)";
			}
			return new Measurement(perTimeout, text);
		}
		finally {
			Reference.reachabilityFence(handles);
			Lateness.closeAndJoin(timer);
		}
	}

	private static Measurement freedAfterCancel(Peer peer) throws InterruptedException {
		Measurement atOnce = cancelAndWatch(peer, true);
		if (atOnce != null) {
			return atOnce;
		}
		// Not at once: a fresh round, left alone for a tick, for how soon.
		System.gc();
		return cancelAndWatch(peer, false);
	}

	/**
	 * One round: schedules, cancels, and looks.
	 * @param atOnce look once, right after cancelling, and no more; otherwise look first a tick
	 * after cancelling, then until freed or the cap
	 * @return the measurement, or {@code null} if {@code atOnce} and not freed at once
	 */
	private static Measurement cancelAndWatch(Peer peer, boolean atOnce) throws InterruptedException {
		@SuppressWarnings("unchecked")
		WeakReference<Object>[] tasks = new WeakReference[TIMEOUTS / WATCH_EVERY];
		@SuppressWarnings("unchecked")
		WeakReference<Object>[] handles = new WeakReference[TIMEOUTS / WATCH_EVERY];
		Peer.PeerTimer timer = peer.create(TICK, TICKS_PER_WHEEL);
		try {
			long cancelled = scheduleAndCancel(timer, tasks, handles);
			long cap = cancelled + TimeUnit.MILLISECONDS.toNanos(FREED_CAP_MS);
			long next = atOnce ? cancelled : cancelled + TICK.toNanos() + FIRST_TICK_SLACK_NANOS;
			for (int look = 0;; look++) {
				long wait;
				while ((wait = next - System.nanoTime()) > 0) {
					LockSupport.parkNanos(wait);
				}
				long collection = System.nanoTime();
				System.gc();
				double tasksFreed = clearedFraction(tasks);
				double handlesFreed = clearedFraction(handles);
				double ms = (collection - cancelled) / 1e6;
				if (Math.min(tasksFreed, handlesFreed) >= FREED_FRACTION) {
					String when = atOnce ? "freed at once"
							: (look == 0) ? String.format(Locale.ROOT, "freed within a tick (seen at %.0f ms)", ms)
									: String.format(Locale.ROOT, "freed in %.0f ms (%.1f ticks)", ms, ms / TICK.toMillis());
					return new Measurement(ms, when);
				}
				if (atOnce) {
					return null;
				}
				long now = System.nanoTime();
				if (now - cap >= 0) {
					return new Measurement(FREED_CAP_MS,
							String.format(Locale.ROOT, "not freed in %d s: %.1f %% of the timeouts, %.1f %% of the tasks",
									FREED_CAP_MS / 1000, 100 * handlesFreed, 100 * tasksFreed));
				}
				// Leave the timer at least twice the time a look takes, lest back-to-back
				// collections starve the thread that is to let go.
				next = now + Math.max(POLL_NANOS, 2 * (now - collection));
			}
		}
		finally {
			Lateness.closeAndJoin(timer);
		}
	}

	/**
	 * Schedules the timeouts, each with a task of its own, waits until the timer has taken them in,
	 * and cancels them all. Every {@link #WATCH_EVERY}th task and handle is watched through a weak
	 * reference. The handles live only in this frame, so that returning drops them: after that,
	 * only the timer can keep them or the tasks alive.
	 * @return when the last cancel returned
	 */
	private static long scheduleAndCancel(Peer.PeerTimer timer, WeakReference<Object>[] tasks,
			WeakReference<Object>[] handles) throws InterruptedException {
		Object[] strong = new Object[TIMEOUTS];
		for (int i = 0; i < TIMEOUTS; i++) {
			Runnable task = new Payload(i);
			strong[i] = timer.schedule(timer.task(task), HOUR);
			if (i % WATCH_EVERY == 0) {
				tasks[i / WATCH_EVERY] = new WeakReference<>(task);
				handles[i / WATCH_EVERY] = new WeakReference<>(strong[i]);
			}
		}
		Thread.sleep(ABSORB_MS);
		// Collect the scheduling's garbage now, not during the tick that is watched.
		System.gc();
		for (Object handle : strong) {
			timer.cancel(handle);
		}
		return System.nanoTime();
	}

	private static double clearedFraction(WeakReference<Object>[] references) {
		int cleared = 0;
		for (WeakReference<Object> reference : references) {
			if (reference.get() == null) {
				cleared++;
			}
		}
		return (double) cleared / references.length;
	}

	/** Runs the rows in QUICK mode, or FULL with the argument {@code full}, and prints them. */
	public static void main(String[] args) throws Exception {
		Lateness.print(rows(), args);
	}

	/** A task of its own per timeout, so that each one's release can be seen. */
	private static final class Payload implements Runnable {

		private final int index;

		Payload(int index) {
			this.index = index;
		}

		@Override
		public void run() {
			// Never runs: cancelled an hour before it is due.
		}

		@Override
		public String toString() {
			return "payload " + this.index;
		}

	}

}
