package io.github.wheeltimer.durable.run;

/**
 * Thrown inside a durable method's own transaction, right before it commits, when the database
 * fails the statement that ends the call there (deletes its row) for a reason that may pass later:
 * a deadlock, a cancelled statement, a lost connection. Rolling the transaction back undoes the
 * method's effects with the end of the call, so the call is handed back and runs again (a run
 * whose effects rolled back is not an attempt), rather than kept as failed for the database's
 * moment. Caught by {@link CallRunner}; never reaches the application's exception handler.
 */
final class FinishRefusedException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	FinishRefusedException(String call, RuntimeException cause) {
		super(call + " could not end in its method's transaction, the database failed the statement"
				+ " that deletes its row (" + cause.getMessage() + "): the transaction is rolled back, and the call"
				+ " is handed back to run again", cause, false, false);
	}

}
