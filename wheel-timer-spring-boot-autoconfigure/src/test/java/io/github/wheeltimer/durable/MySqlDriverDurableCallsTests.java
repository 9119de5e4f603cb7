package io.github.wheeltimer.durable;

import io.github.wheeltimer.durable.jdbc.DurableDialect;
import io.github.wheeltimer.durable.jdbc.MySqlDialect;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DurableCallsContractTests} on a real MariaDB 10.11 through MySQL's own driver,
 * {@code mysql-connector-j}, as an application on MySQL 8 connects: MySQL's server cannot be
 * installed in the build, so this is as close to it as the build gets. The driver reports MariaDB
 * as {@code MySQL} version {@code 5.5.5-10.11.5-MariaDB}, and sends no fraction of a second in a
 * bound {@code LocalDateTime} to a server it takes for older than 5.6.4: both are what the dialect's
 * text instants and version check are for.
 */
class MySqlDriverDurableCallsTests extends DurableCallsContractTests {

	@Override
	String newDatabase() {
		return MariaDb.newDatabase("mysql");
	}

	@Test
	void mySqlsDriverOnMariaDbIsFoundAsMySqlAndItsVersionAccepted() {
		ConfigurableApplicationContext app = start(newDatabase());
		DurableDialect dialect = app.getBean(DurableDialect.class);
		assertThat(dialect).isInstanceOf(MySqlDialect.class);
		assertThat(dialect.platform()).isEqualTo("mysql");
	}

}
