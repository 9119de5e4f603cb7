package io.github.wheeltimer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;

/**
 * The one object a scheduled task costs: the caller's handle, the incoming-queue node and the
 * bucket entry at once (40 bytes with compressed oops: two links, timer, task, state, deadline),
 * and the {@link HandOff} of a task that hands its work on, so that a hand-off allocates nothing.
 *
 * <p>{@code state} is the only field several threads race on. Every outcome is a compare-and-set
 * away from {@link #PENDING}, so exactly one of "expired" (the worker), "cancelled by the caller"
 * and "cancelled by stop" wins, and each outcome is counted once by its winner. An expired
 * timeout whose task hands its work on goes on to {@link #HANDED_OFF} (the task's thread, while
 * the task runs) and then to {@link #ENDED}, once, by whichever comes first of the work saying
 * how it ended and the task throwing after the hand-off: that one counts the outcome. A scheduler
 * that raced a stop takes its own timeout back to {@link #REFUSED}.
 */
final class HashedWheelTimeout extends WheelNode implements Timeout, Runnable, HandOff {

	static final int PENDING = 0;

	static final int CANCELLED = 1;

	/** Fired: its task runs, or ran. */
	static final int EXPIRED = 2;

	/** Fired, and its task handed the work on: the work's end is still to be counted. */
	static final int HANDED_OFF = 3;

	/** Fired and handed off, and the end counted. */
	static final int ENDED = 4;

	/**
	 * Taken back by its scheduler, which saw the timer stop: never given out, never told anything.
	 * Below the other states, so that the checks of "fired" stay single comparisons.
	 */
	static final int REFUSED = -1;

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
		return this.state >= EXPIRED;
	}

	/** Also for a timeout its scheduler took back (never given out, but seen by queries of the wheel). */
	@Override
	public boolean isCancelled() {
		int state = this.state;
		return state == CANCELLED || state == REFUSED;
	}

	/** Whether a caller's cancel (or the stop report) won it: what the worker tells the task of. */
	boolean isCancelledByCaller() {
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
		// After the compare-and-set, which fences: see WheelNode for the handshake with the take.
		this.timer.cancelled(this, PREV.getVolatile(this) != null);
		return true;
	}

	/** Claims the timeout for running; {@code false} if it was cancelled first. */
	boolean expire() {
		return STATE.compareAndSet(this, PENDING, EXPIRED);
	}

	/**
	 * The task, running, hands its work on.
	 * @return {@code false} if it did already, or the timeout has not fired
	 */
	boolean handOff() {
		return STATE.compareAndSet(this, EXPIRED, HANDED_OFF);
	}

	/**
	 * Whether the task that ran handed its work on: then its end is counted when the work says
	 * how it ended, not when the task returns.
	 */
	boolean isHandedOff() {
		return this.state > EXPIRED;
	}

	/**
	 * The task threw: counts as its failure unless the work it had handed on said how it ended
	 * first. A hand-off the task made before it threw is void from now on.
	 * @return whether the failure is to be counted
	 */
	boolean threw() {
		return (int) STATE.getAndSet(this, ENDED) != ENDED;
	}

	@Override
	public void completed() {
		if (end()) {
			this.timer.handedOffCompleted();
		}
	}

	@Override
	public void failed() {
		if (end()) {
			this.timer.handedOffFailed();
		}
	}

	@Override
	public void withdrawn() {
		if (end()) {
			this.timer.handedOffWithdrawn();
		}
	}

	/** @return whether this call ends the hand-off: the first to, of the work's calls and the task's throw */
	private boolean end() {
		return STATE.compareAndSet(this, HANDED_OFF, ENDED);
	}

	/** Claims the timeout for the stop report. */
	boolean cancelWithoutNotice() {
		return STATE.compareAndSet(this, PENDING, CANCELLED);
	}

	/** Claims the timeout for its scheduler, which refuses it as the timer stopped. */
	boolean refuse() {
		return STATE.compareAndSet(this, PENDING, REFUSED);
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
			case REFUSED -> "REFUSED";
			default -> "EXPIRED";
		};
	}

}
