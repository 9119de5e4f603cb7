package io.github.wheeltimer.aot;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.util.FileSystemUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The application processed ahead of time by this build, run in a JVM of its own with
 * {@code -Dspring.aot.enabled=true}, behaves as it does without: delayed calls run on their timers,
 * a durable call survives a restart, the endpoint answers, and bad input fails startup with the
 * report that names it.
 */
class FeaturesApplicationAotIT {

	private static final Duration STARTUP = Duration.ofSeconds(60);

	private final HttpClient http = HttpClient.newHttpClient();

	private final List<Process> started = new ArrayList<>();

	private Path directory;

	@AfterEach
	void stop() throws IOException {
		this.started.forEach(Process::destroyForcibly);
		if (this.directory != null) {
			FileSystemUtils.deleteRecursively(this.directory);
		}
	}

	@Test
	void delayedCallsRunOnTheirTimersAndTheEndpointAnswers() throws Exception {
		Application app = start();
		assertThat(app.output()).contains("Starting AOT-processed FeaturesApplication");
		assertThat(app.post("/pings/one").statusCode()).isEqualTo(200);
		assertThat(app.post("/retries/two").body()).isEqualTo("retried two");
		await().atMost(Duration.ofSeconds(10)).until(() -> app.get("/runs").body(),
				(runs) -> runs.contains("ping one") && runs.contains("retry two"));
		String timers = app.get("/actuator/wheeltimer").body();
		assertThat(timers).contains("\"wheelTimer\"", "\"retries\"", "\"maxPendingTimeouts\":" + FeaturesApplication.MAX_PENDING,
				"\"durable\"");
		String retries = app.get("/actuator/wheeltimer/retries").body();
		assertThat(retries).contains("\"tickDuration\":\"PT0.005S\"", "Reminders.retry(String)");
		assertThat(app.get("/actuator/health").body()).contains("\"wheelTimer\"", "\"wheelTimerDurable\"");
		assertThat(app.get("/actuator/metrics/wheel.timer.delayed.call").statusCode()).isEqualTo(200);
		// A durable call cancelled by its key, over the same paths as at run time.
		app.post("/orders/paid");
		assertThat(app.delete("/orders/paid").body()).isEqualTo("true");
	}

	@Test
	void aDurableCallMadeBeforeARestartRunsAfterIt() throws Exception {
		// A horizon longer than the call's delay: the call is on the first instance's wheel when it
		// stops, 5 s before it falls due, however slowly a loaded machine stops the JVM.
		Application first = start("--wheel-timer.durable.horizon=10s", "--features.order-timeout=5s");
		assertThat(first.post("/orders/o-1").statusCode()).isEqualTo(200);
		first.stop();
		assertThat(first.output()).contains("1 durable call handed back to the database");
		Application second = start("--wheel-timer.durable.horizon=10s", "--features.order-timeout=5s");
		await().atMost(Duration.ofSeconds(20)).until(() -> second.get("/runs").body(),
				(runs) -> runs.contains("cancel o-1 9.90"));
	}

	@Test
	void badInputFailsStartupWithTheReportThatNamesIt() throws Exception {
		String tick = startFailing("--wheel-timer.tick-duration=500us");
		assertThat(tick).contains("APPLICATION FAILED TO START")
			.contains("Invalid value '500us' for configuration property 'wheel-timer.tick-duration'");
		String delay = startFailing("--features.order-timeout=soon");
		assertThat(delay).contains("APPLICATION FAILED TO START")
			.contains("@DelayedExecution on Reminders.cancelIfUnpaid(Order) is invalid: delayString"
					+ " \"${features.order-timeout}\" (resolved to \"soon\") is not a duration");
	}

	private Application start(String... arguments) throws IOException {
		Application app = launch(arguments);
		await().atMost(STARTUP).until(() -> app.output().contains("Started FeaturesApplication") || !app.process.isAlive());
		assertThat(app.process.isAlive()).as("the application runs; its output:%n%s", app.output()).isTrue();
		return app;
	}

	private String startFailing(String... arguments) throws Exception {
		Application app = launch(arguments);
		assertThat(app.process.waitFor(STARTUP.toSeconds(), TimeUnit.SECONDS)).as("startup fails and the JVM exits")
			.isTrue();
		assertThat(app.process.exitValue()).isNotZero();
		return app.output();
	}

	private Application launch(String... arguments) throws IOException {
		if (this.directory == null) {
			this.directory = Files.createTempDirectory("wheel-timer-aot");
		}
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		Path output = Files.createTempFile(this.directory, "app", ".log");
		List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				"-Dspring.aot.enabled=true", "-cp", System.getProperty("java.class.path"),
				FeaturesApplication.class.getName(), "--server.port=" + port, "--spring.datasource.url=jdbc:h2:file:"
						+ this.directory.resolve("db") + ";WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE"));
		command.addAll(List.of(arguments));
		Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
		this.started.add(process);
		return new Application(process, output, port);
	}

	private final class Application {

		private final Process process;

		private final Path output;

		private final int port;

		private Application(Process process, Path output, int port) {
			this.process = process;
			this.output = output;
			this.port = port;
		}

		String output() throws IOException {
			return Files.readString(this.output);
		}

		HttpResponse<String> get(String path) throws IOException, InterruptedException {
			return send(HttpRequest.newBuilder(uri(path)).GET());
		}

		HttpResponse<String> post(String path) throws IOException, InterruptedException {
			return send(HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.noBody()));
		}

		HttpResponse<String> delete(String path) throws IOException, InterruptedException {
			return send(HttpRequest.newBuilder(uri(path)).DELETE());
		}

		/** Stops it as a deploy does (SIGTERM): the shutdown hands its calls back. */
		void stop() throws InterruptedException {
			this.process.destroy();
			assertThat(this.process.waitFor(30, TimeUnit.SECONDS)).as("the application stops").isTrue();
		}

		private URI uri(String path) {
			return URI.create("http://localhost:" + this.port + path);
		}

		private HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
			return FeaturesApplicationAotIT.this.http.send(request.timeout(Duration.ofSeconds(30)).build(),
					HttpResponse.BodyHandlers.ofString());
		}

	}

}
