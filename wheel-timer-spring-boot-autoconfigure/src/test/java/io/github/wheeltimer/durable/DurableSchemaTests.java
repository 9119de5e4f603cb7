package io.github.wheeltimer.durable;

import java.util.UUID;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * A database without the durable calls' tables fails startup with Spring Boot's report, saying
 * what is missing and how to create it, rather than with the first poll's SQL error.
 */
@ExtendWith(OutputCaptureExtension.class)
class DurableSchemaTests {

	@ParameterizedTest(name = "{0}")
	@CsvSource({ "PostgreSQL, postgresql", "MariaDB, mysql" })
	void aServerDatabaseLeftWithoutTheTablesFailsStartupSayingHowToCreateThem(String database, String script,
			CapturedOutput output) {
		// initialize-schema is "embedded" by default: a server gets no tables unless told.
		String url = database.equals("PostgreSQL") ? Postgres.newDatabase() : MariaDb.newDatabase("mariadb");
		assertThatException()
			.isThrownBy(() -> DurableApp.start(url, "wheel-timer.durable.jdbc.initialize-schema=embedded").close());
		assertThat(output).contains("APPLICATION FAILED TO START");
		// The report itself, not what the server or its driver logged while the check probed: the
		// embedded PostgreSQL logs each refused statement from a thread of its own, at any moment,
		// and MariaDB's driver logs each error it receives.
		String report = output.getOut()
			.substring(output.getOut().indexOf("APPLICATION FAILED TO START"))
			.lines()
			.filter((line) -> !line.contains("EmbeddedPostgres") && !line.contains("ErrorPacket"))
			.collect(Collectors.joining("\n"));
		assertThat(report)
			.contains("Durable delayed calls keep their calls in two tables of the application's database, and it"
					+ " lacks WHEEL_TIMER_CALL, WHEEL_TIMER_INSTANCE.")
			.contains("set wheel-timer.durable.jdbc.initialize-schema=always (it runs"
					+ " io/github/wheeltimer/durable/schema/" + script + "/V1__tables.sql from the wheel-timer-spring-boot-autoconfigure"
					+ " jar")
			.contains("With Flyway or Liquibase, copy that script into a migration")
			.doesNotContain("does not exist")
			.doesNotContain("doesn't exist");
	}

	@Test
	void tablesFromAnOlderScriptNameTheColumnsTheyLack(CapturedOutput output) {
		String url = "jdbc:h2:mem:schema-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
		JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(url, "postgres", ""));
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
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("and it lacks WHEEL_TIMER_CALL.trace_parent, WHEEL_TIMER_CALL.started_key,"
					+ " WHEEL_TIMER_CALL.failures, WHEEL_TIMER_CALL.retries, WHEEL_TIMER_CALL.retrying_since,"
					+ " WHEEL_TIMER_INSTANCE.methods.")
			.contains("io/github/wheeltimer/durable/schema/h2/V1__tables.sql");
	}

}
