package io.github.wheeltimer.durable.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.UUID;

import io.github.wheeltimer.durable.CallState;
import io.github.wheeltimer.durable.StoredCall;
import io.github.wheeltimer.durable.Tries;
import io.github.wheeltimer.durable.storage.ClaimedCall;

/**
 * The calls' rows read into what the repository returns: each mapper beside the columns it reads,
 * so that a column added to one is read by the other. Thread-safe.
 */
final class CallRows {

	/** The columns a claim reads, in the order {@link #claimed} reads them. */
	static final String CLAIMED_COLUMNS = "id, method_id, call_key, arguments, due_at, attempts, trace_parent,"
			+ " failures, retries, retrying_since, started_key, shape";

	private final DurableDialect dialect;

	private final DurableTables tables;

	CallRows(DurableDialect dialect, DurableTables tables) {
		this.dialect = dialect;
		this.tables = tables;
	}

	/** The calls a condition on the table {@code c} picks, with their owner's name, as {@link #stored} reads them. */
	String storedCalls(String where) {
		return "SELECT c.id, c.method_id, COALESCE(c.call_key, c.started_key), c.state, c.due_at, c.attempts,"
				+ " c.owner_id, i.name, c.trace_parent, c.created_at, c.finished_at, c.last_error, c.arguments,"
				+ " c.failures, c.retries, c.retrying_since, c.shape FROM "
				+ this.tables.calls() + " c LEFT JOIN " + this.tables.instances() + " i ON i.id = c.owner_id WHERE " + where;
	}

	StoredCall stored(ResultSet rs, int rowNumber) throws SQLException {
		Instant due = this.dialect.instant(rs, 5);
		return new StoredCall(id(rs, 1), rs.getString(2), rs.getString(3), CallState.valueOf(rs.getString(4)),
				(due != null) ? due : Instant.EPOCH, tries(rs, 6, 14), this.dialect.id(rs, 7), rs.getString(8),
				rs.getString(9), this.dialect.instant(rs, 10), this.dialect.instant(rs, 11), rs.getString(12),
				rs.getString(13), rs.getString(17));
	}

	/** A row as {@link #CLAIMED_COLUMNS} select it. */
	ClaimedCall claimed(ResultSet rs, int rowNumber) throws SQLException {
		Instant due = this.dialect.instant(rs, 5);
		return new ClaimedCall(id(rs, 1), rs.getString(2), rs.getString(3), rs.getString(11), rs.getString(4),
				(due != null) ? due : Instant.EPOCH, tries(rs, 6, 8), rs.getString(7), rs.getString(12));
	}

	/** @param failures the column of failures, followed by retries and retrying_since */
	private Tries tries(ResultSet rs, int attempts, int failures) throws SQLException {
		return new Tries(rs.getInt(attempts), rs.getInt(failures), rs.getInt(failures + 1),
				this.dialect.instant(rs, failures + 2));
	}

	UUID id(ResultSet rs, int column) throws SQLException {
		UUID id = this.dialect.id(rs, column);
		if (id == null) {
			throw new SQLException("A durable call's id is null in column " + column);
		}
		return id;
	}

	/** The id in a row's first column, for queries that read ids only. */
	UUID firstId(ResultSet rs, int rowNumber) throws SQLException {
		return id(rs, 1);
	}

}
