package io.github.wheeltimer.durable;

/**
 * The attempt of the durable call that the current thread runs, as
 * {@link DurableCalls#currentAttempt()} reads it. Internal: public only so that the package that
 * runs calls can set it; application code reads {@link DurableCalls#currentAttempt()} instead.
 */
public final class CurrentAttempt {

	// Written and read by the one thread that runs a call: the executor's thread sets it before the
	// method is entered and clears it after the method returns, so no other thread ever sees it.
	private static final ThreadLocal<Integer> attempt = new ThreadLocal<>();

	private CurrentAttempt() {
	}

	/** @return the attempt of the durable call running on this thread, 0 if none */
	static int get() {
		Integer current = attempt.get();
		return (current != null) ? current : 0;
	}

	/**
	 * Marks the current thread as running a durable call's attempt, until {@link #clear()}.
	 * @param current the attempt, from 1 (small: {@link Integer#valueOf(int)} does not allocate)
	 */
	public static void set(int current) {
		attempt.set(current);
	}

	/** Marks the current thread as running no durable call. */
	public static void clear() {
		attempt.remove();
	}

}
