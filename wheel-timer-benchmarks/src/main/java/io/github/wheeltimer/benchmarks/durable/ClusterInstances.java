package io.github.wheeltimer.benchmarks.durable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.github.wheeltimer.benchmarks.durable.ClusterFigures.Ranges;

/**
 * One system's instances in a {@link ClusterBenchmark} pass, each a JVM of its own
 * ({@link ClusterChild}): started by role and numbered ({@code a1}, {@code b2}), stopped or killed,
 * and followed through their run files ({@link RunLog.Truth}), from which every figure is
 * computed. The CPU their JVMs used is kept, read before each one ends, so that it does not count
 * as other work on the machine.
 */
final class ClusterInstances implements AutoCloseable {

	private final String system;

	private final String url;

	/** Their logs and run files, emptied of an earlier pass's. */
	private final Path directory;

	private final RunLog.Truth truth = new RunLog.Truth();

	private final Map<String, Integer> started = new HashMap<>();

	private final Map<String, ClusterChild> children = new LinkedHashMap<>();

	/** CPU seconds of this system's instances, read before each one ended. */
	private double childCpuSeconds;

	ClusterInstances(String system, String url, Path directory) throws Exception {
		this.system = system;
		this.url = url;
		this.directory = directory;
		Files.createDirectories(this.directory);
		try (var files = Files.list(this.directory)) {
			for (Path file : (Iterable<Path>) files::iterator) {
				Files.delete(file);
			}
		}
	}

	/** Every call made and every run, as the instances' run files say so far. */
	RunLog.Truth truth() {
		return this.truth;
	}

	double childCpuSeconds() {
		return this.childCpuSeconds;
	}

	ClusterChild start(String role, List<String> options) throws Exception {
		int n = this.started.merge(role, 1, Integer::sum);
		String name = role + n;
		long begin = System.nanoTime();
		ClusterChild child = ClusterChild.start(this.system, this.url, name, this.directory, options);
		this.truth.follow(name, child.runLog);
		this.children.put(name, child);
		System.err.printf(Locale.ROOT, "  instance %s ready in %.1f s%n", name, (System.nanoTime() - begin) / 1e9);
		return child;
	}

	void stop(ClusterChild child) throws InterruptedException {
		this.childCpuSeconds += child.cpuSeconds();
		child.stop();
	}

	/** Kills the instance with SIGKILL; returns when, in epoch µs. */
	long kill(ClusterChild child) throws InterruptedException {
		this.childCpuSeconds += child.cpuSeconds();
		long at = child.kill();
		System.err.printf("  killed %s%n", child.name);
		return at;
	}

	/** When the instance a run was on was killed; {@link Long#MIN_VALUE} if it was not. */
	long killedAt(RunLog.Run run) {
		ClusterChild ranOn = this.children.get(run.instance);
		return (ranOn != null) ? ranOn.killedAtMicros() : Long.MIN_VALUE;
	}

	/** Waits until every call made in {@code range} ran, or the deadline (epoch µs) passed. */
	void awaitRuns(Ranges range, long deadlineMicros) throws InterruptedException {
		awaitRuns(range, Map.of(), deadlineMicros);
	}

	/**
	 * Waits until every call made in {@code range} ran, and every call of {@code killed} (call
	 * number to the kill of the instance that held it) ran after that kill, or the deadline (epoch
	 * µs) passed: a call that was running when its instance died has a run already, and must run
	 * again.
	 */
	void awaitRuns(Ranges range, Map<Long, Long> killed, long deadlineMicros) throws InterruptedException {
		while (CallLog.nowMicros() < deadlineMicros) {
			List<RunLog.Call> calls = range.calls(this.truth);
			if (calls.stream().allMatch(RunLog.Call::ran) && calls.stream()
				.filter((call) -> killed.containsKey(call.number))
				.allMatch((call) -> call.runs.stream().anyMatch((run) -> run.startMicros >= killed.get(call.number)))) {
				return;
			}
			Thread.sleep(100);
		}
		System.err.println("  (gave up waiting: some calls never ran)");
	}

	/** The statement and commit counts of every instance, summed. */
	static long[] counts(List<ClusterChild> instances) {
		long[] sum = new long[2];
		for (ClusterChild instance : instances) {
			long[] counts = instance.counts();
			sum[0] += counts[0];
			sum[1] += counts[1];
		}
		return sum;
	}

	static long[] minus(long[] after, long[] before) {
		return new long[] { after[0] - before[0], after[1] - before[1] };
	}

	/** Stops every instance still running; one already stopped or killed is only forgotten. */
	@Override
	public void close() {
		for (ClusterChild child : this.children.values()) {
			try {
				this.childCpuSeconds += child.cpuSeconds();
				child.stop();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

}
