package io.github.wheeltimer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;

/**
 * The one object a scheduled task costs: the caller's handle, the incoming-queue node and the
 * bucket entry at once (40 bytes with compressed oops: two links, timer, task, state, deadline).
 *
 * <p>{@code state} is the only field several threads race on. Every outcome is a compare-and-set
 * away from {@link #PENDING}, so exactly one of "expired" (the worker), "cancelled by the caller"
 * and "cancelled by stop" wins, and each outcome is counted once by its winner.
 */
final class HashedWheelTimeout extends WheelNode implements Timeout, Runnable {

	static final int PENDING = 0;

	static final int CANCELLED = 1;

	static final int EXPIRED = 2;

	private static final VarHandle STATE;

	static {
		try {
			STATE = MethodHandles.lookup().findVarHandle(HashedWheelTimeout.class, "state", int.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	final HashedWheelTimer timer;

	final TimerTask task;

	/** Nanoseconds from the timer's origin; never negative. */
	final long deadline;

	private volatile int state;

	HashedWheelTimeout(HashedWheelTimer timer, TimerTask task, long deadline) {
		this.timer = timer;
		this.task = task;
		this.deadline = deadline;
	}

	@Override
	public Timer timer() {
		return this.timer;
	}

	@Override
	public TimerTask task() {
		return this.task;
	}

	@Override
	public boolean isExpired() {
		return this.state == EXPIRED;
	}

	@Override
	public boolean isCancelled() {
		return this.state == CANCELLED;
	}

	boolean isPending() {
		return this.state == PENDING;
	}

	@Override
	public boolean cancel() {
		if (!STATE.compareAndSet(this, PENDING, CANCELLED)) {
			return false;
		}
		this.timer.cancelled(this);
		return true;
	}

	/** Claims the timeout for running; {@code false} if it was cancelled first. */
	boolean expire() {
		return STATE.compareAndSet(this, PENDING, EXPIRED);
	}

	/** Claims the timeout for the stop report (or the refusal of a racing schedule). */
	boolean cancelWithoutNotice() {
		return STATE.compareAndSet(this, PENDING, CANCELLED);
	}

	@Override
	public Duration remainingDelay() {
		return Duration.ofNanos(this.deadline - this.timer.elapsedNanos());
	}

	/** Runs the task where the timer's executor put it; the timer counts the outcome. */
	@Override
	public void run() {
		this.timer.runTask(this);
	}

	@Override
	public String toString() {
		long remaining = this.deadline - this.timer.elapsedNanos();
		String deadline = (remaining >= 0) ? Durations.format(remaining) + " from now"
				: Durations.format(-remaining) + " ago";
		return "HashedWheelTimeout(deadline: " + deadline + ", state: " + stateName() + ", task: " + this.task + ")";
	}

	private String stateName() {
		return switch (this.state) {
			case PENDING -> "PENDING";
			case CANCELLED -> "CANCELLED";
			default -> "EXPIRED";
		};
	}

}
