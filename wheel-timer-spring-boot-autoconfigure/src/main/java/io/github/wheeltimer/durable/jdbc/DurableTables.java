package io.github.wheeltimer.durable.jdbc;

import java.util.ArrayList;
import java.util.List;

import io.github.wheeltimer.durable.DurableSchemaOutdatedException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.dao.InvalidDataAccessResourceUsageException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The tables of durable calls, {@code <prefix>CALL} and {@code <prefix>INSTANCE}, with
 * {@code <prefix>SCHEMA_VERSION} beside them (see {@link DurableSchema}), and the check that they
 * hold every column this version writes.
 *
 * @param prefix the tables' prefix ({@code wheel-timer.durable.jdbc.table-prefix})
 * @param calls the calls' table
 * @param instances the instances' table
 */
public record DurableTables(String prefix, String calls, String instances) {

	private static final Log logger = LogFactory.getLog(DurableTables.class);

	/**
	 * Every column of the calls' table, as the scripts in the jar create it; one that a step after
	 * the first adds is named in {@link #stepAdding} too.
	 */
	private static final List<String> CALL_COLUMNS = List.of("id", "method_id", "call_key", "arguments", "due_at",
			"state", "owner_id", "attempts", "created_at", "finished_at", "last_error", "trace_parent", "started_key",
			"failures", "retries", "retrying_since", "shape");

	/** Every column of the instances' table. */
	private static final List<String> INSTANCE_COLUMNS = List.of("id", "name", "started_at", "heartbeat_at",
			"methods", "shapes", "tables_version");

	/**
	 * Names the tables.
	 * @param prefix letters, digits and underscores
	 * @return the tables
	 */
	public static DurableTables withPrefix(String prefix) {
		return new DurableTables(prefix, prefix + "CALL", prefix + "INSTANCE");
	}

	/**
	 * Returns the name of the table that records the tables' version.
	 * @return {@code <prefix>SCHEMA_VERSION}
	 */
	public String schemaVersion() {
		return this.prefix + "SCHEMA_VERSION";
	}

	/**
	 * Checks that the tables are at this starter's version, or a newer one, with every column it
	 * writes, so that a database without them fails startup saying which scripts to run, not the
	 * first statement of a poll. Tables of a newer version (a newer starter upgraded them, as in a
	 * rolling deploy) serve as they are: a step only adds what an older starter does not use.
	 * @param jdbc the database
	 * @param dialect its dialect, whose scripts the failure names
	 * @throws DurableSchemaOutdatedException naming the version found, the one needed, what is
	 * missing and the scripts that add it
	 */
	public void requireSchema(JdbcTemplate jdbc, DurableDialect dialect) {
		DurableSchema found = DurableSchema.read(jdbc, this);
		if (!found.isCurrent()) {
			throw new DurableSchemaOutdatedException(found.version(), DurableSchema.CURRENT_VERSION, found.missing(),
					found.missingScripts(dialect));
		}
		if (found.version() > DurableSchema.CURRENT_VERSION) {
			logger.info("The durable calls' tables are at version " + found.version() + "; this starter needs version "
					+ DurableSchema.CURRENT_VERSION + " and uses them as they are (a newer starter upgraded them)");
		}
	}

	/** @return the tables this version writes that the database lacks, and their columns as {@code table.column} */
	List<String> missing(JdbcTemplate jdbc) {
		List<String> missing = new ArrayList<>();
		missing.addAll(missingOf(jdbc, this.calls, CALL_COLUMNS));
		missing.addAll(missingOf(jdbc, this.instances, INSTANCE_COLUMNS));
		return missing;
	}

	/**
	 * Returns the step of {@link DurableSchema} that creates a table or adds a column.
	 * @param missing a table's name, or a column as {@code table.column}
	 * @return the step's version: 1 unless a later step added the column
	 */
	static int stepAdding(String missing) {
		int dot = missing.indexOf('.');
		if (dot < 0) {
			return 1;
		}
		return switch (missing.substring(dot + 1)) {
			case "shape", "shapes" -> 2;
			case "tables_version" -> 3;
			default -> 1;
		};
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
