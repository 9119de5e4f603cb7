package io.github.wheeltimer.durable;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

import io.github.wheeltimer.durable.jdbc.DurableDialect;
import io.github.wheeltimer.durable.jdbc.H2Dialect;
import io.github.wheeltimer.durable.jdbc.MySqlDialect;
import io.github.wheeltimer.durable.jdbc.PostgresDialect;

import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * What the durable tests need to know of a database from its URL alone: whom to connect as, and
 * how to bind ids and instants in the tests' own SQL (the dialect's way, as the repositories do).
 * The tests' own tables keep instants as epoch microseconds, the same on every database and in
 * every time zone.
 */
final class TestDatabases {

	private TestDatabases() {
	}

	/** @return the user the tests connect as */
	static String user(String url) {
		return mySql(url) ? "root" : "postgres";
	}

	/** @return a data source that opens a connection per statement, as the test's own view */
	static DriverManagerDataSource dataSource(String url) {
		return new DriverManagerDataSource(url, user(url), "");
	}

	/** @return the dialect the starter finds for the URL's database */
	static DurableDialect dialect(String url) {
		if (url.startsWith("jdbc:postgresql:")) {
			return new PostgresDialect();
		}
		if (url.startsWith("jdbc:h2:")) {
			return new H2Dialect();
		}
		if (url.startsWith("jdbc:mariadb:")) {
			return MySqlDialect.mariaDb();
		}
		if (url.startsWith("jdbc:mysql:")) {
			return new MySqlDialect();
		}
		throw new IllegalArgumentException("No test database at " + url);
	}

	private static boolean mySql(String url) {
		return url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:");
	}

	/** @return a port no one listens on now, for a server of the tests' own */
	static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	/** @return an instant as the tests' tables keep it */
	static long micros(Instant instant) {
		return ChronoUnit.MICROS.between(Instant.EPOCH, instant);
	}

	/** @return an instant the tests' tables kept */
	static Instant instant(Object micros) {
		return Instant.EPOCH.plus(((Number) micros).longValue(), ChronoUnit.MICROS);
	}

}
