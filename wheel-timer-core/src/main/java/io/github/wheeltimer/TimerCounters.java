package io.github.wheeltimer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * What happened to a timer's timeouts, counted where it happens, read by anyone.
 *
 * <p>Who writes what: {@code scheduled} is counted by the scheduling thread before it enqueues,
 * {@code rejected} by the refused caller, {@code completed} and {@code failed} by whichever thread
 * ran the task, or by whichever thread the work of a task that handed it off ended on (that one
 * also writes {@code withdrawn}); {@code firedAtOnce} by the thread of a task run at once, before
 * it runs; the cancelled count is the cancellation queue's own index, plus {@code cancelledQueued},
 * counted by the cancelling thread for a timeout the worker had not taken (see WheelNode). The
 * worker alone writes {@code fired}, {@code unprocessed}, {@code lateness},
 * {@code completedOnWorker} (tasks that ran on the worker itself, counted without a CAS, a batch
 * of fires at a time: see FireBatch) and {@code maxLag}: single-writer values, published with
 * opaque stores and read with opaque loads, as readers need freshness, not ordering; except that
 * {@code completedOnWorker} is a release store read with acquire, before {@code fired}, so that
 * no reader sees a task completed that has not fired. Reading the outcomes before
 * {@code scheduled} keeps derived numbers (pending, running) from going negative.
 */
final class TimerCounters {

	private static final VarHandle FIRED;

	private static final VarHandle UNPROCESSED;

	private static final VarHandle LATENESS;

	private static final VarHandle COMPLETED_ON_WORKER;

	private static final VarHandle MAX_LAG;

	static {
		try {
			MethodHandles.Lookup lookup = MethodHandles.lookup();
			FIRED = lookup.findVarHandle(TimerCounters.class, "fired", long.class);
			UNPROCESSED = lookup.findVarHandle(TimerCounters.class, "unprocessed", long.class);
			LATENESS = lookup.findVarHandle(TimerCounters.class, "lateness", long.class);
			COMPLETED_ON_WORKER = lookup.findVarHandle(TimerCounters.class, "completedOnWorker", long.class);
			MAX_LAG = lookup.findVarHandle(TimerCounters.class, "maxLag", long.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	final LongAdder scheduled = new LongAdder();

	final LongAdder rejected = new LongAdder();

	final LongAdder completed = new LongAdder();

	final LongAdder failed = new LongAdder();

	/** Handed-off work given up before it ran. */
	final LongAdder withdrawn = new LongAdder();

	/** Tasks run at once, without the wheel (runDue): fired, as far as the other counts go. */
	final LongAdder firedAtOnce = new LongAdder();

	/**
	 * Timeouts cancelled before the worker took them: not queued as cancellations (the others
	 * are counted by that queue), as the worker's take lets them go.
	 */
	final LongAdder cancelledQueued = new LongAdder();

	private final ChunkedMpscQueue<HashedWheelTimeout> cancellations;

	private long fired;

	private long unprocessed;

	/** In microseconds, saturating. */
	private long lateness;

	private long completedOnWorker;

	private long maxLag;

	TimerCounters(ChunkedMpscQueue<HashedWheelTimeout> cancellations) {
		this.cancellations = cancellations;
	}

	/** Worker only. */
	void fired() {
		FIRED.setOpaque(this, this.fired + 1);
	}

	/** Worker only (or the thread whose start of the worker failed). */
	void unprocessed(long count) {
		UNPROCESSED.setOpaque(this, this.unprocessed + count);
	}

	/**
	 * Worker only: tasks it ran itself returned. A release store, after the opaque store of their
	 * fires: a reader that loads this first, with acquire, then {@code fired}, never sees more
	 * completed than fired.
	 */
	void completedOnWorker(long count) {
		COMPLETED_ON_WORKER.setRelease(this, this.completedOnWorker + count);
	}

	/** Worker only. Saturates: 100,000 fires a second, 50 ms late each, would overflow in weeks. */
	void late(long micros) {
		LATENESS.setOpaque(this, (this.lateness > Long.MAX_VALUE - micros) ? Long.MAX_VALUE : this.lateness + micros);
	}

	/** Worker only: keeps the worst lag seen. */
	void lag(long nanos) {
		if (nanos > this.maxLag) {
			MAX_LAG.setOpaque(this, nanos);
		}
	}

	long maxLag() {
		return (long) MAX_LAG.getOpaque(this);
	}

	/** Timeouts accepted that have neither fired nor been cancelled. */
	long pending() {
		long fired = (long) FIRED.getOpaque(this) + this.firedAtOnce.sum();
		long unprocessed = (long) UNPROCESSED.getOpaque(this);
		long cancelled = cancelled();
		return pending(this.scheduled.sum(), fired, unprocessed, cancelled);
	}

	/** Timeouts their callers cancelled. */
	long cancelled() {
		return this.cancellations.offeredCount() + this.cancelledQueued.sum();
	}

	/** Outcomes must be read before {@code scheduled}, so that pending cannot come out negative. */
	static long pending(long scheduled, long fired, long unprocessed, long cancelled) {
		return Math.max(0, scheduled - fired - unprocessed - cancelled);
	}

	WheelSnapshot.Counters read() {
		long completed = this.completed.sum() + (long) COMPLETED_ON_WORKER.getAcquire(this);
		long failed = this.failed.sum();
		long withdrawn = this.withdrawn.sum();
		long lateness = (long) LATENESS.getOpaque(this);
		long fired = (long) FIRED.getOpaque(this) + this.firedAtOnce.sum();
		long unprocessed = (long) UNPROCESSED.getOpaque(this);
		long cancelled = cancelled();
		long rejected = this.rejected.sum();
		long scheduled = this.scheduled.sum();
		long running = Math.max(0, fired - completed - failed - withdrawn);
		return new WheelSnapshot.Counters(scheduled, completed, failed, withdrawn, cancelled, rejected, running,
				unprocessed, Duration.of(lateness, ChronoUnit.MICROS));
	}

}
