package io.github.wheeltimer.durable.jdbc;

import java.time.Duration;
import java.util.Collections;
import java.util.function.Supplier;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionCallback;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The calls' table as the parts of {@link JdbcCallRepository} reach it: its name, the database's
 * dialect, and how a statement runs there, so that every part runs its statements alike. A
 * statement goes through {@link JdbcTemplate}, which joins a Spring transaction on the same
 * {@code DataSource} and never commits, rolls back or closes a connection it borrowed from one;
 * outside such a transaction, a statement that lost a deadlock is tried again. Thread-safe.
 */
final class CallTable {

	/** The states as the {@code state} column stores them: {@link io.github.wheeltimer.durable.CallState}'s names. */
	static final String PENDING = "PENDING";

	static final String CLAIMED = "CLAIMED";

	static final String RUNNING = "RUNNING";

	static final String FAILED = "FAILED";

	/** The rows of calls that have not started: those a key names (a started call's row may keep its key). */
	static final String WAITING = "state IN ('" + PENDING + "', '" + CLAIMED + "')";

	/**
	 * A statement that lost a deadlock is tried again, up to seven times: six callers replacing the
	 * same four keys on two loaded cores lost four times in a row (a CI run). The winner is
	 * mid-transaction; a random wait keeps two losers from colliding again, and it doubles with
	 * each loss (about 2, 4, ... 64 ms) so that a crowd thins out: losing eight times in a row takes
	 * one that outlasts a quarter second. An interrupt (a stop) ends the waits with the last loss.
	 */
	private static final RetryTemplate LOCK_RETRIES = new RetryTemplate(RetryPolicy.builder()
		.includes(PessimisticLockingFailureException.class)
		.maxRetries(7)
		.delay(Duration.ofMillis(2))
		.jitter(Duration.ofMillis(2))
		.multiplier(2)
		.maxDelay(Duration.ofMillis(64))
		.build());

	private final DataSource dataSource;

	private final JdbcTemplate jdbc;

	private final TransactionTemplate ownTransaction;

	private final DurableDialect dialect;

	private final DurableTables tables;

	/**
	 * Reaches the table.
	 * @param dataSource the application's database
	 * @param dialect what differs on it
	 * @param tables the tables' names
	 */
	CallTable(DataSource dataSource, DurableDialect dialect, DurableTables tables) {
		this.dataSource = dataSource;
		this.jdbc = new JdbcTemplate(dataSource);
		this.ownTransaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		this.ownTransaction.setIsolationLevel(dialect.ownTransactionIsolation());
		this.dialect = dialect;
		this.tables = tables;
	}

	/** @return the calls' table's name */
	String name() {
		return this.tables.calls();
	}

	/** @return the tables' names: the calls' statements also read the instances' heartbeats */
	DurableTables tables() {
		return this.tables;
	}

	DurableDialect dialect() {
		return this.dialect;
	}

	/** @return the template that runs statements, in the caller's transaction if it has one */
	JdbcTemplate jdbc() {
		return this.jdbc;
	}

	/**
	 * One statement, tried again if it lost a deadlock or waited too long for a lock (InnoDB's
	 * gap locks make both likelier than on PostgreSQL), unless it runs in the caller's transaction:
	 * a deadlock rolls that whole transaction back, so retrying is the caller's, who hears of it.
	 */
	int update(String sql, Object... arguments) {
		return retried(() -> this.jdbc.update(sql, arguments));
	}

	/** A transaction of the repository's own, tried again whole as {@link #update} is. */
	<T> @Nullable T inOwnTransaction(TransactionCallback<T> work) {
		return retried(() -> this.ownTransaction.execute(work));
	}

	/**
	 * A statement over a batch of ids, tried again as {@link #update} is: in a transaction of the
	 * repository's own where the dialect asks for an isolation other than the connection's (see
	 * {@link DurableDialect#ownTransactionIsolation()}), else alone.
	 */
	<T> @Nullable T inBatchTransaction(Supplier<T> work) {
		if (this.dialect.ownTransactionIsolation() == TransactionDefinition.ISOLATION_DEFAULT) {
			return retried(work);
		}
		return inOwnTransaction((status) -> work.get());
	}

	/** Tried again as {@link #LOCK_RETRIES} says, unless in the caller's transaction, which the loss rolled back. */
	<T> T retried(Supplier<T> work) {
		return inTransaction() ? work.get() : LOCK_RETRIES.invoke(work);
	}

	/** @return whether the current thread runs in a Spring transaction on this table's database, which statements join */
	boolean inTransaction() {
		return TransactionSynchronizationManager.isSynchronizationActive()
				&& TransactionSynchronizationManager.isActualTransactionActive()
				&& TransactionSynchronizationManager.hasResource(this.dataSource);
	}

	/** @return {@code count} parameters, for an {@code IN} list */
	static String placeholders(int count) {
		return String.join(", ", Collections.nCopies(count, "?"));
	}

}
