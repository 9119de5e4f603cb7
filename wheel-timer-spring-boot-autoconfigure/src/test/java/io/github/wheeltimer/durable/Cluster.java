package io.github.wheeltimer.durable;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Stream;

import io.github.wheeltimer.durable.engine.DurableEngine;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The test's side of a cluster of {@link ClusterInstance}s, each in a JVM of its own on one
 * database: starts them (in parallel), sends them commands and waits for their answers (each wait
 * bounded), kills them with SIGKILL, pauses and resumes them with SIGSTOP and SIGCONT (what a long
 * garbage collection pause looks like from outside), and stops them gracefully. Each instance's log
 * goes to {@code target/cluster-logs/<cluster>/<instance>.log}; {@link #dump} prints the end of
 * each with the commands and answers, for a failed test. {@link #close()} kills whatever still runs.
 */
final class Cluster implements AutoCloseable {

	static final JsonMapper json = JsonMapper.builder().build();

	/** How long an instance may take to start: three JVMs share two busy cores. */
	private static final Duration STARTUP = Duration.ofSeconds(90);

	private final Function<String, String> urlOf;

	private final List<String> properties;

	private final Path logs;

	private final Map<String, Node> nodes = new LinkedHashMap<>();

	/**
	 * @param name the cluster's name, for its log directory
	 * @param urlOf the database's JDBC URL for each instance's name
	 * @param properties the properties of every instance, {@code key=value}
	 */
	Cluster(String name, Function<String, String> urlOf, List<String> properties) {
		this.urlOf = urlOf;
		this.properties = List.copyOf(properties);
		this.logs = Path.of("target", "cluster-logs", name);
		try {
			Files.createDirectories(this.logs);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Starts instances, all at once, with the cluster's properties plus {@code extra}, and waits
	 * until each is ready.
	 * @param names the instances' names ({@code wheel-timer.durable.instance-name})
	 * @return the started instances, in that order
	 */
	List<Node> start(List<String> names, String... extra) {
		List<Node> started = new ArrayList<>();
		for (String name : names) {
			started.add(launch(name, extra));
		}
		for (Node node : started) {
			node.awaitReady();
		}
		return started;
	}

	/** Starts one instance and waits until it is ready. */
	Node start(String name, String... extra) {
		return start(List.of(name), extra).get(0);
	}

	/**
	 * Starts an instance with the cluster's properties plus {@code extra}, and returns at once;
	 * {@link Node#awaitReady()} waits until it has started.
	 */
	synchronized Node launch(String name, String... extra) {
		if (this.nodes.containsKey(name)) {
			throw new IllegalArgumentException("There is an instance named " + name + " already");
		}
		List<String> arguments = new ArrayList<>();
		// Named to the database, so that the test can tell when a killed instance's sessions are gone.
		arguments.add("spring.datasource.url=" + this.urlOf.apply(name));
		arguments.add("wheel-timer.durable.instance-name=" + name);
		arguments.addAll(this.properties);
		arguments.addAll(Arrays.asList(extra));
		List<String> command = ChildJvm.command(ClusterInstance.class, arguments);
		Path log = this.logs.resolve(name + ".log");
		try {
			Process process = new ProcessBuilder(command).redirectError(log.toFile()).start();
			Node node = new Node(name, process, log);
			this.nodes.put(name, node);
			return node;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start instance " + name, ex);
		}
	}

	synchronized List<Node> nodes() {
		return new ArrayList<>(this.nodes.values());
	}

	/** Prints the end of each instance's log, and its commands and answers. */
	void dump(PrintStream out) {
		for (Node node : nodes()) {
			out.println("=============== instance " + node.name + " (pid " + node.process.pid() + ", "
					+ (node.process.isAlive() ? "alive" : "exit code " + node.process.exitValue())
					+ ") ===============");
			try (Stream<String> lines = Files.lines(node.log, StandardCharsets.UTF_8)) {
				List<String> all = lines.toList();
				if (all.size() > 200) {
					out.println("[... " + (all.size() - 200) + " earlier lines in " + node.log.toAbsolutePath() + "]");
				}
				all.subList(Math.max(0, all.size() - 200), all.size()).forEach(out::println);
			}
			catch (IOException | UncheckedIOException ex) {
				out.println("(log unreadable: " + ex + ")");
			}
			out.println("--------------- commands and answers of " + node.name + " ---------------");
			node.transcript
				.forEach((line) -> out.println((line.length() > 400) ? line.substring(0, 400) + "..." : line));
		}
		out.flush();
	}

	/** Kills every instance still running (SIGKILL), paused or not. */
	@Override
	public void close() {
		for (Node node : nodes()) {
			node.process.destroyForcibly();
		}
		for (Node node : nodes()) {
			try {
				node.process.waitFor(20, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/** One instance: a child JVM running {@link ClusterInstance}. */
	static final class Node {

		private final String name;

		private final Process process;

		private final Path log;

		private final Writer commands;

		private final AtomicInteger ids = new AtomicInteger();

		private final Map<String, CompletableFuture<String>> pending = new ConcurrentHashMap<>();

		private final ConcurrentLinkedQueue<String> transcript = new ConcurrentLinkedQueue<>();

		/** Its first answer, once it has started. */
		private final CompletableFuture<String> ready = new CompletableFuture<>();

		private volatile UUID instance;

		private Node(String name, Process process, Path log) {
			this.name = name;
			this.process = process;
			this.log = log;
			this.commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
			this.pending.put("0", this.ready);
			Thread reader = new Thread(this::readAnswers, "cluster-answers-" + name);
			reader.setDaemon(true);
			reader.start();
		}

		String name() {
			return this.name;
		}

		/** @return the lines of this instance's log so far that hold any of {@code texts}, in order */
		List<String> logLines(String... texts) {
			try (Stream<String> lines = Files.lines(this.log, StandardCharsets.UTF_8)) {
				return lines.filter((line) -> Arrays.stream(texts).anyMatch(line::contains)).toList();
			}
			catch (IOException | UncheckedIOException ex) {
				return List.of("(log unreadable: " + ex + ")");
			}
		}

		/** @return this instance's id in the database's instance table */
		UUID instance() {
			return this.instance;
		}

		boolean isAlive() {
			return this.process.isAlive();
		}

		private void readAnswers() {
			try (BufferedReader answers = new BufferedReader(
					new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
				String line;
				while ((line = answers.readLine()) != null) {
					this.transcript.add(Instant.now() + " <- " + line);
					if (!line.startsWith("@@ ")) {
						continue;
					}
					String[] parts = line.split(" ", 4);
					CompletableFuture<String> answer = this.pending.remove(parts[1]);
					if (answer == null) {
						continue;
					}
					String payload = (parts.length > 3) ? parts[3] : "";
					if (parts[2].equals("OK")) {
						answer.complete(payload);
					}
					else {
						answer.completeExceptionally(new IllegalStateException(this.name + " answered: " + payload));
					}
				}
			}
			catch (IOException ex) {
				// The process is gone; the answers still missing fail below.
			}
			IllegalStateException ended = new IllegalStateException(
					"Instance " + this.name + " ended without answering");
			this.pending.values().forEach((answer) -> answer.completeExceptionally(ended));
		}

		/** Waits until it has started: its first answer. */
		void awaitReady() {
			String ready = await(this.ready, STARTUP, "its start");
			this.instance = UUID.fromString(json.readTree(ready).get("instance").asString());
		}

		/**
		 * Sends a command and returns at once.
		 * @param command the verb and its options, {@code key=value}
		 * @return the answer, completed exceptionally if the instance answered with an error or ended
		 */
		CompletableFuture<String> send(String command) {
			String id = String.valueOf(this.ids.incrementAndGet());
			CompletableFuture<String> answer = new CompletableFuture<>();
			this.pending.put(id, answer);
			this.transcript.add(Instant.now() + " -> " + id + " " + command);
			try {
				synchronized (this.commands) {
					this.commands.write(id + " " + command + "\n");
					this.commands.flush();
				}
			}
			catch (IOException ex) {
				this.pending.remove(id);
				answer.completeExceptionally(new IllegalStateException("Instance " + this.name + " cannot be sent "
						+ command + " (exit code " + exitCode() + ")", ex));
			}
			return answer;
		}

		/** Sends a command and waits for its answer, at most {@code timeout}. */
		String call(String command, Duration timeout) {
			return await(send(command), timeout, command);
		}

		/** Sends a command answered quickly and returns its answer, as JSON. */
		JsonNode json(String command) {
			return json.readTree(call(command, Duration.ofSeconds(20)));
		}

		/**
		 * Waits at most {@code timeout} for an answer.
		 * @param command what was asked, for the failure's message
		 * @throws AssertionError if none came in time, or the instance answered with an error
		 */
		String await(CompletableFuture<String> answer, Duration timeout, String command) {
			try {
				return answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
			}
			catch (TimeoutException ex) {
				throw new AssertionError("Instance " + this.name + " did not answer " + command + " within " + timeout
						+ " (" + (isAlive() ? "alive" : "exit code " + exitCode()) + ")");
			}
			catch (ExecutionException ex) {
				Throwable failure = ex.getCause();
				throw new AssertionError("Instance " + this.name + " failed " + command + ": " + failure.getMessage(),
						failure);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new AssertionError("Interrupted waiting for " + this.name + " to answer " + command, ex);
			}
		}

		/** @return this instance's {@code DurableEngine.counts()}, by component name */
		Map<String, Long> counts() {
			Map<String, Long> counts = new LinkedHashMap<>();
			json("counts").properties().forEach((entry) -> counts.put(entry.getKey(), entry.getValue().asLong()));
			return counts;
		}

		/** @return the status of its health indicator of durable calls, {@code UP} or {@code DOWN} */
		String health() {
			return json("health").get("status").asString();
		}

		/** @return the details of its health indicator of durable calls */
		JsonNode healthDetails() {
			return json("health").get("details");
		}

		/** @return its {@code DurableEngine.report(50)}, as JSON */
		JsonNode report() {
			return json("report");
		}

		/** Kills it with SIGKILL and waits until it is gone. */
		void kill() {
			this.process.destroyForcibly();
			try {
				if (!this.process.waitFor(20, TimeUnit.SECONDS)) {
					throw new AssertionError("Instance " + this.name + " is still alive 20 s after SIGKILL");
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new AssertionError(ex);
			}
		}

		/** Freezes its whole JVM (SIGSTOP), as a long garbage collection pause would. */
		void pause() {
			signal("STOP");
		}

		/** Lets it go on (SIGCONT). */
		void resume() {
			signal("CONT");
		}

		private void signal(String signal) {
			try {
				Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(this.process.pid()))
					.redirectErrorStream(true)
					.start();
				if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
					throw new AssertionError("kill -" + signal + " " + this.process.pid() + " failed: "
							+ new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new AssertionError(ex);
			}
		}

		/**
		 * Stops it gracefully (its application context is closed) and waits until its JVM has
		 * exited with 0.
		 * @return its answer: when the close began and ended, and its counts then
		 */
		JsonNode stop(Duration timeout) {
			JsonNode stopped = json.readTree(call("stop", timeout));
			try {
				if (!this.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
					throw new AssertionError(
							"Instance " + this.name + " has not exited " + timeout + " after its stop");
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new AssertionError(ex);
			}
			if (this.process.exitValue() != 0) {
				throw new AssertionError("Instance " + this.name + " exited with " + this.process.exitValue());
			}
			return stopped;
		}

		int exitCode() {
			return this.process.isAlive() ? -1 : this.process.exitValue();
		}

		@Override
		public String toString() {
			return this.name;
		}

	}

}
