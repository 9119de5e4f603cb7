package io.github.wheeltimer;

/**
 * What the worker's fires add to the counters, in batches of at most {@value #SIZE} fires, so that
 * a fire costs no clock reading and no counter update of its own. Worker only.
 * <ul>
 * <li><b>Lateness.</b> Each fire of a batch counts as handed to run at the clock reading that ends
 * the batch. So a task that holds the worker makes the timeouts after it late by that time (as
 * they are), and, at worst, the few fired just before it in the same batch too: the sum errs late,
 * never early, and costs one clock read per batch rather than one per task, which would double
 * the cost of a full bucket.</li>
 * <li><b>Tasks that ran on the worker</b> count as completed when the batch ends. Until then
 * readers see them as running: each fire is counted at once, before its task runs, so a task
 * that blocks the worker shows, and {@code completed} never passes {@code fired} (see
 * TimerCounters for the order of the writes and reads).</li>
 * </ul>
 */
final class FireBatch {

	/** Most fires that share one clock reading. */
	static final int SIZE = 32;

	private final TimerCounters counters;

	/** The clock reading that opened the batch. */
	private long start;

	/** Fires in the batch. */
	private int fires;

	/** The batch's lateness up to {@code start}, summed over its fires. */
	private long lateness;

	/** Tasks of the batch that ran on the worker and returned. */
	private int completed;

	FireBatch(TimerCounters counters) {
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

	/** Counts a task that ran on the worker and returned. */
	void completed() {
		this.completed++;
	}

	boolean isEmpty() {
		return this.fires == 0 && this.completed == 0;
	}

	/** Adds the batch to the counters, with its lateness up to {@code now}, and opens the next batch there. */
	void end(long now) {
		if (this.fires > 0) {
			this.counters.late((this.lateness + this.fires * Math.max(0, now - this.start)) / 1_000);
			this.fires = 0;
			this.lateness = 0;
		}
		if (this.completed > 0) {
			this.counters.completedOnWorker(this.completed);
			this.completed = 0;
		}
		this.start = now;
	}

}
