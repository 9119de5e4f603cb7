package io.github.wheeltimer.durable;

import java.sql.DatabaseMetaData;
import java.time.Duration;
import java.util.Locale;

import javax.sql.DataSource;

import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.MetaDataAccessException;

/**
 * What differs between the databases durable calls run on: the schema script, the upsert that
 * replaces a call by key, and "the database's clock minus a duration", which every lease decision
 * uses so that instances' clocks never have to agree.
 */
enum DurableDialect {

	POSTGRESQL("postgresql") {

		@Override
		String before(Duration duration) {
			return "(CURRENT_TIMESTAMP - INTERVAL '" + duration.toMillis() + " milliseconds')";
		}

		@Override
		String upsertByKey(String table) {
			return "INSERT INTO " + table + " (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?)"
					+ " ON CONFLICT (method_id, call_key) DO UPDATE SET id = EXCLUDED.id, arguments = EXCLUDED.arguments,"
					+ " due_at = EXCLUDED.due_at, state = EXCLUDED.state, owner_id = EXCLUDED.owner_id, attempts = 0,"
					+ " trace_parent = EXCLUDED.trace_parent, created_at = CURRENT_TIMESTAMP";
		}

	},

	H2("h2") {

		@Override
		String before(Duration duration) {
			return "DATEADD(MILLISECOND, -" + duration.toMillis() + ", CURRENT_TIMESTAMP)";
		}

		@Override
		String upsertByKey(String table) {
			return "MERGE INTO " + table + " (" + COLUMNS + ", created_at) KEY (method_id, call_key)"
					+ " VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, CURRENT_TIMESTAMP)";
		}

	};

	/** The columns a new call sets, in the order {@link DurableCallStore} binds them. */
	static final String COLUMNS = "id, method_id, call_key, arguments, due_at, state, owner_id, attempts, trace_parent";

	private final String platform;

	DurableDialect(String platform) {
		this.platform = platform;
	}

	/** @return the name in the schema script's file name, {@code schema-<platform>.sql} */
	String platform() {
		return this.platform;
	}

	/** @return an SQL expression for the database's current time minus {@code duration} */
	abstract String before(Duration duration);

	/** @return an insert that replaces the pending call with the same method id and key */
	abstract String upsertByKey(String table);

	/**
	 * Finds the dialect of a database from its product name.
	 * @throws IllegalStateException naming the database if durable calls do not support it
	 */
	static DurableDialect of(DataSource dataSource) {
		String product;
		try {
			product = JdbcUtils.extractDatabaseMetaData(dataSource, DatabaseMetaData::getDatabaseProductName);
		}
		catch (MetaDataAccessException ex) {
			throw new IllegalStateException("Durable delayed calls cannot reach their database to find out what it"
					+ " is: " + ex.getMessage(), ex);
		}
		String name = (product != null) ? product.toLowerCase(Locale.ROOT) : "";
		if (name.contains("postgresql")) {
			return POSTGRESQL;
		}
		if (name.equals("h2")) {
			return H2;
		}
		throw new IllegalStateException("Durable delayed calls support PostgreSQL and H2; the DataSource is "
				+ product + ". Use one of those, or make the delayed methods in-memory (durable = false)");
	}

}
