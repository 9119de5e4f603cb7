package io.github.wheeltimer.durable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.sql.init.DatabaseInitializationSettings;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.Resource;
import org.springframework.util.StreamUtils;

/**
 * Creates the durable calls' tables from the script in this jar for the database
 * ({@code io/github/wheeltimer/durable/schema-postgresql.sql} or {@code schema-h2.sql}), the way
 * Spring Boot initializes the Quartz and Session schemas: on embedded databases by default
 * ({@code wheel-timer.durable.jdbc.initialize-schema}). The scripts create only what is missing,
 * so {@code always} is safe on every start. A table prefix other than {@code WHEEL_TIMER_} is
 * written into the script before it runs.
 */
public final class DurableSchemaInitializer extends DataSourceScriptDatabaseInitializer {

	/** The prefix the scripts in the jar are written with. */
	public static final String SCRIPT_PREFIX = "WHEEL_TIMER_";

	private final String tablePrefix;

	/**
	 * Creates the initializer.
	 * @param dataSource the application's database
	 * @param mode when to run the script
	 * @param tablePrefix the prefix of the tables' names
	 */
	public DurableSchemaInitializer(DataSource dataSource, DatabaseInitializationMode mode, String tablePrefix) {
		super(dataSource, settings(DurableDialect.of(dataSource), mode));
		this.tablePrefix = tablePrefix;
	}

	/**
	 * Returns where the script for a database is.
	 * @param dataSource the database
	 * @return the script's location on the class path
	 */
	public static String scriptLocation(DataSource dataSource) {
		return "classpath:io/github/wheeltimer/durable/schema-" + DurableDialect.of(dataSource).platform() + ".sql";
	}

	private static DatabaseInitializationSettings settings(DurableDialect dialect, DatabaseInitializationMode mode) {
		DatabaseInitializationSettings settings = new DatabaseInitializationSettings();
		settings.setSchemaLocations(List.of("classpath:io/github/wheeltimer/durable/schema-" + dialect.platform() + ".sql"));
		settings.setMode(mode);
		return settings;
	}

	@Override
	protected void runScripts(Scripts scripts) {
		if (SCRIPT_PREFIX.equals(this.tablePrefix)) {
			super.runScripts(scripts);
			return;
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
		super.runScripts(new Scripts(prefixed).continueOnError(scripts.isContinueOnError())
			.separator(scripts.getSeparator())
			.encoding(scripts.getEncoding()));
	}

}
