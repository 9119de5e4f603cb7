package io.github.wheeltimer.annotation;

/**
 * How one delayed call ended, as its observation's {@code outcome} tag says.
 */
public enum DelayedCallOutcome {

	/** The method ran and returned (a returned future completed normally). */
	RAN("ran"),

	/**
	 * The method threw (or its future failed), or the call could not start: its executor refused it,
	 * or a durable call's arguments could not be read.
	 */
	FAILED("failed"),

	/** Its caller cancelled it (its future, its timeout, or a durable call's key) before it ran. */
	CANCELLED("cancelled"),

	/**
	 * Its timer stopped before it fell due: an in-memory call that never runs. (A durable call is
	 * handed back to the database instead, and observed when it runs.)
	 */
	UNPROCESSED("unprocessed");

	private final String value;

	DelayedCallOutcome(String value) {
		this.value = value;
	}

	/**
	 * Returns the tag's value.
	 * @return the value, in lower case
	 */
	public String value() {
		return this.value;
	}

}
