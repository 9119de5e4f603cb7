package io.github.wheeltimer.durable.jdbc;

import java.sql.SQLException;
import java.time.Instant;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * What {@link MySqlDialect} decides without a server: which versions it accepts, as either driver
 * reports them, and how it writes an instant. The SQL itself runs on a real MariaDB in the durable
 * tests.
 */
class MySqlDialectTests {

	private final MySqlDialect dialect = new MySqlDialect();

	@ParameterizedTest(name = "{0} {1}")
	@CsvSource({ "MySQL, 8.0.36", "MySQL, 8.4.3", "MySQL, 9.1.0", "MariaDB, 10.6.19-MariaDB",
			"MariaDB, 10.11.5-MariaDB", "MariaDB, 11.4.2-MariaDB-ubu2404",
			// MariaDB through MySQL's driver, which reports the old protocol's prefix first.
			"MySQL, 5.5.5-10.11.5-MariaDB", "MySQL, 5.5.5-10.6.0-MariaDB-log" })
	void acceptsMySql8AndMariaDb106AndLater(String product, String version) {
		assertThatNoException().isThrownBy(() -> this.dialect.requireVersion(product, version));
	}

	@ParameterizedTest(name = "{0} {1}")
	@CsvSource({ "MySQL, 5.7.44, MySQL 8.0, MySQL 5.7.44", "MySQL, 5.6.51-log, MySQL 8.0, MySQL 5.6.51-log",
			"MariaDB, 10.5.27-MariaDB, MariaDB 10.6, MariaDB 10.5.27-MariaDB",
			"MySQL, 5.5.5-10.4.34-MariaDB, MariaDB 10.6, MariaDB 5.5.5-10.4.34-MariaDB" })
	void refusesAnOlderServerNamingItsVersionAndWhatIsNeeded(String product, String version, String needed,
			String found) {
		assertThatIllegalStateException().isThrownBy(() -> this.dialect.requireVersion(product, version))
			.withMessageContaining("need " + needed + " or later")
			.withMessageContaining("SKIP LOCKED")
			.withMessageContaining("the DataSource is " + found);
	}

	@Test
	void writesAnInstantInUtcRoundedUpToTheMicrosecondSoThatNoCallIsDueEarly() {
		assertThat(this.dialect.instant(Instant.parse("2026-03-01T04:05:06.123456789Z")))
			.isEqualTo("2026-03-01 04:05:06.123457");
		assertThat(this.dialect.instant(Instant.parse("2026-03-01T04:05:06.123456Z")))
			.isEqualTo("2026-03-01 04:05:06.123456");
		assertThat(this.dialect.instant(Instant.parse("2026-12-31T23:59:59.999999001Z")))
			.isEqualTo("2027-01-01 00:00:00.000000");
	}

	@Test
	void takesAColumnAddedBeforeAsAnAddColumnAlreadyAppliedAndNothingElse() {
		String add = "ALTER TABLE WHEEL_TIMER_CALL ADD COLUMN shape VARCHAR(16) NOT NULL DEFAULT ''";
		assertThat(this.dialect.alreadyApplied(add, new SQLException("Duplicate column name 'shape'", "42S21", 1060)))
			.isTrue();
		assertThat(this.dialect.alreadyApplied(add, new SQLException("Table 'db.WHEEL_TIMER_CALL' doesn't exist",
				"42S02", 1146)))
			.isFalse();
		assertThat(this.dialect.alreadyApplied("CREATE TABLE T (a INTEGER, a INTEGER)",
				new SQLException("Duplicate column name 'a'", "42S21", 1060)))
			.isFalse();
	}

	@Test
	void isFoundUnderBothNamesAndSharesOneScript() {
		assertThat(DurableDialects.forPlatform("MySQL")).isInstanceOf(MySqlDialect.class)
			.extracting(DurableDialect::platform)
			.isEqualTo("mysql");
		assertThat(DurableDialects.forPlatform("mariadb")).isInstanceOf(MySqlDialect.class)
			.extracting(DurableDialect::platform)
			.isEqualTo("mariadb");
		assertThat(MySqlDialect.mariaDb().schemaFolder()).isEqualTo(this.dialect.schemaFolder())
			.isEqualTo("io/github/wheeltimer/durable/schema/mysql");
	}

}
