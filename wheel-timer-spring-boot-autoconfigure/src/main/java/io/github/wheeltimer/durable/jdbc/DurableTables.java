package io.github.wheeltimer.durable.jdbc;

import java.util.ArrayList;
import java.util.List;

import io.github.wheeltimer.durable.DurableSchemaMissingException;

import org.springframework.dao.InvalidDataAccessResourceUsageException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The two tables of durable calls, {@code <prefix>CALL} and {@code <prefix>INSTANCE}, and the
 * check that they hold every column this version writes.
 *
 * @param prefix the tables' prefix ({@code wheel-timer.durable.jdbc.table-prefix})
 * @param calls the calls' table
 * @param instances the instances' table
 */
public record DurableTables(String prefix, String calls, String instances) {

	/** Every column of the calls' table, as the scripts in the jar create it. */
	private static final List<String> CALL_COLUMNS = List.of("id", "method_id", "call_key", "arguments", "due_at",
			"state", "owner_id", "attempts", "created_at", "finished_at", "last_error", "trace_parent", "started_key",
			"failures", "retries", "retrying_since");

	/** Every column of the instances' table. */
	private static final List<String> INSTANCE_COLUMNS = List.of("id", "name", "started_at", "heartbeat_at",
			"methods");

	/**
	 * Names the tables.
	 * @param prefix letters, digits and underscores
	 * @return the tables
	 */
	public static DurableTables withPrefix(String prefix) {
		return new DurableTables(prefix, prefix + "CALL", prefix + "INSTANCE");
	}

	/**
	 * Checks that both tables exist with every column this version writes, so that a database
	 * without them fails startup with what to do, not the first statement of a poll.
	 * @param jdbc the database
	 * @param dialect its dialect, whose script the failure names
	 * @throws DurableSchemaMissingException naming what is missing
	 */
	public void requireColumns(JdbcTemplate jdbc, DurableDialect dialect) {
		List<String> missing = new ArrayList<>();
		missing.addAll(missingOf(jdbc, this.calls, CALL_COLUMNS));
		missing.addAll(missingOf(jdbc, this.instances, INSTANCE_COLUMNS));
		if (!missing.isEmpty()) {
			throw new DurableSchemaMissingException(missing, DurableSchema.scripts(dialect, 1).get(0));
		}
	}

	/** @return the table, if it is missing, else its missing columns as {@code table.column} */
	private static List<String> missingOf(JdbcTemplate jdbc, String table, List<String> columns) {
		if (answers(jdbc, "SELECT " + String.join(", ", columns) + " FROM " + table + " WHERE 1 = 0")) {
			return List.of();
		}
		if (!answers(jdbc, "SELECT 1 FROM " + table + " WHERE 1 = 0")) {
			return List.of(table);
		}
		return columns.stream()
			.filter((column) -> !answers(jdbc, "SELECT " + column + " FROM " + table + " WHERE 1 = 0"))
			.map((column) -> table + "." + column)
			.toList();
	}

	private static boolean answers(JdbcTemplate jdbc, String query) {
		try {
			jdbc.queryForList(query);
			return true;
		}
		catch (InvalidDataAccessResourceUsageException missing) {
			return false;
		}
	}

}
