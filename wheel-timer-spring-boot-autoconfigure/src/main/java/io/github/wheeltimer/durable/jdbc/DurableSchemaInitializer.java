package io.github.wheeltimer.durable.jdbc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.sql.init.DatabaseInitializationSettings;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.core.io.Resource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.util.StreamUtils;

/**
 * Creates the durable calls' tables from the dialect's scripts in this jar
 * ({@code io/github/wheeltimer/durable/schema/<platform>/}, see {@link DurableSchema}), the way Spring Boot initializes the
 * Quartz and Session schemas: on embedded databases by default
 * ({@code wheel-timer.durable.jdbc.initialize-schema}). The scripts create only what is missing,
 * so {@code always} is safe on every start, by several instances at once too: where the database's
 * {@code CREATE ... IF NOT EXISTS} fails when another session creates the same table at the same
 * moment, the dialect's lock makes instances starting together take turns. A table prefix other
 * than {@code WHEEL_TIMER_} is written into the script before it runs.
 */
public final class DurableSchemaInitializer extends DataSourceScriptDatabaseInitializer {

	/** The prefix the scripts in the jar are written with. */
	public static final String SCRIPT_PREFIX = "WHEEL_TIMER_";

	private final String tablePrefix;

	private final DataSource dataSource;

	private final DurableDialect dialect;

	/**
	 * Creates the initializer.
	 * @param dataSource the application's database
	 * @param dialect what differs on it, the script among them
	 * @param mode when to run the script
	 * @param tablePrefix the prefix of the tables' names
	 */
	public DurableSchemaInitializer(DataSource dataSource, DurableDialect dialect, DatabaseInitializationMode mode,
			String tablePrefix) {
		super(dataSource, settings(dialect, mode));
		this.dataSource = dataSource;
		this.dialect = dialect;
		this.tablePrefix = tablePrefix;
	}

	private static DatabaseInitializationSettings settings(DurableDialect dialect, DatabaseInitializationMode mode) {
		DatabaseInitializationSettings settings = new DatabaseInitializationSettings();
		settings.setSchemaLocations(
				DurableSchema.scripts(dialect, 1).stream().map((script) -> "classpath:" + script).toList());
		settings.setMode(mode);
		return settings;
	}

	@Override
	protected void runScripts(Scripts scripts) {
		Scripts prefixed = prefixed(scripts);
		ResourceDatabasePopulator populator = new ResourceDatabasePopulator();
		prefixed.forEach(populator::addScript);
		populator.setContinueOnError(prefixed.isContinueOnError());
		populator.setSeparator(prefixed.getSeparator());
		if (prefixed.getEncoding() != null) {
			populator.setSqlScriptEncoding(prefixed.getEncoding().name());
		}
		customize(populator);
		// The lock and the script on one connection: a session-level lock (if the dialect takes one),
		// released by the unlock or by the end of the session if this instance dies meanwhile. Each statement commits before
		// the unlock (a pool may hand out connections with auto-commit off), so that the next
		// instance finds the tables.
		Connection connection = DataSourceUtils.getConnection(this.dataSource);
		try {
			boolean autoCommit = connection.getAutoCommit();
			connection.setAutoCommit(true);
			try {
				JdbcTemplate locking = new JdbcTemplate(new SingleConnectionDataSource(connection, true));
				this.dialect.lockSchema(locking, this.tablePrefix);
				try {
					populator.populate(connection);
				}
				finally {
					this.dialect.unlockSchema(locking, this.tablePrefix);
				}
			}
			finally {
				connection.setAutoCommit(autoCommit);
			}
		}
		catch (SQLException ex) {
			throw new DataAccessResourceFailureException("Could not create the durable calls' tables: " + ex.getMessage(),
					ex);
		}
		finally {
			DataSourceUtils.releaseConnection(connection, this.dataSource);
		}
	}

	private Scripts prefixed(Scripts scripts) {
		if (SCRIPT_PREFIX.equals(this.tablePrefix)) {
			return scripts;
		}
		List<Resource> prefixed = new ArrayList<>();
		for (Resource script : scripts) {
			try {
				String sql = StreamUtils.copyToString(script.getInputStream(), StandardCharsets.UTF_8);
				prefixed.add(new ByteArrayResource(sql.replace(SCRIPT_PREFIX, this.tablePrefix).getBytes(StandardCharsets.UTF_8),
						script.getDescription() + " with table prefix " + this.tablePrefix));
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
		return new Scripts(prefixed).continueOnError(scripts.isContinueOnError())
			.separator(scripts.getSeparator())
			.encoding(scripts.getEncoding());
	}

}
