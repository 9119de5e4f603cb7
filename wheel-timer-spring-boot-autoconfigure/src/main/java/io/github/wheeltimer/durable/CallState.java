package io.github.wheeltimer.durable;

/**
 * Where a durable call is in its life. A call's row moves {@code PENDING -> CLAIMED -> RUNNING}
 * and is deleted once its method returned, or moves to {@code FAILED} when it threw.
 */
public enum CallState {

	/** Written, waiting in the database for an instance to claim it (its due time is beyond the horizon, or no instance claimed it yet). */
	PENDING,

	/** On an instance's wheel, to fire on the tick of its due time. */
	CLAIMED,

	/** Passed its start gate: its method is running, or its instance died while it ran (then it runs again). */
	RUNNING,

	/** Its method threw, or its arguments could not be read: kept for an operator to re-queue or delete. */
	FAILED;

	/**
	 * Says whether a call in this state has not started: it can still be cancelled, rescheduled or
	 * run now, and its key names it.
	 * @return {@code true} for {@link #PENDING} and {@link #CLAIMED}
	 */
	public boolean waiting() {
		return this == PENDING || this == CLAIMED;
	}

}
