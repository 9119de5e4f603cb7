package io.github.wheeltimer.durable;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import io.github.wheeltimer.durable.jdbc.DurableDialect;
import io.github.wheeltimer.durable.jdbc.DurableSchema;
import io.github.wheeltimer.durable.jdbc.DurableTables;

import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.init.ScriptUtils;
import org.springframework.util.StreamUtils;

/**
 * A database as the starters before versions left it: the tables of its platform's
 * {@code V1__tables.sql}, run as Spring runs a script, and calls written as those starters wrote
 * them, with the columns of version 1.
 */
final class Version1Database {

	private Version1Database() {
	}

	/**
	 * Creates the tables of version 1 in a new, empty database.
	 * @param url the database
	 * @param prefix the tables' prefix
	 * @return statements on it
	 */
	static JdbcTemplate create(String url, String prefix) {
		DriverManagerDataSource dataSource = TestDatabases.dataSource(url);
		String script = DurableSchema.scripts(TestDatabases.dialect(url), 1).get(0);
		try (Connection connection = dataSource.getConnection()) {
			String sql = StreamUtils.copyToString(new ClassPathResource(script).getInputStream(), StandardCharsets.UTF_8);
			ScriptUtils.executeSqlScript(connection,
					new ByteArrayResource(sql.replace("WHEEL_TIMER_", prefix).getBytes(StandardCharsets.UTF_8)));
		}
		catch (SQLException | IOException ex) {
			throw new IllegalStateException("Could not create the tables of version 1 at " + url, ex);
		}
		return new JdbcTemplate(dataSource);
	}

	/** Creates the tables of version 1, with the default prefix. */
	static JdbcTemplate create(String url) {
		return create(url, "WHEEL_TIMER_");
	}

	/**
	 * Writes a pending call as a starter of version 1 did.
	 * @return its id
	 */
	static UUID insertPendingCall(JdbcTemplate jdbc, String url, String methodId, String key, String arguments,
			Instant due) {
		DurableDialect dialect = TestDatabases.dialect(url);
		UUID id = UUID.randomUUID();
		jdbc.update("INSERT INTO WHEEL_TIMER_CALL (id, method_id, call_key, arguments, due_at, state, owner_id,"
				+ " attempts, trace_parent, created_at, failures, retries, retrying_since, finished_at, last_error)"
				+ " VALUES (?, ?, ?, ?, ?, 'PENDING', NULL, 0, NULL, " + dialect.now() + ", 0, 0, NULL, NULL, NULL)",
				dialect.id(id), methodId, key, arguments, dialect.instant(due));
		return id;
	}

	/** @return the version the database has now */
	static int version(JdbcTemplate jdbc, String prefix) {
		return DurableSchema.read(jdbc, DurableTables.withPrefix(prefix)).version();
	}

	/** @return the versions its version table records, in order */
	static List<Integer> versionRows(JdbcTemplate jdbc, String prefix) {
		return jdbc.queryForList("SELECT version FROM " + prefix + "SCHEMA_VERSION ORDER BY version", Integer.class);
	}

}
