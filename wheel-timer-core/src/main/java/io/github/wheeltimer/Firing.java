package io.github.wheeltimer;

import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * Hands due timeouts to run, and counts them: those of the wheel as its hand moves up to the
 * clock, a tick at a time, and those that arrive overdue, as the worker takes them from the
 * queue. Each runs on the worker thread, or on the timer's task executor if it has one. Worker
 * only, as the wheel and the {@link FireBatch} it writes to.
 */
final class Firing {

	private final HashedWheelTimer timer;

	private final TimerCounters counters;

	private final Wheel wheel;

	/** {@code null}: tasks run on this thread. */
	private final Executor taskExecutor;

	private final FireBatch batch;

	private final Consumer<HashedWheelTimeout> fireDue = this::fire;

	Firing(HashedWheelTimer timer, TimerCounters counters, Wheel wheel, Executor taskExecutor) {
		this.timer = timer;
		this.counters = counters;
		this.wheel = wheel;
		this.taskExecutor = taskExecutor;
		this.batch = new FireBatch(counters);
	}

	/**
	 * Moves the hand towards {@code clockTick} and fires the first tick on the way that holds
	 * something, so that the worker can look at the stop between ticks.
	 * @return {@code false} once the hand is at {@code clockTick} with nothing fired
	 */
	boolean fireNextDueTick(long clockTick) {
		long startedAt = this.timer.elapsedNanos();
		this.batch.begin(startedAt);
		long fired = this.wheel.advance(clockTick, this.fireDue);
		if (fired < 0) {
			return false;
		}
		this.batch.end(this.timer.elapsedNanos());
		// Lag only where something was due: ticks the worker slept through on purpose are not late.
		this.counters.lag(startedAt - this.wheel.endOf(fired));
		return true;
	}

	/** Opens a batch for timeouts found overdue, at a fresh clock reading: before the first of them. */
	void beginOverdue() {
		this.batch.begin(this.timer.elapsedNanos());
	}

	/** Ends the batch of timeouts found overdue, reading the clock only if something fired in it. */
	void endOverdue() {
		if (!this.batch.isEmpty()) {
			this.batch.end(this.timer.elapsedNanos());
		}
	}

	/** Hands a due timeout to run; the lateness batch must be open. */
	void fire(HashedWheelTimeout timeout) {
		if (!timeout.expire()) {
			return;
		}
		this.counters.fired();
		this.timer.released(1);
		if (this.batch.fired(timeout.deadline)) {
			this.batch.end(this.timer.elapsedNanos());
		}
		if (this.taskExecutor == null) {
			// A completion counts with the fire batch; a failure at once (rare, and logged anyway); a
			// hand-off when its work says how it ended.
			if (this.timer.runCountingFailure(timeout) && !timeout.isHandedOff()) {
				this.batch.completed();
			}
			return;
		}
		try {
			this.taskExecutor.execute(timeout);
		}
		catch (Throwable ex) {
			this.counters.failed.increment();
			HashedWheelTimer.warn(() -> "Task executor refused " + timeout, ex);
		}
	}

}
