package io.github.wheeltimer.durable;

import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.sql.SQLNonTransientConnectionException;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.InvalidDataAccessResourceUsageException;
import org.springframework.dao.RecoverableDataAccessException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.transaction.CannotCreateTransactionException;

/**
 * What a failed statement says about the database, which decides what durable calls do about it:
 * wait for a database that cannot be reached, report tables that are missing, and give up on one
 * row that the database refuses without stopping the others.
 */
enum DatabaseFailure {

	/**
	 * The database cannot be reached (no connection, a connection cut, the server shutting down):
	 * writes wait for it, and this instance takes no other's calls over until it has been back
	 * for a whole lease.
	 */
	UNREACHABLE,

	/** A table or column is missing: nothing works until an operator creates it. */
	SCHEMA,

	/** A deadlock, a lock or query timeout: the same statement may well pass a moment later. */
	TRANSIENT,

	/** The database refused this statement for its data (a constraint, an encoding): one row's problem. */
	REFUSED;

	/** @return whether the same statement may pass later, so that a write waits rather than is given up */
	boolean retryLater() {
		return this != REFUSED;
	}

	static DatabaseFailure of(Throwable failure) {
		if (failure instanceof CannotCreateTransactionException || failure instanceof DataAccessResourceFailureException
				|| failure instanceof TransientDataAccessResourceException
				|| failure instanceof RecoverableDataAccessException) {
			return UNREACHABLE;
		}
		for (Throwable cause = failure; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			if (cause instanceof SQLTransientConnectionException || cause instanceof SQLNonTransientConnectionException
					|| cause instanceof SQLRecoverableException) {
				return UNREACHABLE;
			}
			// SQLState class 08 is a connection exception; PostgreSQL's 57P0x, a server shutting down.
			if (cause instanceof SQLException sql && sql.getSQLState() != null
					&& (sql.getSQLState().startsWith("08") || sql.getSQLState().startsWith("57P0"))) {
				return UNREACHABLE;
			}
		}
		if (failure instanceof InvalidDataAccessResourceUsageException) {
			return SCHEMA;
		}
		return (failure instanceof TransientDataAccessException) ? TRANSIENT : REFUSED;
	}

}
