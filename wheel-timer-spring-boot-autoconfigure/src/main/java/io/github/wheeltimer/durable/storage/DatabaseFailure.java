package io.github.wheeltimer.durable.storage;

import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.sql.SQLNonTransientConnectionException;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.InvalidDataAccessResourceUsageException;
import org.springframework.dao.RecoverableDataAccessException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionSystemException;

/**
 * What a failed statement says about the database, which decides what durable calls do about it:
 * wait for a database that cannot be reached, report tables that are missing, and give up on one
 * row that the database refuses without stopping the others.
 */
public enum DatabaseFailure {

	/**
	 * The database cannot be reached (no connection, a connection cut, the server shutting down):
	 * writes wait for it, and this instance takes no other's calls over until it has been back
	 * for a whole lease.
	 */
	UNREACHABLE,

	/** A table or column is missing: nothing works until an operator creates it. */
	SCHEMA,

	/**
	 * A deadlock, a cancelled statement (a statement timeout), a database out of resources (disk,
	 * memory, connections): the same statement may well pass later.
	 */
	TRANSIENT,

	/** The database refused this statement for its data (a constraint, an encoding): one row's problem. */
	REFUSED;

	/** How deep a chain of causes is read: wrapped often, it may also loop. */
	private static final int MAX_CAUSES = 16;

	/** @return whether the same statement may pass later, so that a write waits rather than is given up */
	public boolean retryLater() {
		return this != REFUSED;
	}

	public static DatabaseFailure of(Throwable failure) {
		// What the database or the driver said, when they said it: more precise than Spring's type,
		// which calls a full disk and a cancelled statement resource failures too.
		Throwable cause = failure;
		for (int depth = 0; cause != null && depth < MAX_CAUSES; depth++, cause = cause.getCause()) {
			if (cause instanceof SQLTransientConnectionException || cause instanceof SQLNonTransientConnectionException
					|| cause instanceof SQLRecoverableException) {
				return UNREACHABLE;
			}
			DatabaseFailure said = (cause instanceof SQLException sql) ? of(sql.getSQLState()) : null;
			if (said != null) {
				return said;
			}
		}
		// No state to go by: no connection to be had, or no transaction to begin on one.
		if (failure instanceof CannotCreateTransactionException || failure instanceof DataAccessResourceFailureException
				|| failure instanceof TransientDataAccessResourceException
				|| failure instanceof RecoverableDataAccessException) {
			return UNREACHABLE;
		}
		// A commit or rollback that JDBC failed without a state: the connection is gone. HikariCP's
		// closed connection says only "Connection is closed", and Spring throws a rollback's failure
		// in place of the commit's; a database that refused the commit would have said why.
		if (failure instanceof TransactionSystemException && failure.getCause() instanceof SQLException) {
			return UNREACHABLE;
		}
		if (failure instanceof InvalidDataAccessResourceUsageException) {
			return SCHEMA;
		}
		return (failure instanceof TransientDataAccessException) ? TRANSIENT : REFUSED;
	}

	/** By SQLState class (SQL standard, PostgreSQL's and H2's codes), or {@code null} if it tells nothing. */
	private static @Nullable DatabaseFailure of(@Nullable String state) {
		if (state == null || state.length() < 2) {
			return null;
		}
		// 08: connection exception; 57P0x: PostgreSQL shutting down; 90098, 90121: H2's database closed.
		if (state.startsWith("08") || state.startsWith("57P0") || state.equals("90098") || state.equals("90121")) {
			return UNREACHABLE;
		}
		// 57014: a statement cancelled (statement_timeout); 53: out of resources (disk, memory,
		// connections); 40: a transaction rolled back (deadlock, serialization).
		if (state.equals("57014") || state.startsWith("53") || state.startsWith("40")) {
			return TRANSIENT;
		}
		// 42: a table or column missing (or a statement the database does not understand).
		if (state.startsWith("42")) {
			return SCHEMA;
		}
		// 22: a value the column cannot hold; 23: a constraint; 54: a program limit.
		if (state.startsWith("22") || state.startsWith("23") || state.startsWith("54")) {
			return REFUSED;
		}
		return null;
	}

}
