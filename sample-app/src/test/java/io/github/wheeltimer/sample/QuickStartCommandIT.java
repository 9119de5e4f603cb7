package io.github.wheeltimer.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.util.FileSystemUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The README's quick start, run as written from the root of the repository: its run command builds
 * and starts the sample, and each of its {@code curl} commands gets an answer, and so do those of
 * {@code docs/actuator.md} after them (the last stops the timer). Only the port
 * differs ({@code SERVER_PORT} in the environment, and in the {@code curl} URLs), so that a busy
 * 8080 cannot fail the build.
 * <p>
 * An integration test (run by Failsafe, after the module is packaged), because it starts a second
 * Maven build of this repository.
 */
class QuickStartCommandIT {

	private static final Path ROOT = Path.of(System.getProperty("repository.root", "..")).toAbsolutePath().normalize();

	private static final Path LOG = Path.of("target", "quick-start-run.log").toAbsolutePath();

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

	@Test
	@Timeout(value = 8, unit = TimeUnit.MINUTES) // the build's 3-minute guard is too short for a cold Maven run
	void theRunCommandStartsTheSampleAndEveryCurlCommandGetsAnAnswer() throws Exception {
		Readme readme = Readme.read(ROOT.resolve("README.md"));
		List<String> runCommands = readme.commandsStartingWith("./mvnw").stream()
			// docs/aot.md runs the sample too, processed ahead of time: not the quick start, were it here.
			.filter((command) -> command.contains("spring-boot:run") && !command.contains("spring.aot.enabled"))
			.toList();
		assertThat(runCommands).as("the quick start's run command").hasSize(1);
		int port = freePort();
		// As on a fresh clone: no shop database left by an earlier run (its order numbers would differ).
		FileSystemUtils.deleteRecursively(ROOT.resolve("sample-app/target/shop-db"));
		Process run = start(runCommands.get(0), port);
		try {
			await("the sample answering on /actuator/wheeltimer").atMost(Duration.ofMinutes(5))
				.pollInterval(Duration.ofSeconds(1))
				.until(() -> {
					if (!run.isAlive()) {
						throw new AssertionError("The run command ended with " + run.exitValue() + ":\n" + tail());
					}
					return status(port, "/actuator/wheeltimer") == 200;
				});
			// The sample's page, and the operator console that draws its wheel (the README opens both).
			assertThat(get(port, "/").body()).contains("id=\"wheel-drawing\"").contains("href=\"wheel-timer/\"");
			assertThat(get(port, "/wheel-timer/").body()).contains("<meta name=\"wheel-timer-endpoint\"");
			assertThat(get(port, "/wheel-timer/wheel.js").body()).contains("export class Wheel");

			assertThat(readme.commandsStartingWith("curl ")).as("the README's curl commands")
				.hasSizeGreaterThanOrEqualTo(4);
			// The endpoint's page goes last: its POST stops the timer.
			List<String> curls = Readme.read(ROOT.resolve("README.md"), ROOT.resolve("docs/actuator.md"))
				.commandsStartingWith("curl ");
			for (String curl : curls) {
				String command = curl.replace("localhost:8080", "localhost:" + port) + " --fail --silent --show-error";
				Process process = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true).start();
				String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
				assertThat(process.waitFor(30, TimeUnit.SECONDS)).as(curl).isTrue();
				assertThat(process.exitValue()).as("%s answered:%n%s", curl, output).isZero();
				assertThat(output).as(curl).isNotBlank();
			}
		}
		finally {
			stop(run);
		}
	}

	private Process start(String command, int port) throws IOException {
		ProcessBuilder builder = new ProcessBuilder("bash", "-c", command).directory(ROOT.toFile())
			.redirectErrorStream(true)
			.redirectOutput(LOG.toFile());
		builder.environment().put("SERVER_PORT", Integer.toString(port));
		// The same local repository as the build running this test, however it was chosen.
		String localRepository = System.getProperty("maven.repo.local");
		if (localRepository != null && !localRepository.isBlank()) {
			builder.environment().merge("MAVEN_OPTS", "-Dmaven.repo.local=" + localRepository, (a, b) -> a + " " + b);
		}
		return builder.start();
	}

	/** Stops the application's JVM first (gracefully), then the Maven build that forked it. */
	private static void stop(Process run) throws InterruptedException {
		List<ProcessHandle> tree = run.descendants().toList();
		tree.forEach(ProcessHandle::destroy);
		run.destroy();
		for (ProcessHandle process : tree) {
			process.onExit().completeOnTimeout(null, 30, TimeUnit.SECONDS).join();
			process.destroyForcibly();
		}
		if (!run.waitFor(30, TimeUnit.SECONDS)) {
			run.destroyForcibly();
		}
	}

	/** The status of a GET, or -1 while nothing answers. */
	private int status(int port, String path) throws InterruptedException {
		try {
			return get(port, path).statusCode();
		}
		catch (IOException ex) {
			return -1;
		}
	}

	private HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
			.timeout(Duration.ofSeconds(5))
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	private static String tail() throws IOException {
		List<String> lines = Files.readAllLines(LOG);
		return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
