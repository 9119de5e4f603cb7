package io.github.wheeltimer.benchmarks.durable;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The parent's handle on one {@link ClusterInstance}: a child JVM started from this JVM's own
 * {@code java} and class path (the benchmarks jar), its commands written to its standard input and
 * its {@code @} replies read from its standard output; its log goes to a file. {@link #kill()} is a
 * SIGKILL: no shutdown hook, no hand-back, no closing of connections but the kernel's.
 */
final class ClusterChild {

	/** Small heaps: two or three of these share the machine with the database server and the parent. */
	private static final List<String> JVM_OPTIONS = List.of("-Xms256m", "-Xmx512m");

	/** Alive children, killed if the parent ends without stopping them. */
	private static final List<ClusterChild> alive = new ArrayList<>();

	static {
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			synchronized (alive) {
				alive.forEach((child) -> child.process.destroyForcibly());
			}
		}));
	}

	final String name;

	final Path runLog;

	/**
	 * What the database knows it by, from its {@code @ready}: ours, its instance id; db-scheduler,
	 * its name. The parent finds a dead instance's calls by it, not by name: a restarted instance
	 * may share its predecessor's name, and a name the engine made up is not the parent's.
	 */
	String instance;

	private final Process process;

	private final PrintStream commands;

	/** Replies not yet taken by {@link #await}; guarded by itself. */
	private final List<String> replies = new ArrayList<>();

	private long killedAtMicros = Long.MIN_VALUE;

	private ClusterChild(String name, Path runLog, Process process) {
		this.name = name;
		this.runLog = runLog;
		this.process = process;
		this.commands = new PrintStream(process.getOutputStream(), true, StandardCharsets.US_ASCII);
		Thread reader = new Thread(this::readReplies, "replies-" + name);
		reader.setDaemon(true);
		reader.start();
	}

	/**
	 * Starts a child and returns once it is ready (its instance runs).
	 * @param system {@code ours} or {@code db-scheduler}
	 * @param options the instance's {@code key=value} options
	 */
	static ClusterChild start(String system, String url, String name, Path directory, List<String> options)
			throws IOException {
		Path runLog = directory.resolve(name + ".runs");
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		command.addAll(JVM_OPTIONS);
		command.addAll(List.of("-cp", System.getProperty("java.class.path"), ClusterInstance.class.getName(), system,
				url, name, runLog.toString()));
		command.addAll(options);
		Process process = new ProcessBuilder(command)
			.redirectError(ProcessBuilder.Redirect.appendTo(directory.resolve(name + ".log").toFile()))
			.start();
		ClusterChild child = new ClusterChild(name, runLog, process);
		synchronized (alive) {
			alive.add(child);
		}
		child.instance = child.await("@ready", Duration.ofSeconds(120)).substring("@ready ".length());
		return child;
	}

	void send(String command) {
		this.commands.println(command);
	}

	/** Waits for the first reply not yet taken that starts with {@code prefix}, and takes it. */
	String await(String prefix, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		synchronized (this.replies) {
			while (true) {
				for (int i = 0; i < this.replies.size(); i++) {
					if (this.replies.get(i).startsWith(prefix)) {
						return this.replies.remove(i);
					}
				}
				long left = deadline - System.nanoTime();
				if (left <= 0 || !this.process.isAlive() && this.replies.stream().noneMatch((r) -> r.startsWith(prefix))) {
					throw new IllegalStateException("Instance " + this.name + " did not answer " + prefix + " within "
							+ timeout + (this.process.isAlive() ? "" : " (it exited; see its .log file)"));
				}
				try {
					this.replies.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException(ex);
				}
			}
		}
	}

	/** The {@code @counts} reply, as numbers. */
	long[] counts() {
		send("counts");
		String[] f = await("@counts", Duration.ofSeconds(30)).split(" ");
		long[] counts = new long[f.length - 1];
		for (int i = 1; i < f.length; i++) {
			counts[i - 1] = Long.parseLong(f[i]);
		}
		return counts;
	}

	/** CPU time the process used so far, s; 0 once it is gone. */
	double cpuSeconds() {
		return this.process.info().totalCpuDuration().map((d) -> d.toNanos() / 1e9).orElse(0.0);
	}

	/** SIGKILL; returns when the process is gone, with the time the signal was sent. */
	long kill() throws InterruptedException {
		this.killedAtMicros = CallLog.nowMicros();
		this.process.destroyForcibly();
		this.process.waitFor();
		forget();
		return this.killedAtMicros;
	}

	/** When it was killed, {@link Long#MIN_VALUE} if it was not. */
	long killedAtMicros() {
		return this.killedAtMicros;
	}

	/** Stops it gracefully; kills it if it does not stop in time. */
	void stop() throws InterruptedException {
		if (!this.process.isAlive()) {
			forget();
			return;
		}
		send("stop");
		if (!this.process.waitFor(30, TimeUnit.SECONDS)) {
			System.err.printf("  instance %s did not stop in 30 s: killed%n", this.name);
			this.process.destroyForcibly();
			this.process.waitFor();
		}
		forget();
	}

	private void forget() {
		synchronized (alive) {
			alive.remove(this);
		}
	}

	private void readReplies() {
		try (BufferedReader in = new BufferedReader(
				new InputStreamReader(this.process.getInputStream(), StandardCharsets.US_ASCII))) {
			String line;
			while ((line = in.readLine()) != null) {
				if (line.startsWith("@")) {
					synchronized (this.replies) {
						this.replies.add(line);
						this.replies.notifyAll();
					}
				}
			}
		}
		catch (IOException ex) {
			// Killed: its pipe broke.
		}
		synchronized (this.replies) {
			this.replies.notifyAll();
		}
	}

}
