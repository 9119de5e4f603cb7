package io.github.wheeltimer.durable.jdbc;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.InvalidDataAccessResourceUsageException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The versions of the durable calls' tables, and what a database has of them.
 * <p>
 * Each version is one step, with a migration script per database in the starter's jar,
 * {@code io/github/wheeltimer/durable/schema/<platform>/V<n>__<name>.sql} (the folder is
 * {@link DurableDialect#schemaFolder()}):
 * <ol>
 * <li>{@code V1__tables.sql}: the calls' and the instances' tables, as the starters before versions
 * made them;</li>
 * <li>{@code V2__argument_shapes.sql}: the argument shape of each call and of each instance, and the
 * table {@code <prefix>SCHEMA_VERSION}, where this step and every later one records itself;</li>
 * <li>{@code V3__gate_in_place.sql}: on PostgreSQL, a column of its own for whether a call waits to
 * be claimed, and the claim's index on it, so that the gate that starts a call changes no indexed
 * column; on every database, the tables' version each instance's starter writes.</li>
 * </ol>
 * A step only adds (tables, columns with a default, rows), so that an instance of an older starter
 * keeps working on tables that a newer one upgraded, as in a rolling deploy; and it adds only what is
 * missing, so that a step that stopped half-way completes when it runs again. What a newer step
 * makes obsolete goes only once no instance of an older starter runs: the claim index that
 * PostgreSQL's version 3 replaces ({@link DurableDialect#retiredIndex}).
 * {@link DurableSchemaInitializer} runs the steps a database lacks
 * ({@code wheel-timer.durable.jdbc.initialize-schema}); otherwise startup fails naming them.
 *
 * @param version the version the database records: the highest in {@code <prefix>SCHEMA_VERSION},
 * else 1 if the calls' table exists (tables made before versions were recorded), else 0
 * @param missing the tables, and columns as {@code table.column}, of the current version that the
 * database lacks, whatever version it records
 */
public record DurableSchema(int version, List<String> missing) {

	/** The version of the tables this starter writes and reads, and creates. */
	public static final int CURRENT_VERSION = 3;

	/** Each step's name, in the order they apply: the step to version {@code n} is at {@code n - 1}. */
	private static final List<String> STEPS = List.of("tables", "argument_shapes", "gate_in_place");

	/**
	 * Creates the description of a database's tables.
	 * @param version the version it records
	 * @param missing what it lacks of the current version
	 */
	public DurableSchema {
		missing = List.copyOf(missing);
	}

	/**
	 * Reads what a database has of the durable calls' tables.
	 * @param jdbc the database
	 * @param tables the tables' names
	 * @return its version, and what it lacks
	 */
	public static DurableSchema read(JdbcTemplate jdbc, DurableTables tables) {
		List<String> missing = tables.missing(jdbc);
		Integer recorded = recordedVersion(jdbc, tables);
		if (recorded != null) {
			return new DurableSchema(recorded, missing);
		}
		return new DurableSchema(missing.contains(tables.calls()) ? 0 : 1, missing);
	}

	/** @return the highest version the database records, or {@code null} if it records none */
	private static @Nullable Integer recordedVersion(JdbcTemplate jdbc, DurableTables tables) {
		try {
			return jdbc.queryForObject("SELECT MAX(version) FROM " + tables.schemaVersion(), Integer.class);
		}
		catch (InvalidDataAccessResourceUsageException noTable) {
			return null;
		}
	}

	/**
	 * Returns whether the tables serve this starter as they are: at its version or a newer one (whose
	 * steps only added what this one does not use), with every table and column it uses.
	 * @return {@code true} if no step needs to run
	 */
	public boolean isCurrent() {
		return this.version >= CURRENT_VERSION && this.missing.isEmpty();
	}

	/**
	 * Returns the first step that brings the database to the current version: the one after the
	 * version it records, or an earlier one that adds a table or column it lacks (tables from an
	 * earlier copy of a script, a version recorded by hand, a table dropped).
	 * @return the step's version, after {@link #CURRENT_VERSION} if none is needed
	 */
	public int firstMissingStep() {
		int first = this.version + 1;
		for (String lacking : this.missing) {
			first = Math.min(first, DurableTables.stepAdding(lacking));
		}
		return first;
	}

	/**
	 * Returns the scripts that bring this database to the current version, in the order to run them.
	 * @param dialect the database's dialect
	 * @return the scripts' class path locations, none if {@link #isCurrent()}
	 */
	public List<String> missingScripts(DurableDialect dialect) {
		return isCurrent() ? List.of() : scripts(dialect, firstMissingStep());
	}

	/**
	 * Returns the class path locations of the scripts of the steps from {@code first} to the current
	 * version, in the order to run them.
	 * @param dialect the database's dialect, whose folder holds the scripts
	 * @param first the first step, from 1 (the tables created from nothing)
	 * @return the scripts, such as {@code io/github/wheeltimer/durable/schema/h2/V2__argument_shapes.sql};
	 * none if {@code first} is after the current version
	 */
	public static List<String> scripts(DurableDialect dialect, int first) {
		List<String> scripts = new ArrayList<>();
		for (int version = Math.max(first, 1); version <= CURRENT_VERSION; version++) {
			scripts.add(dialect.schemaFolder() + "/V" + version + "__" + STEPS.get(version - 1) + ".sql");
		}
		return scripts;
	}

}
