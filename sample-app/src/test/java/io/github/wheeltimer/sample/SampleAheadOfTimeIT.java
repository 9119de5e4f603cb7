package io.github.wheeltimer.sample;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import org.springframework.util.FileSystemUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample processed ahead of time by this build (as a native image build does), run in a JVM of
 * its own with {@code -Dspring.aot.enabled=true}: it starts from the generated code, takes an order
 * with its durable payment timeout, shows both of its timers through the endpoint, and serves the
 * operator console.
 * <p>
 * An integration test (run by Failsafe, after the module is packaged), because the code is
 * generated when the module is packaged.
 */
class SampleAheadOfTimeIT {

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void theSampleProcessedAheadOfTimeTakesOrdersAndShowsItsTimers() throws Exception {
		Path directory = Files.createTempDirectory("sample-aot");
		Path output = directory.resolve("sample.log");
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		Process sample = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				"-Dspring.aot.enabled=true", "-cp", System.getProperty("java.class.path"),
				SampleApplication.class.getName(), "--server.port=" + port,
				"--spring.datasource.url=jdbc:h2:file:" + directory.resolve("shop") + ";WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE"))
			.redirectErrorStream(true)
			.redirectOutput(output.toFile())
			.start();
		try {
			await().atMost(Duration.ofSeconds(60))
				.until(() -> Files.readString(output).contains("Started SampleApplication") || !sample.isAlive());
			String log = Files.readString(output);
			assertThat(sample.isAlive()).as("the sample runs; its output:%n%s", log).isTrue();
			assertThat(log).contains("Starting AOT-processed SampleApplication");
			HttpResponse<String> order = this.http.send(HttpRequest.newBuilder(uri(port, "/orders"))
				.header("Content-Type", "application/json")
				.POST(HttpRequest.BodyPublishers.ofString("{\"item\": \"a teapot\"}"))
				.build(), HttpResponse.BodyHandlers.ofString());
			assertThat(order.statusCode()).isEqualTo(201);
			String timers = this.http.send(HttpRequest.newBuilder(uri(port, "/actuator/wheeltimer")).build(),
					HttpResponse.BodyHandlers.ofString()).body();
			assertThat(timers).contains("\"wheelTimer\"", "\"retries\"", "\"durable\"", "\"scheduled\":1");
			// The console's page and scripts, read from its jar as a native image would hold them.
			HttpResponse<String> console = this.http.send(HttpRequest.newBuilder(uri(port, "/wheel-timer/")).build(),
					HttpResponse.BodyHandlers.ofString());
			assertThat(console.statusCode()).isEqualTo(200);
			assertThat(console.body()).contains("<meta name=\"wheel-timer-endpoint\" content=\"/actuator/wheeltimer\">");
			assertThat(this.http.send(HttpRequest.newBuilder(uri(port, "/wheel-timer/wheel.js")).build(),
					HttpResponse.BodyHandlers.ofString()).body()).contains("export class Wheel");
		}
		finally {
			sample.destroy();
			sample.waitFor(30, TimeUnit.SECONDS);
			sample.destroyForcibly();
			FileSystemUtils.deleteRecursively(directory);
		}
	}

	private static URI uri(int port, String path) {
		return URI.create("http://localhost:" + port + path);
	}

}
