package io.github.wheeltimer.durable.jdbc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.sql.init.DatabaseInitializationSettings;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.EncodedResource;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.jdbc.datasource.init.ScriptStatementFailedException;
import org.springframework.util.StreamUtils;

/**
 * Creates the durable calls' tables, and brings tables of an older version to this starter's, from
 * the dialect's migration scripts in this jar ({@code io/github/wheeltimer/durable/schema/<platform>/},
 * one per step, see {@link DurableSchema}), the way Spring Boot initializes the Quartz and Session
 * schemas: on embedded databases by default ({@code wheel-timer.durable.jdbc.initialize-schema}).
 * <p>
 * Only the steps the database lacks run, in order; tables at this version or a newer one are left
 * as they are. {@code always} is therefore safe on every start, by several instances at once too:
 * they take turns under the dialect's lock, and each reads the version again once it holds the lock,
 * so that the first runs the steps and the others find them done. A step adds only what is missing,
 * so that one cut short between two statements (a crash, a lost connection) completes at the next
 * start. A table prefix other than {@code WHEEL_TIMER_} is written into the scripts before they run.
 */
public final class DurableSchemaInitializer extends DataSourceScriptDatabaseInitializer {

	/** The prefix the scripts in the jar are written with. */
	public static final String SCRIPT_PREFIX = "WHEEL_TIMER_";

	private static final Log logger = LogFactory.getLog(DurableSchemaInitializer.class);

	private final DataSource dataSource;

	private final DurableDialect dialect;

	private final DurableTables tables;

	private final Duration lease;

	/**
	 * Creates the initializer.
	 * @param dataSource the application's database
	 * @param dialect what differs on it, the scripts among them
	 * @param mode when to run the scripts
	 * @param tablePrefix the prefix of the tables' names
	 * @param lease how long after its last heartbeat an instance counts as dead: an instance of an
	 * older starter within it keeps the index its claims use
	 */
	public DurableSchemaInitializer(DataSource dataSource, DurableDialect dialect, DatabaseInitializationMode mode,
			String tablePrefix, Duration lease) {
		super(dataSource, settings(dialect, mode));
		this.dataSource = dataSource;
		this.dialect = dialect;
		this.tables = DurableTables.withPrefix(tablePrefix);
		this.lease = lease;
	}

	/** Every step's script, so that Spring Boot finds them all, and says which one it cannot. */
	private static DatabaseInitializationSettings settings(DurableDialect dialect, DatabaseInitializationMode mode) {
		DatabaseInitializationSettings settings = new DatabaseInitializationSettings();
		settings.setSchemaLocations(
				DurableSchema.scripts(dialect, 1).stream().map((script) -> "classpath:" + script).toList());
		settings.setMode(mode);
		return settings;
	}

	/**
	 * Runs the steps the database lacks.
	 * @param scripts every step's script, in the order of the steps, as {@link #settings} lists them
	 */
	@Override
	protected void runScripts(Scripts scripts) {
		List<Resource> steps = new ArrayList<>();
		scripts.forEach(steps::add);
		// Up to date: no lock to wait for, as on almost every start.
		if (upToDate(new JdbcTemplate(this.dataSource))) {
			return;
		}
		// The lock and the steps on one connection: a session-level lock (if the dialect takes one),
		// released by the unlock or by the end of the session if this instance dies meanwhile. Each
		// statement commits before the unlock (a pool may hand out connections with auto-commit off),
		// so that the next instance finds the tables as this one left them.
		Connection connection = DataSourceUtils.getConnection(this.dataSource);
		try {
			boolean autoCommit = connection.getAutoCommit();
			connection.setAutoCommit(true);
			try {
				JdbcTemplate locked = new JdbcTemplate(new SingleConnectionDataSource(connection, true));
				this.dialect.lockSchema(locked, this.tables.prefix());
				try {
					// Again: another instance may have run the steps while this one waited for the lock.
					DurableSchema found = DurableSchema.read(locked, this.tables);
					if (!found.isCurrent()) {
						upgrade(connection, found, steps);
					}
					if (retiring(locked)) {
						retire(locked);
					}
				}
				finally {
					this.dialect.unlockSchema(locked, this.tables.prefix());
				}
			}
			finally {
				connection.setAutoCommit(autoCommit);
			}
		}
		catch (SQLException ex) {
			throw new DataAccessResourceFailureException(
					"Could not create or upgrade the durable calls' tables: " + ex.getMessage(), ex);
		}
		finally {
			DataSourceUtils.releaseConnection(connection, this.dataSource);
		}
	}

