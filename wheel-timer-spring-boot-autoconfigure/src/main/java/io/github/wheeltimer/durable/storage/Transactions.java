package io.github.wheeltimer.durable.storage;

import java.util.function.IntConsumer;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Work that waits for the current thread's transaction to end: registered as a Spring transaction
 * synchronization, so the caller must know that one is active
 * ({@link CallRepository#inTransaction()}).
 */
public final class Transactions {

	private Transactions() {
	}

	/** Tells {@code action} how the current thread's transaction ended, once it has. */
	public static void afterCompletion(IntConsumer action) {
		TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

			@Override
			public void afterCompletion(int status) {
				action.accept(status);
			}

		});
	}

	/** Runs {@code action} once the current thread's transaction has committed; never if it rolls back. */
	public static void afterCommit(Runnable action) {
		afterCompletion((status) -> {
			if (status == TransactionSynchronization.STATUS_COMMITTED) {
				action.run();
			}
		});
	}

	/** Runs {@code action} once the current thread's transaction has rolled back; never if it commits. */
	public static void afterRollback(Runnable action) {
		afterCompletion((status) -> {
			if (status == TransactionSynchronization.STATUS_ROLLED_BACK) {
				action.run();
			}
		});
	}

}
