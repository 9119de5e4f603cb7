package io.github.wheeltimer.benchmarks;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How late each timeout of a row ran, indexed by timeout: the rows that measure lateness (L1-L3,
 * H1) share it, and each words its own figures.
 */
final class LatenessRecorder {

	private static final long NOT_FIRED = Long.MIN_VALUE;

	private final long[] lateness;

	private final AtomicInteger fired = new AtomicInteger();

	private final AtomicInteger duplicates = new AtomicInteger();

	LatenessRecorder(int capacity) {
		this.lateness = new long[capacity];
		Arrays.fill(this.lateness, NOT_FIRED);
	}

	int capacity() {
		return this.lateness.length;
	}

	/** Called by whichever thread runs tasks (one per peer). */
	void record(int index, long lateNanos) {
		if (this.lateness[index] != NOT_FIRED) {
			this.duplicates.incrementAndGet();
			return;
		}
		this.lateness[index] = lateNanos;
		// The increment publishes the slot to the measuring thread.
		this.fired.incrementAndGet();
	}

	int fired() {
		return this.fired.get();
	}

	int duplicates() {
		return this.duplicates.get();
	}

	/**
	 * Waits until {@code count} timeouts have fired, or none has fired for {@code stallNanos} since
	 * the last fell due (in {@code lastDueIn} from now), or {@code capNanos} have passed since then:
	 * an overloaded peer that keeps firing gets the time it needs (its lateness is the figure), but
	 * no wait is unbounded.
	 */
	void awaitFired(int count, long lastDueIn, long stallNanos, long capNanos) throws InterruptedException {
		long lastDue = System.nanoTime() + lastDueIn;
		long progressAt = lastDue;
		int fired = fired();
		while (fired < count) {
			Thread.sleep(10);
			long now = System.nanoTime();
			int firedNow = fired();
			if (firedNow != fired) {
				fired = firedNow;
				progressAt = Math.max(progressAt, now);
			}
			else if (now - progressAt > stallNanos || now - lastDue > capNanos) {
				return;
			}
		}
	}

	/** The lateness of those of the first {@code count} timeouts that fired, in nanos, sorted. */
	long[] sortedLateness(int count) {
		long[] sorted = new long[this.fired.get()];
		int n = 0;
		for (int i = 0; i < count && n < sorted.length; i++) {
			if (this.lateness[i] != NOT_FIRED) {
				sorted[n++] = this.lateness[i];
			}
		}
		Arrays.sort(sorted, 0, n);
		return (n == sorted.length) ? sorted : Arrays.copyOf(sorted, n);
	}

	/** How many of a sorted lateness array fired before their intended time. */
	static int early(long[] sorted) {
		int early = 0;
		while (early < sorted.length && sorted[early] < 0) {
			early++;
		}
		return early;
	}

	/** Nearest-rank percentile of a sorted, non-empty lateness array, in ms. */
	static double percentile(long[] sorted, double fraction) {
		int rank = (int) Math.ceil(fraction * sorted.length);
		return sorted[Math.max(0, rank - 1)] / 1e6;
	}

	/** The task of one timeout: small, as L3 holds millions of them. */
	static final class Probe implements Runnable {

		private final LatenessRecorder recorder;

		private final int index;

		private final long intended;

		Probe(LatenessRecorder recorder, int index, long intended) {
			this.recorder = recorder;
			this.index = index;
			this.intended = intended;
		}

		@Override
		public void run() {
			this.recorder.record(this.index, System.nanoTime() - this.intended);
		}

	}

}