	/**
	 * Reads the tables without the lock. A read that fails proves nothing either way: another
	 * instance may be upgrading them under the lock (H2 then fails a read with an internal error
	 * as a step replaces a table), so the caller reads them again under it. A database that cannot
	 * be reached fails there, with its own error.
	 */
	private boolean upToDate(JdbcTemplate jdbc) {
		try {
			return DurableSchema.read(jdbc, this.tables).isCurrent() && !retiring(jdbc);
		}
		catch (DataAccessException ex) {
			logger.debug("Could not read the durable calls' tables without the lock; reading them under it", ex);
			return false;
		}
	}

	private void upgrade(Connection connection, DurableSchema found, List<Resource> steps) throws SQLException {
		List<String> ran = new ArrayList<>();
		for (int step = found.firstMissingStep(); step <= DurableSchema.CURRENT_VERSION; step++) {
			Resource script = steps.get(step - 1);
			apply(connection, script);
			ran.add(script.getFilename());
		}
		logger.info(((found.version() == 0) ? "Created the durable calls' tables at version "
				: "Upgraded the durable calls' tables from version " + found.version() + " to version ")
				+ DurableSchema.CURRENT_VERSION + " (" + String.join(", ", ran) + ")");
	}

	/** @return whether the index that a step replaced is still there ({@link DurableDialect#retiredIndex()}) */
	private boolean retiring(JdbcTemplate jdbc) {
		return this.dialect.retiredIndexExists(jdbc, this.tables.prefix());
	}

	/**
	 * Drops the retired index once no instance of a starter before version 3 runs (their rows in
	 * the instances' table have no version, and a heartbeat within the lease): until then, their
	 * claims read by it.
	 */
	private void retire(JdbcTemplate jdbc) {
		String index = this.tables.prefix() + this.dialect.retiredIndex();
		Integer older = jdbc.queryForObject("SELECT COUNT(*) FROM " + this.tables.instances()
				+ " WHERE tables_version IS NULL AND heartbeat_at > " + this.dialect.before(this.lease), Integer.class);
		if (older != null && older > 0) {
			logger.info("Kept " + index + ", the claim index of starters before version 3: " + older + " instance(s)"
					+ " of one still run. A start after they stopped drops it; until then, start gates move keys aside");
			return;
		}
		jdbc.execute(this.dialect.dropIndex(index));
		logger.info("Dropped " + index + ", the claim index of starters before version 3, as no instance of one runs:"
				+ " start gates now change no indexed column");
	}

	/** Runs one step's statements in order, each committed on its own. */
	private void apply(Connection connection, Resource script) throws SQLException {
		List<String> statements = statements(read(script).replace(SCRIPT_PREFIX, this.tables.prefix()));
		try (Statement statement = connection.createStatement()) {
			for (int i = 0; i < statements.size(); i++) {
				try {
					statement.execute(statements.get(i));
				}
				catch (SQLException ex) {
					if (!this.dialect.alreadyApplied(statements.get(i), ex)) {
						throw new ScriptStatementFailedException(statements.get(i), i + 1, new EncodedResource(script),
								ex);
					}
				}
			}
		}
	}

	private static String read(Resource script) {
		try {
			return StreamUtils.copyToString(script.getInputStream(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read " + script.getDescription(), ex);
		}
	}

	/**
	 * Splits one of the scripts into its statements: each ends with a semicolon at the end of a line,
	 * and {@code --} starts a comment to the end of its line. (Spring's {@code ScriptUtils} splits as
	 * well, but only inside its own execution, which stops at the first failure: here a statement
	 * that the dialect finds {@link DurableDialect#alreadyApplied already applied} must let the
	 * rest of its step run.) The scripts keep both marks out of their string literals.
	 */
	static List<String> statements(String script) {
		List<String> statements = new ArrayList<>();
		StringBuilder statement = new StringBuilder();
		for (String line : script.split("\\R")) {
			int comment = line.indexOf("--");
			String sql = ((comment >= 0) ? line.substring(0, comment) : line).strip();
			if (sql.isEmpty()) {
				continue;
			}
			if (!statement.isEmpty()) {
				statement.append('\n');
			}
			statement.append(sql);
			if (sql.endsWith(";")) {
				statements.add(statement.substring(0, statement.length() - 1));
				statement.setLength(0);
			}
		}
		if (!statement.isEmpty()) {
			statements.add(statement.toString());
		}
		return statements;
	}

}
