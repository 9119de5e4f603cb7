package io.github.wheeltimer.durable;

import java.util.List;

/**
 * Thrown at startup when the database lacks a table or a column that durable calls need: the
 * tables were never created ({@code wheel-timer.durable.jdbc.initialize-schema} is
 * {@code embedded} by default, so a server database such as PostgreSQL gets none), or a migration
 * copied an older script. Spring Boot's startup report says what is missing and how to create it.
 */
public class DurableSchemaMissingException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	private final List<String> missing;

	private final String script;

	/**
	 * Creates the exception.
	 * @param missing the missing tables, and columns as {@code table.column}
	 * @param script where the script that creates them is on the class path
	 */
	public DurableSchemaMissingException(List<String> missing, String script) {
		super("Durable delayed calls need tables the database does not have; missing: " + String.join(", ", missing));
		this.missing = List.copyOf(missing);
		this.script = script;
	}

	/**
	 * Returns what is missing: a table's name, or a column as {@code table.column}.
	 * @return the missing tables and columns
	 */
	public List<String> getMissing() {
		return this.missing;
	}

	/**
	 * Returns where the script that creates the tables for this database is, in the starter's jar,
	 * such as {@code io/github/wheeltimer/durable/schema/postgresql/V1__tables.sql}.
	 * @return the script's location on the class path
	 */
	public String getScript() {
		return this.script;
	}

}
