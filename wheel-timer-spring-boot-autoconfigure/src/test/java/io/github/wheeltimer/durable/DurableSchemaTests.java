package io.github.wheeltimer.durable;

import java.time.Duration;
import java.util.UUID;
import java.util.stream.Collectors;

import io.github.wheeltimer.VirtualTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * A database whose durable calls' tables are missing, or older than this starter needs, fails
 * startup with Spring Boot's report, saying what it has and which of the starter's scripts to run,
 * rather than with the first poll's SQL error; tables of a newer version serve as they are.
 */
@ExtendWith(OutputCaptureExtension.class)
class DurableSchemaTests {

	private static final String SCRIPTS = "io/github/wheeltimer/durable/schema/";

	/** {@link DurableApp}'s tick. */
	private static final Duration TICK = Duration.ofMillis(10);

	/** {@link DurableApp.Orders#burst}'s delay: beyond the horizon, so a poll of the new tables claims it. */
	private static final Duration BURST_DELAY = Duration.ofMillis(1500);

	@ParameterizedTest(name = "{0}")
	@CsvSource({ "PostgreSQL, postgresql", "MariaDB, mysql" })
	void aServerDatabaseLeftWithoutTheTablesFailsStartupNamingEveryScriptThatCreatesThem(String database,
			String platform, CapturedOutput output) {
		// initialize-schema is "embedded" by default: a server gets no tables unless told.
		String url = newDatabase(database);
		assertThatException()
			.isThrownBy(() -> DurableApp.start(url, "wheel-timer.durable.jdbc.initialize-schema=embedded").close());
		assertThat(report(output))
			.contains("Durable delayed calls keep their calls in tables of the application's database, and it"
					+ " lacks WHEEL_TIMER_CALL, WHEEL_TIMER_INSTANCE.")
			.contains("Run the migration scripts " + SCRIPTS + platform + "/V1__tables.sql, " + SCRIPTS + platform
					+ "/V2__argument_shapes.sql, " + SCRIPTS + platform + "/V3__gate_in_place.sql from the"
					+ " wheel-timer-spring-boot-autoconfigure jar, in this order, or"
					+ " let the starter run them at startup: set wheel-timer.durable.jdbc.initialize-schema=always")
			.contains("With Flyway or Liquibase, copy each script into a migration of your own, as your next version")
			.doesNotContain("does not exist")
			.doesNotContain("doesn't exist");
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource({ "H2, h2", "PostgreSQL, postgresql", "MariaDB, mysql" })
	void aVersion1DatabaseLeftAsItIsFailsStartupNamingBothVersionsAndTheScriptOfTheStep(String database,
			String platform, CapturedOutput output) {
		String url = newDatabase(database);
		Version1Database.create(url);
		assertThatException()
			.isThrownBy(() -> DurableApp.start(url, "wheel-timer.durable.jdbc.initialize-schema=never").close());
		assertThat(report(output))
			.contains("Durable delayed calls need version 3 of their tables, and the application's database has"
					+ " version 1, which lacks WHEEL_TIMER_CALL.shape, WHEEL_TIMER_INSTANCE.shapes,"
					+ " WHEEL_TIMER_INSTANCE.tables_version.")
			.contains("Run the migration scripts " + SCRIPTS + platform + "/V2__argument_shapes.sql, " + SCRIPTS
					+ platform + "/V3__gate_in_place.sql from the wheel-timer-spring-boot-autoconfigure jar, in this"
					+ " order, or let the starter run them at startup: set"
					+ " wheel-timer.durable.jdbc.initialize-schema=always");
	}

	@Test
	void tablesFromAnOlderCopyOfTheFirstScriptNameTheColumnsTheyLackAndEveryStep(CapturedOutput output) {
		String url = newDatabase("H2");
		JdbcTemplate jdbc = new JdbcTemplate(TestDatabases.dataSource(url));
		// A migration copied from the first version of the script.
		jdbc.execute("CREATE TABLE WHEEL_TIMER_CALL (id UUID PRIMARY KEY, method_id VARCHAR(200) NOT NULL,"
				+ " call_key VARCHAR(500), arguments CHARACTER VARYING NOT NULL, due_at TIMESTAMP WITH TIME ZONE NOT NULL,"
				+ " state VARCHAR(8) NOT NULL, owner_id UUID, attempts INTEGER DEFAULT 0 NOT NULL, created_at TIMESTAMP"
				+ " WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP NOT NULL, finished_at TIMESTAMP WITH TIME ZONE,"
				+ " last_error VARCHAR(4000))");
		jdbc.execute("CREATE TABLE WHEEL_TIMER_INSTANCE (id UUID PRIMARY KEY, name VARCHAR(200) NOT NULL, started_at"
				+ " TIMESTAMP WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP NOT NULL, heartbeat_at TIMESTAMP WITH TIME ZONE"
				+ " NOT NULL)");
		assertThatException()
			.isThrownBy(() -> DurableApp.start(url, "wheel-timer.durable.jdbc.initialize-schema=never").close());
		// The first step adds what the earlier copies lack, on H2 and PostgreSQL.
		assertThat(report(output))
			.contains("has version 1, which lacks WHEEL_TIMER_CALL.trace_parent, WHEEL_TIMER_CALL.started_key,"
					+ " WHEEL_TIMER_CALL.failures, WHEEL_TIMER_CALL.retries, WHEEL_TIMER_CALL.retrying_since,"
					+ " WHEEL_TIMER_CALL.shape, WHEEL_TIMER_INSTANCE.methods, WHEEL_TIMER_INSTANCE.shapes,"
					+ " WHEEL_TIMER_INSTANCE.tables_version.")
			.contains("Run the migration scripts " + SCRIPTS + "h2/V1__tables.sql, " + SCRIPTS
					+ "h2/V2__argument_shapes.sql, " + SCRIPTS + "h2/V3__gate_in_place.sql from");
	}

	@Test
	void aVersionRowWithoutItsColumnsNamesTheColumnsAndTheStepThatAddsThem(CapturedOutput output) {
		String url = newDatabase("H2");
		JdbcTemplate jdbc = Version1Database.create(url);
		// Version 3 recorded by hand, the columns of versions 2 and 3 never added.
		jdbc.execute("CREATE TABLE WHEEL_TIMER_SCHEMA_VERSION (version INTEGER PRIMARY KEY, description VARCHAR(200))");
		jdbc.update("INSERT INTO WHEEL_TIMER_SCHEMA_VERSION (version, description) VALUES (3, 'gate in place')");
		assertThatException()
			.isThrownBy(() -> DurableApp.start(url, "wheel-timer.durable.jdbc.initialize-schema=never").close());
		assertThat(report(output))
			.contains("The application's database records version 3 of the durable calls' tables, yet it lacks"
					+ " WHEEL_TIMER_CALL.shape, WHEEL_TIMER_INSTANCE.shapes, WHEEL_TIMER_INSTANCE.tables_version.")
			.contains("Run the migration scripts " + SCRIPTS + "h2/V2__argument_shapes.sql, " + SCRIPTS
					+ "h2/V3__gate_in_place.sql from");
	}

	@Test
	void tablesOfANewerVersionServeAsTheyAreWithOneLineSayingSo(CapturedOutput output) {
		String url = newDatabase("H2");
		DurableApp.start(url).close();
		JdbcTemplate jdbc = new JdbcTemplate(TestDatabases.dataSource(url));
		// A newer starter's step: it added what this one does not use.
		jdbc.execute("ALTER TABLE WHEEL_TIMER_CALL ADD COLUMN priority INTEGER DEFAULT 0 NOT NULL");
		jdbc.update("INSERT INTO WHEEL_TIMER_SCHEMA_VERSION (version, description) VALUES (4, 'priorities')");
		try (ConfigurableApplicationContext app = DurableApp.start(new Class<?>[] { VirtualTime.class }, url)) {
			app.getBean(DurableApp.Orders.class).burst("on-version-4");
			VirtualTime.advance(app, BURST_DELAY.minus(TICK));
			assertThat(jdbc.queryForList("SELECT call_id FROM test_run", String.class)).as("never before its delay")
				.isEmpty();
			VirtualTime.advance(app, TICK);
			assertThat(jdbc.queryForList("SELECT call_id FROM test_run", String.class)).containsExactly("on-version-4");
		}
		assertThat(output).containsOnlyOnce("The durable calls' tables are at version 4; this starter needs version 3"
				+ " and uses them as they are (a newer starter upgraded them)");
		assertThat(Version1Database.versionRows(jdbc, "WHEEL_TIMER_")).containsExactly(2, 3, 4);
	}

	/**
	 * @return a new, empty database: {@code H2}, {@code PostgreSQL}, {@code MariaDB}, or MariaDB
	 * through {@code MySQL's driver}
	 */
	static String newDatabase(String database) {
		return switch (database) {
			case "H2" -> "jdbc:h2:mem:schema-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
			case "PostgreSQL" -> Postgres.newDatabase();
			case "MariaDB" -> MariaDb.newDatabase("mariadb");
			case "MySQL's driver" -> MariaDb.newDatabase("mysql");
			default -> throw new IllegalArgumentException(database);
		};
	}


	/**
	 * The report itself, not what the server or its driver logged while the check probed: the
	 * embedded PostgreSQL logs each refused statement from a thread of its own, at any moment, and
	 * MariaDB's driver logs each error it receives.
	 */
	private static String report(CapturedOutput output) {
		assertThat(output).contains("APPLICATION FAILED TO START");
		return output.getOut()
			.substring(output.getOut().indexOf("APPLICATION FAILED TO START"))
			.lines()
			.filter((line) -> !line.contains("EmbeddedPostgres") && !line.contains("ErrorPacket"))
			.collect(Collectors.joining("\n"));
	}

}
