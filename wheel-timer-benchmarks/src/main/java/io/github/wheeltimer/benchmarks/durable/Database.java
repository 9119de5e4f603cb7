package io.github.wheeltimer.benchmarks.durable;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * The one server a run measures every system on, started by the harness itself: PostgreSQL
 * ({@code --database postgresql}, the default) or MariaDB ({@code --database mariadb}), with a
 * fresh database per system.
 * <p>
 * The systems see a JDBC URL and nothing else, as an application sees its
 * {@code spring.datasource.url}: the driver, the user, our dialect and db-scheduler's
 * {@code JdbcCustomization} all follow from it, so that a child JVM of the cluster harness, which
 * only gets the URL, sets itself up as the parent does.
 */
interface Database extends AutoCloseable {

	/** The default, so that a run without the option measures what the earlier runs did. */
	String POSTGRESQL = "postgresql";

	String MARIADB = "mariadb";

	/**
	 * Starts the server the run asked for.
	 * @param id {@code postgresql} or {@code mariadb}
	 */
	static Database start(String id) throws IOException, SQLException {
		return switch (id) {
			case POSTGRESQL -> Postgres.start();
			case MARIADB -> MariaDb.start();
			default -> throw new IllegalArgumentException(
					"Unknown database " + id + ", expected one of " + List.of(POSTGRESQL, MARIADB));
		};
	}

	/** The value of {@code --database}, PostgreSQL without it. */
	static String argument(String[] args) {
		for (int i = 0; i < args.length - 1; i++) {
			if (args[i].equals("--database")) {
				return args[i + 1];
			}
		}
		return POSTGRESQL;
	}

	/** {@code postgresql} or {@code mariadb}: the platform's name, as Spring Boot and our dialects call it. */
	String id();

	/**
	 * Creates a new, empty database and returns its JDBC URL.
	 * @param name the harness's own name for it, not input
	 */
	String createDatabase(String name) throws SQLException;

	/**
	 * The server's tidying-up after an earlier step, done between steps for every system alike, so
	 * that none lands on a measurement; and fresh statistics for the planner.
	 * @param database a name {@link #createDatabase} was given
	 */
	void settle(String database) throws SQLException;

	/**
	 * The mean time of a one-row insert in autocommit, in µs, over a scratch table outside of the
	 * systems' databases: mostly the log flush of its commit, the disk's share of every figure.
	 * Measured before and after each system's turn; on a disk that other work shares, it moves.
	 */
	default double commitMicros() throws SQLException {
		int inserts = 200;
		try (Connection connection = probe(); Statement statement = connection.createStatement()) {
			statement.execute("CREATE TABLE IF NOT EXISTS commit_probe (id INT)");
			long start = System.nanoTime();
			for (int i = 0; i < inserts; i++) {
				statement.execute("INSERT INTO commit_probe VALUES (1)");
			}
			double micros = (System.nanoTime() - start) / 1e3 / inserts;
			statement.execute("TRUNCATE commit_probe");
			return micros;
		}
	}

	/** A connection, in autocommit, to a database of the server's own that no system uses. */
	Connection probe() throws SQLException;

	/** The product and its version, such as {@code MariaDB 10.11.5}. */
	String version() throws SQLException;

	/** What the report says of the server's settings. */
	String settings();

	/** What the report says {@link #settle} does. */
	String betweenSteps();

	/**
	 * The server's process, whose CPU time {@link ServerCpu} reads with that of its children:
	 * MariaDB's {@code mariadbd}, PostgreSQL's postmaster (its backends and background workers are
	 * its children). By id, as a test build on the same machine runs servers of the same names.
	 */
	long serverPid();

	@Override
	void close() throws IOException;

	/** Whether a URL is MariaDB's: its driver's scheme. */
	static boolean isMariaDb(String url) {
		return url.startsWith("jdbc:mariadb:");
	}

	/** The user every connection of a run logs in as: each server's superuser, with no password. */
	static String user(String url) {
		return isMariaDb(url) ? MariaDb.USER : Postgres.USER;
	}

	/** A pool like Spring Boot's default one (HikariCP, 10 connections), for a system that builds its own. */
	static HikariDataSource pool(String url, String name) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setUsername(user(url));
		config.setPoolName(name);
		return new HikariDataSource(config);
	}

}
