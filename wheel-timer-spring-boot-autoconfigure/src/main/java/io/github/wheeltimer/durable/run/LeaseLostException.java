package io.github.wheeltimer.durable.run;

/**
 * Thrown inside a durable method's own transaction, right before it commits, when the call's row
 * is no longer this instance's: its lease ran out while the method ran (a pause longer than the
 * lease) and another instance took the call over. Rolling the transaction back keeps the method's
 * effects to one run, the other instance's. Caught by {@link CallRunner}; never reaches
 * the application's exception handler.
 */
final class LeaseLostException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	LeaseLostException(String call) {
		super(call + " is no longer this instance's: its lease ran out while it ran, and another"
				+ " instance took it over; its transaction is rolled back", null, false, false);
	}

}
