package io.github.wheeltimer.durable;

import java.util.List;

/**
 * Thrown at startup when the database's durable calls' tables are older than this starter needs:
 * never created (version 0: {@code wheel-timer.durable.jdbc.initialize-schema} is {@code embedded}
 * by default, so a server database such as PostgreSQL gets none), created by an older starter and
 * not upgraded since, or lacking a table or column whatever version they record. Spring Boot's
 * startup report says what the database has, and which of the starter's migration scripts bring
 * it to this version.
 */
public class DurableSchemaOutdatedException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	private final int foundVersion;

	private final int neededVersion;

	private final List<String> missing;

	private final List<String> scripts;

	/**
	 * Creates the exception.
	 * @param foundVersion the version the database's tables record, 0 if it has none
	 * @param neededVersion the version this starter needs
	 * @param missing the missing tables, and columns as {@code table.column}
	 * @param scripts where the scripts that bring the tables to the needed version are on the
	 * class path, in the order to run them
	 */
	public DurableSchemaOutdatedException(int foundVersion, int neededVersion, List<String> missing,
			List<String> scripts) {
		super("Durable delayed calls need version " + neededVersion + " of their tables; the database has version "
				+ foundVersion + (missing.isEmpty() ? "" : ", lacking " + String.join(", ", missing)) + "; run "
				+ String.join(", ", scripts));
		this.foundVersion = foundVersion;
		this.neededVersion = neededVersion;
		this.missing = List.copyOf(missing);
		this.scripts = List.copyOf(scripts);
	}

	/**
	 * Returns the version the database's tables record: the highest step applied, 1 for tables
	 * made before versions were recorded, 0 if there are none.
	 * @return the version found
	 */
	public int getFoundVersion() {
		return this.foundVersion;
	}

	/**
	 * Returns the version of the tables this starter needs.
	 * @return the version needed
	 */
	public int getNeededVersion() {
		return this.neededVersion;
	}

	/**
	 * Returns what is missing: a table's name, or a column as {@code table.column}.
	 * @return the missing tables and columns, empty if the database lacks only a version's row
	 */
	public List<String> getMissing() {
		return this.missing;
	}

	/**
	 * Returns the migration scripts, in the starter's jar, that bring the tables to the needed
	 * version, in the order to run them, such as
	 * {@code io/github/wheeltimer/durable/schema/postgresql/V2__argument_shapes.sql}.
	 * @return the scripts' locations on the class path
	 */
	public List<String> getScripts() {
		return this.scripts;
	}

}
