package io.github.wheeltimer;

/**
 * Counts the lateness of fires in batches of at most {@value #SIZE}: each fire of a batch counts
 * as handed to run at the clock reading that ends the batch. So a task that holds the worker makes
 * the timeouts after it late by that time (as they are), and, at worst, the few fired just before
 * it in the same batch too: the sum errs late, never early, and costs one clock read per batch
 * rather than one per task, which would double the cost of a full bucket. Worker only.
 */
final class LatenessBatch {

	/** Most fires that share one clock reading. */
	static final int SIZE = 32;

	private final TimerCounters counters;

	/** The clock reading that opened the batch. */
	private long start;

	/** Fires in the batch. */
	private int fires;

	/** The batch's lateness up to {@code start}, summed over its fires. */
	private long lateness;

	LatenessBatch(TimerCounters counters) {
		this.counters = counters;
	}

	/** Opens a batch at a fresh clock reading. */
	void begin(long now) {
		this.start = now;
	}

	/** Counts a fire; {@code true} when the batch is full and must be ended. */
	boolean fired(long deadline) {
		this.lateness += Math.max(0, this.start - deadline);
		return ++this.fires == SIZE;
	}

	boolean isEmpty() {
		return this.fires == 0;
	}

	/** Adds the batch's lateness up to {@code now} to the counters, and opens the next batch there. */
	void end(long now) {
		if (this.fires == 0) {
			return;
		}
		this.counters.late((this.lateness + this.fires * Math.max(0, now - this.start)) / 1_000);
		this.start = now;
		this.fires = 0;
		this.lateness = 0;
	}

}
