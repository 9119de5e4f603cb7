package io.github.wheeltimer.durable;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.TransactionSystemException;

/**
 * Beans of a test's {@link DurableApp} that make the database fail the first transaction of
 * {@code Orders.cancelIfUnpaid} as a database that went away does: at its begin (no connection),
 * at its commit (the connection broke: the transaction is rolled back, and the commit throws), or
 * at its rollback (the same, once something else made it roll back), or at both (the commit
 * breaks, and the pool has closed the connection before the rollback that follows).
 * They wrap the application's transaction manager; every other transaction, and the method's
 * next ones, run on the real database.
 */
abstract sealed class TransactionFailsOnce implements BeanPostProcessor {

	private static final String METHOD = "DurableApp$Orders.cancelIfUnpaid";

	private final AtomicBoolean failed = new AtomicBoolean();

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (!(bean instanceof PlatformTransactionManager transactions)) {
			return bean;
		}
		return new PlatformTransactionManager() {

			@Override
			public TransactionStatus getTransaction(@Nullable TransactionDefinition definition) {
				return begin(transactions, definition);
			}

			@Override
			public void commit(TransactionStatus status) {
				end(transactions, status);
			}

			@Override
			public void rollback(TransactionStatus status) {
				abort(transactions, status);
			}

		};
	}

	TransactionStatus begin(PlatformTransactionManager transactions, @Nullable TransactionDefinition definition) {
		return transactions.getTransaction(definition);
	}

	void end(PlatformTransactionManager transactions, TransactionStatus status) {
		transactions.commit(status);
	}

	void abort(PlatformTransactionManager transactions, TransactionStatus status) {
		transactions.rollback(status);
	}

	/** Whether this is the method's first transaction, once: the one that fails. */
	boolean firstOfTheMethod(@Nullable String name) {
		return name != null && name.endsWith(METHOD) && this.failed.compareAndSet(false, true);
	}

	/** The transaction cannot begin: the pool has no connection to give. */
	static final class AtBegin extends TransactionFailsOnce {

		@Override
		TransactionStatus begin(PlatformTransactionManager transactions, @Nullable TransactionDefinition definition) {
			if (definition != null && firstOfTheMethod(definition.getName())) {
				throw new CannotCreateTransactionException("Could not open JDBC Connection for transaction (test)",
						new SQLTransientConnectionException("Connection is not available, request timed out (test)"));
			}
			return super.begin(transactions, definition);
		}

	}

	/** The method's first transaction ends as on a connection that broke under it. */
	abstract static sealed class AtItsEnd extends TransactionFailsOnce {

		private volatile @Nullable TransactionStatus failing;

		@Override
		TransactionStatus begin(PlatformTransactionManager transactions, @Nullable TransactionDefinition definition) {
			TransactionStatus status = super.begin(transactions, definition);
			if (definition != null && firstOfTheMethod(definition.getName())) {
				this.failing = status;
			}
			return status;
		}

		/** @return whether this is the method's first transaction, the one that fails */
		boolean failing(TransactionStatus status) {
			return status == this.failing;
		}

		/** What the transaction manager throws when the connection broke under {@code what}. */
		static TransactionSystemException broken(String what) {
			return new TransactionSystemException(what + " (test)",
					new SQLNonTransientConnectionException("An I/O error occurred while sending to the backend (test)",
							"08006"));
		}

	}

	/** The commit fails as a broken connection's does: what the transaction did is rolled back. */
	static sealed class AtCommit extends AtItsEnd {

		@Override
		void end(PlatformTransactionManager transactions, TransactionStatus status) throws TransactionException {
			if (!failing(status)) {
				super.end(transactions, status);
				return;
			}
			transactions.rollback(status);
			throw failure();
		}

		/** What the commit throws. */
		TransactionSystemException failure() {
			return broken("Could not commit JDBC transaction");
		}

	}

	/**
	 * The commit fails on a connection that broke, and so does the rollback Spring tries next, on a
	 * connection the pool has closed meanwhile: Spring throws the rollback's failure, without the
	 * commit's (which it only logs), and HikariCP's closed connection says only "Connection is
	 * closed", with no SQLState. Seen under a database outage in the cluster tests.
	 */
	static final class AtCommitThenRollback extends AtCommit {

		@Override
		TransactionSystemException failure() {
			return new TransactionSystemException("JDBC rollback failed (test)",
					new SQLException("Connection is closed (test)"));
		}

	}

	/**
	 * The rollback fails as a broken connection's does, after what the transaction did was rolled
	 * back: with {@link FinishRefusedOnce}, the end of a call refused and then the rollback too.
	 */
	static final class AtRollback extends AtItsEnd {

		@Override
		void abort(PlatformTransactionManager transactions, TransactionStatus status) {
			super.abort(transactions, status);
			if (failing(status)) {
				throw broken("JDBC rollback failed");
			}
		}

	}

}
