package io.github.wheeltimer.durable;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.wheeltimer.durable.jdbc.DurableSchemaInitializer;
import io.github.wheeltimer.durable.jdbc.DurableTables;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.awaitility.Awaitility.await;

/**
 * {@code initialize-schema=always} brings tables of version 1 (what the starters before versions
 * created) to the current version in place, keeping their calls: once, whatever the number of instances
 * starting together, and completing a step that an earlier start cut short.
 */
class DurableSchemaUpgradeTests {

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "H2", "PostgreSQL", "MariaDB", "MySQL's driver" })
	void aVersion1DatabaseIsUpgradedInPlaceAndTheCallsItHeldRun(String database) {
		String url = DurableSchemaTests.newDatabase(database);
		JdbcTemplate jdbc = Version1Database.create(url);
		Instant past = Instant.now().minusSeconds(1);
		Version1Database.insertPendingCall(jdbc, url, "orders.far", null, "[\"v1-1\",null]", past);
		Version1Database.insertPendingCall(jdbc, url, "orders.far", null, "[\"v1-2\",null]", past);
		Version1Database.insertPendingCall(jdbc, url, "orders.remind", "v1-3", "[{\"id\":\"v1-3\",\"cents\":250}]",
				Instant.now().plus(Duration.ofMinutes(30)));
		try (ConfigurableApplicationContext app = DurableApp.start(url)) {
			assertThat(Version1Database.version(jdbc, "WHEEL_TIMER_")).isEqualTo(3);
			assertThat(Version1Database.versionRows(jdbc, "WHEEL_TIMER_")).containsExactly(2, 3);
			// On real time: version 1 wrote these rows by the wall clock, before this instance started.
			await().atMost(Duration.ofSeconds(20))
				.untilAsserted(() -> assertThat(jdbc.queryForList("SELECT call_id FROM test_run WHERE method = 'far'",
						String.class))
					.containsExactlyInAnyOrder("v1-1", "v1-2"));
			if (database.equals("PostgreSQL")) {
				assertThat(jdbc.queryForList("SELECT indexname FROM pg_indexes WHERE tablename = 'wheel_timer_call'",
						String.class))
					.as("the claim's index of version 3 in place of version 1's, as no older starter runs")
					.contains("wheel_timer_call_pending")
					.doesNotContain("wheel_timer_call_due");
			}
			// The call not due yet waits on, written before version 2: no argument shape.
			assertThat(jdbc.queryForList("SELECT method_id, shape FROM WHEEL_TIMER_CALL")).singleElement()
				.satisfies((call) -> {
					assertThat(call.get("method_id")).isEqualTo("orders.remind");
					assertThat(call.get("shape")).isEqualTo("");
				});
		}
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "H2", "PostgreSQL", "MariaDB" })
	void instancesStartingTogetherOnAVersion1DatabaseUpgradeItOnce(String database) throws Exception {
		String url = DurableSchemaTests.newDatabase(database);
		JdbcTemplate jdbc = Version1Database.create(url);
		int instances = 3;
		ExecutorService starting = Executors.newFixedThreadPool(instances);
		try {
			CyclicBarrier together = new CyclicBarrier(instances);
			List<Future<Boolean>> initialized = new ArrayList<>();
			for (int i = 0; i < instances; i++) {
				initialized.add(starting.submit(() -> {
					DurableSchemaInitializer initializer = initializer(url, "WHEEL_TIMER_");
					together.await(10, TimeUnit.SECONDS);
					return initializer.initializeDatabase();
				}));
			}
			for (Future<Boolean> outcome : initialized) {
				assertThat(outcome.get(90, TimeUnit.SECONDS)).isTrue();
			}
		}
		finally {
			starting.shutdownNow();
		}
		assertThat(Version1Database.version(jdbc, "WHEEL_TIMER_")).isEqualTo(3);
		assertThat(Version1Database.versionRows(jdbc, "WHEEL_TIMER_")).containsExactly(2, 3);
		assertThatNoException().isThrownBy(() -> DurableTables.withPrefix("WHEEL_TIMER_")
			.requireSchema(jdbc, TestDatabases.dialect(url)));
	}

	@Test
	void aReadThatFailsWhileAnotherInstanceUpgradesTheTablesIsMadeAgainUnderTheLock() {
		String url = DurableSchemaTests.newDatabase("H2");
		JdbcTemplate jdbc = Version1Database.create(url);
		// The first connection's statements fail as H2's do when another session's step replaces
		// the table being read: an internal error, not a missing table.
		AtomicInteger connections = new AtomicInteger();
		DriverManagerDataSource dataSource = new DriverManagerDataSource(url, "postgres", "") {

			@Override
			public Connection getConnection() throws SQLException {
				Connection connection = super.getConnection();
				return (connections.getAndIncrement() == 0) ? failingStatements(connection) : connection;
			}

		};
		DurableSchemaInitializer initializer = new DurableSchemaInitializer(dataSource, TestDatabases.dialect(url),
				DatabaseInitializationMode.ALWAYS, "WHEEL_TIMER_", Duration.ofSeconds(30));

		assertThat(initializer.initializeDatabase()).isTrue();

		assertThat(connections).hasValueGreaterThan(1);
		assertThat(Version1Database.version(jdbc, "WHEEL_TIMER_")).isEqualTo(3);
		assertThat(Version1Database.versionRows(jdbc, "WHEEL_TIMER_")).containsExactly(2, 3);
	}

	private static Connection failingStatements(Connection connection) {
		return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
				new Class<?>[] { Connection.class }, (proxy, method, args) -> {
					if (method.getName().equals("createStatement") || method.getName().equals("prepareStatement")) {
						throw new SQLException("General error: \"java.lang.NullPointerException\"", "HY000", 50000);
					}
					try {
						return method.invoke(connection, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				});
	}

	@ParameterizedTest(name = "{0}'s driver, cut after {1} statement(s)")
	@CsvSource({ "mariadb, 1", "mysql, 2" })
	void aMySqlStepCutShortBeforeItsVersionRowCompletesAtTheNextStart(String driver, int done) {
		String url = MariaDb.newDatabase(driver);
		JdbcTemplate jdbc = Version1Database.create(url);
		// What V2__argument_shapes.sql left when its instance died after its first ALTER TABLE, or
		// after both: MySQL commits each one on its own, and has no ADD COLUMN IF NOT EXISTS.
		List<String> step = List.of(
				"ALTER TABLE WHEEL_TIMER_CALL ADD COLUMN shape VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin"
						+ " NOT NULL DEFAULT ''",
				"ALTER TABLE WHEEL_TIMER_INSTANCE ADD COLUMN shapes MEDIUMTEXT NULL");
		step.subList(0, done).forEach(jdbc::execute);
		assertThat(Version1Database.version(jdbc, "WHEEL_TIMER_")).isEqualTo(1);

		assertThat(initializer(url, "WHEEL_TIMER_").initializeDatabase()).isTrue();

		assertThat(Version1Database.version(jdbc, "WHEEL_TIMER_")).isEqualTo(3);
		assertThat(Version1Database.versionRows(jdbc, "WHEEL_TIMER_")).containsExactly(2, 3);
		assertThatNoException().isThrownBy(() -> DurableTables.withPrefix("WHEEL_TIMER_")
			.requireSchema(jdbc, TestDatabases.dialect(url)));
	}

	@Test
	void tablesUnderAPrefixOfTheirOwnAreUpgradedUnderIt() {
		String url = DurableSchemaTests.newDatabase("H2");
		JdbcTemplate jdbc = Version1Database.create(url, "SHOP_");

		assertThat(initializer(url, "SHOP_").initializeDatabase()).isTrue();

		assertThat(Version1Database.version(jdbc, "SHOP_")).isEqualTo(3);
		assertThat(Version1Database.versionRows(jdbc, "SHOP_")).containsExactly(2, 3);
		assertThat(jdbc.queryForList("SELECT shape FROM SHOP_CALL")).isEmpty();
		assertThat(Version1Database.version(jdbc, "WHEEL_TIMER_")).as("no table under the default prefix").isZero();
	}

	@Test
	void tablesAtTheCurrentVersionAreLeftAsTheyAre() {
		String url = DurableSchemaTests.newDatabase("H2");
		JdbcTemplate jdbc = Version1Database.create(url);
		initializer(url, "WHEEL_TIMER_").initializeDatabase();
		jdbc.update("UPDATE WHEEL_TIMER_SCHEMA_VERSION SET description = 'seen'");

		initializer(url, "WHEEL_TIMER_").initializeDatabase();

		assertThat(jdbc.queryForList("SELECT description FROM WHEEL_TIMER_SCHEMA_VERSION", String.class))
			.containsExactly("seen", "seen");
	}

	private static DurableSchemaInitializer initializer(String url, String prefix) {
		return new DurableSchemaInitializer(TestDatabases.dataSource(url), TestDatabases.dialect(url),
				DatabaseInitializationMode.ALWAYS, prefix, Duration.ofSeconds(30));
	}

}
