package io.github.wheeltimer.durable;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.spi.ToolProvider;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * The command that starts a test's application in a JVM of its own (the cluster's instances, the
 * crashing one): the test JVM's class path, and a class-data archive (AppCDS) of what such an
 * application loads, so that each start takes about half the CPU (3.9 s against 2.1 s on the
 * 2-core machine, for some sixty starts in a build).
 * <p>
 * The archive is made once per test JVM, at its first child: JDK 17 archives classes from jars
 * only, so the module's class directories go in jars first; then one JVM starts
 * {@link DurableApp} on H2, closes it, and writes the archive as it exits. Each step is optional:
 * if one fails, children start without the archive, as fast as before and no less correct.
 */
final class ChildJvm {

	/** As small and quick as a child can be: it shares two cores with the test JVM and the database. */
	private static final List<String> OPTIONS = List.of("-Xmx256m", "-Xss512k", "-XX:+UseSerialGC",
			"-XX:TieredStopAtLevel=1", "-XX:+ExitOnOutOfMemoryError", "-Djava.awt.headless=true",
			// The JVM's own warnings (an archive it cannot map, say) go to the log, never into the
			// answers a child writes on its standard output.
			"-Xlog:disable", "-Xlog:all=warning:stderr");

	private static List<String> prefix;

	private ChildJvm() {
	}

	/** @return the command that runs {@code main} with {@code arguments} in a new JVM */
	static List<String> command(Class<?> main, List<String> arguments) {
		List<String> command = new ArrayList<>(prefix());
		command.add(main.getName());
		command.addAll(arguments);
		return command;
	}

	/** Trains the archive: what a child loads to start and close an application. */
	public static void main(String[] args) {
		ConfigurableApplicationContext app = DurableApp
			.start("jdbc:h2:mem:child-jvm-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		app.close();
	}

	private static synchronized List<String> prefix() {
		if (prefix == null) {
			String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
			List<String> plain = new ArrayList<>(List.of(java));
			plain.addAll(OPTIONS);
			plain.addAll(List.of("-cp", System.getProperty("java.class.path")));
			prefix = List.copyOf(archived(java).orElse(plain));
		}
		return prefix;
	}

	private static Optional<List<String>> archived(String java) {
		try {
			Path directory = Files.createTempDirectory(Path.of("target"), "child-jvm-");
			String classPath = classPathOfJars(directory);
			Path archive = directory.resolve("app.jsa");
			List<String> train = new ArrayList<>(List.of(java, "-XX:ArchiveClassesAtExit=" + archive));
			train.addAll(OPTIONS);
			train.addAll(List.of("-cp", classPath, ChildJvm.class.getName()));
			Process process = new ProcessBuilder(train).redirectErrorStream(true)
				.redirectOutput(directory.resolve("training.log").toFile())
				.start();
			if (!process.waitFor(120, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				return notArchived("its training did not end within 120 s");
			}
			if (process.exitValue() != 0 || !Files.isRegularFile(archive)) {
				return notArchived("its training ended with " + process.exitValue() + "; see "
						+ directory.resolve("training.log"));
			}
			List<String> command = new ArrayList<>(List.of(java, "-XX:SharedArchiveFile=" + archive));
			command.addAll(OPTIONS);
			command.addAll(List.of("-cp", classPath));
			return Optional.of(command);
		}
		catch (IOException | RuntimeException ex) {
			return notArchived(ex.toString());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return notArchived("interrupted");
		}
	}

	/** The test JVM's class path, each directory in it as a jar in {@code directory}. */
	private static String classPathOfJars(Path directory) throws IOException {
		ToolProvider jar = ToolProvider.findFirst("jar").orElseThrow(() -> new IOException("no jar tool"));
		List<String> entries = new ArrayList<>();
		for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
			Path path = Path.of(entry);
			if (Files.isDirectory(path)) {
				Path jarred = directory.resolve(entries.size() + "-" + path.getFileName() + ".jar");
				int status = jar.run(System.out, System.err, "--create", "--file", jarred.toString(), "-C",
						path.toString(), ".");
				if (status != 0) {
					throw new UncheckedIOException(new IOException("jar ended with " + status + " for " + path));
				}
				entries.add(jarred.toString());
			}
			else {
				entries.add(entry);
			}
		}
		return String.join(File.pathSeparator, entries);
	}

	private static Optional<List<String>> notArchived(String why) {
		System.err.println("Child JVMs start without a class-data archive: " + why);
		return Optional.empty();
	}

}
