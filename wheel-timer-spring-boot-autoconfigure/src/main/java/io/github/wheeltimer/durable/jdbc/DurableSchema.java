package io.github.wheeltimer.durable.jdbc;

import java.util.ArrayList;
import java.util.List;

/**
 * The versions of the durable calls' tables, and the migration script of each step per database,
 * in the starter's jar: {@code io/github/wheeltimer/durable/schema/<platform>/V<n>__<name>.sql}
 * (see {@link DurableDialect#schemaFolder()}).
 * <p>
 * Version 1 is the two tables as the first scripts created them.
 */
public final class DurableSchema {

	/** The version of the tables this starter writes and reads. */
	public static final int CURRENT_VERSION = 1;

	/** Each step's name, in the order they apply: the step to version {@code n} is at {@code n - 1}. */
	private static final List<String> STEPS = List.of("tables");

	private DurableSchema() {
	}

	/**
	 * Returns the class path locations of the scripts that bring a database's tables from one
	 * version to the current one, in the order to run them.
	 * @param dialect the database's dialect, whose folder holds the scripts
	 * @param first the first step to run, from 1 (the tables created from nothing)
	 * @return the scripts of the steps from {@code first} to {@link #CURRENT_VERSION}, such as
	 * {@code io/github/wheeltimer/durable/schema/h2/V1__tables.sql}; none if {@code first} is past it
	 */
	public static List<String> scripts(DurableDialect dialect, int first) {
		List<String> scripts = new ArrayList<>();
		for (int version = Math.max(first, 1); version <= CURRENT_VERSION; version++) {
			scripts.add(dialect.schemaFolder() + "/V" + version + "__" + STEPS.get(version - 1) + ".sql");
		}
		return scripts;
	}

}
