package io.github.wheeltimer.durable.run;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongConsumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * This instance's counts of durable calls, and the lateness of those that start. Any thread adds
 * (callers, the poll, executors); readers sum. Each count is exact; a snapshot read while calls
 * move may be a call apart between two counts, as Micrometer's function counters are.
 */
public final class CallCounters {

	private static final Log logger = LogFactory.getLog(CallCounters.class);

	private static final long LATE_LINE_NANOS = TimeUnit.MINUTES.toNanos(1);

	final LongAdder scheduled = new LongAdder();

	final LongAdder claimed = new LongAdder();

	final LongAdder started = new LongAdder();

	final LongAdder ran = new LongAdder();

	final LongAdder failed = new LongAdder();

	final LongAdder fenced = new LongAdder();

	final LongAdder takenOver = new LongAdder();

	final LongAdder handedBack = new LongAdder();

	final LongAdder cancelled = new LongAdder();

	final LongAdder suspectedDuplicates = new LongAdder();

	/** Failed attempts whose {@code @Retryable} tries them again. */
	final LongAdder retried = new LongAdder();

	/** Calls that started late and that no log line mentioned yet. */
	private final AtomicLong lateUnsaid = new AtomicLong();

	/** When the last line about late calls was logged (System.nanoTime()). */
	private final AtomicLong lateSaidNanos = new AtomicLong(Long.MIN_VALUE);

	private final Duration horizon;

	private volatile LongConsumer latenessRecorder = (nanos) -> {
	};

	public CallCounters(Duration horizon) {
		this.horizon = horizon;
	}

	/** A caller wrote a call. */
	public void countScheduled() {
		this.scheduled.increment();
	}

	/** This instance claimed a call: a poll, or a caller's call born claimed. */
	public void countClaimed() {
		this.claimed.increment();
	}

	/** A caller or an operator cancelled a waiting call. */
	public void countCancelled() {
		this.cancelled.increment();
	}

	/** @param calls how many calls of dead instances this instance put back */
	public void countTakenOver(long calls) {
		this.takenOver.add(calls);
	}

	/** @param calls how many calls this instance gave back to the database */
	public void countHandedBack(long calls) {
		this.handedBack.add(calls);
	}

	public void recordLatenessWith(LongConsumer recorder) {
		this.latenessRecorder = recorder;
	}

	/** A call passed its gate and starts now, {@code lateness} after its due time. */
	void started(HeldCall call, Duration lateness) {
		if (call.before().cutShort()) {
			// It started before, on an instance whose lease then ran out: that run may have finished
			// its work without its row being finished (at least once).
			this.suspectedDuplicates.increment();
		}
		this.latenessRecorder.accept(Math.max(0, lateness.toNanos()));
		if (lateness.compareTo(this.horizon) > 0) {
			sayLate(call, lateness);
		}
	}

	/**
	 * One line a minute at most for calls that start late: after an outage they come by the
	 * thousand, and the meter has each one.
	 */
	private void sayLate(HeldCall call, Duration lateness) {
		long unsaid = this.lateUnsaid.incrementAndGet();
		long now = System.nanoTime();
		long said = this.lateSaidNanos.get();
		if ((said == Long.MIN_VALUE || now - said >= LATE_LINE_NANOS) && this.lateSaidNanos.compareAndSet(said, now)) {
			this.lateUnsaid.addAndGet(-unsaid);
			// What the poll that claimed it could tell; claimed in time, it was late here.
			String because = call.lateBecause();
			logger.info(call.description() + " runs " + lateness.toMillis() + " ms after its due time " + call.due()
					+ ": " + ((because != null) ? because
							: "it was claimed in time, and waited here for its start gate and an executor thread, behind"
									+ " calls due before it")
					+ ((unsaid > 1) ? ". " + (unsaid - 1) + " more calls started that late since the last such line"
							: ""));
		}
	}

	public CallCounts snapshot() {
		return new CallCounts(this.scheduled.sum(), this.claimed.sum(), this.started.sum(), this.ran.sum(),
				this.failed.sum(), this.retried.sum(), this.fenced.sum(), this.takenOver.sum(), this.handedBack.sum(),
				this.cancelled.sum(), this.suspectedDuplicates.sum());
	}

}
