package io.github.wheeltimer.benchmarks.durable;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * One real PostgreSQL server for the whole run (the default {@link Database}), started from the
 * binaries in a Maven artifact (no service, no Docker), with a fresh database per system: no
 * system sees another's tables, rows or dead tuples, and none pays for another's vacuum.
 * <p>
 * {@code synchronous_commit} is put back to PostgreSQL's default, {@code on}: the embedded server
 * turns it off, which would make every commit free of the WAL flush a real database pays for.
 * <p>
 * Background work: PostgreSQL writes its dirty pages out every 5 minutes (a checkpoint), and
 * vacuums and analyzes a table some time after many of its rows changed (autovacuum). Either
 * landed on whichever system happened to be measured then, and doubled its scheduling cost; and
 * whether autovacuum had analyzed a table yet decided its query plans. Both are done between steps
 * instead ({@link #settle(String)}), outside of any measurement, for every system alike; the timed
 * checkpoints are put off past the run's end and autovacuum is off.
 */
final class Postgres implements Database {

	static final String USER = "postgres";

	private final EmbeddedPostgres server;

	/** The postmaster's process id: every backend and background worker is a child of it. */
	private final long postmasterPid;

	private Postgres(EmbeddedPostgres server, long postmasterPid) {
		this.server = server;
		this.postmasterPid = postmasterPid;
	}

	static Postgres start() throws IOException, SQLException {
		EmbeddedPostgres server = EmbeddedPostgres.builder()
			.setServerConfig("synchronous_commit", "on")
			.setServerConfig("checkpoint_timeout", "1h")
			.setServerConfig("autovacuum", "off")
			.start();
		try {
			return new Postgres(server, postmasterPid(server));
		}
		catch (IOException | SQLException | RuntimeException ex) {
			server.close();
			throw ex;
		}
	}

	/**
	 * The postmaster's id, from the first line of {@code postmaster.pid} in the server's data
	 * directory, which the server itself names. Not the process EmbeddedPostgres started
	 * ({@code getProcess()}): that is {@code pg_ctl}, gone once the server runs. Checked against
	 * the parent of a backend of ours, so that the CPU read is this server's.
	 */
	private static long postmasterPid(EmbeddedPostgres server) throws IOException, SQLException {
		try (Connection connection = server.getPostgresDatabase().getConnection();
				Statement statement = connection.createStatement()) {
			Path dataDirectory = Path.of(queryForString(statement, "SHOW data_directory"));
			long postmaster = Long
				.parseLong(Files.readAllLines(dataDirectory.resolve("postmaster.pid")).get(0).strip());
			// Read while the connection is open: its backend ends with it.
			long backend = Long.parseLong(queryForString(statement, "SELECT pg_backend_pid()"));
			long parent = ServerCpu.parentPid(backend);
			if (parent != postmaster) {
				throw new IllegalStateException("postmaster.pid in " + dataDirectory + " names process " + postmaster
						+ ", but our backend " + backend + " is a child of " + parent);
			}
			return postmaster;
		}
	}

	private static String queryForString(Statement statement, String sql) throws SQLException {
		try (ResultSet result = statement.executeQuery(sql)) {
			result.next();
			return result.getString(1);
		}
	}

	@Override
	public String id() {
		return POSTGRESQL;
	}

	@Override
	public String createDatabase(String name) throws SQLException {
		// A name, not input: the harness's own "bench_" + system.
		try (Connection connection = this.server.getPostgresDatabase().getConnection();
				Statement statement = connection.createStatement()) {
			statement.execute("DROP DATABASE IF EXISTS " + name);
			statement.execute("CREATE DATABASE " + name);
		}
		return url(name);
	}

	/**
	 * Vacuums and analyzes a system's database and writes every dirty page out, so that no step
	 * pays for the leftovers of an earlier one.
	 */
	@Override
	public void settle(String database) throws SQLException {
		try (Connection connection = this.server.getDatabase(USER, database).getConnection();
				Statement statement = connection.createStatement()) {
			statement.execute("VACUUM ANALYZE");
			statement.execute("CHECKPOINT");
		}
	}

	/** The server's own database, where the commit probe's scratch table is: mostly the WAL flush. */
	@Override
	public Connection probe() throws SQLException {
		return this.server.getPostgresDatabase().getConnection();
	}

	String url(String database) {
		return "jdbc:postgresql://localhost:" + this.server.getPort() + "/" + database;
	}

	/** One value of a query, such as a row count, outside of any system's counting. */
	static long queryForLong(DataSource dataSource, String sql) throws SQLException {
		try (Connection connection = dataSource.getConnection();
				Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery(sql)) {
			result.next();
			return result.getLong(1);
		}
	}

	@Override
	public String version() throws SQLException {
		try (Connection connection = this.server.getPostgresDatabase().getConnection()) {
			return "PostgreSQL " + connection.getMetaData().getDatabaseProductVersion();
		}
	}

	@Override
	public String settings() {
		return "embedded; synchronous_commit on";
	}

	@Override
	public String betweenSteps() {
		return "VACUUM ANALYZE and CHECKPOINT";
	}

	@Override
	public long serverPid() {
		return this.postmasterPid;
	}

	@Override
	public void close() throws IOException {
		this.server.close();
	}

}
