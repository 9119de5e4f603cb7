package io.github.wheeltimer.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Runs every row of the benchmark table, for every peer it applies to, in one run on this machine,
 * and prints one table: each peer's figure and the ratio ours/peer.
 *
 * <pre>
 * wheel-timer-benchmarks/run                  # a quick pass of every row, a few minutes
 * wheel-timer-benchmarks/run --full           # longer runs, for numbers worth publishing
 * wheel-timer-benchmarks/run --rows S1,L1     # some rows only
 * java -jar wheel-timer-benchmarks/target/benchmarks.jar jmh -h   # JMH itself, for ad-hoc runs
 * </pre>
 *
 * The table is also written to {@code wheel-timer-benchmarks/target/benchmark-report.md}.
 * Rows measured with JMH run in forked JVMs; the others (lateness, wake-ups, CPU, memory, expiry,
 * the mixed workloads H1 and H2) run in this JVM, one timer at a time.
 */
public final class BenchmarkReport {

	private static final List<Peer> COLUMNS = List.of(Peer.values());

	/** Rows whose figures say yes or no (freed? flat?) more than how much: no ratio. */
	private static final Set<String> WITHOUT_RATIO = Set.of("C1m", "C2h");

	private BenchmarkReport() {
	}

	public static void main(String[] args) throws Exception {
		if (args.length > 0 && args[0].equals("jmh")) {
			org.openjdk.jmh.Main.main(Arrays.copyOfRange(args, 1, args.length));
			return;
		}
		Mode mode = Arrays.asList(args).contains("--full") ? Mode.FULL : Mode.QUICK;
		Set<String> only = rowsArgument(args);
		List<Row> rows = new ArrayList<>();
		for (Row row : allRows()) {
			if (only.isEmpty() || only.contains(row.id())) {
				System.err.printf("[%s] %s…%n", row.id(), row.title());
				rows.add(row.measured(mode));
			}
		}
		String report = header(mode) + table(rows);
		System.out.println(report);
		Path file = Path.of("wheel-timer-benchmarks", "target", "benchmark-report.md");
		if (Files.isDirectory(file.getParent())) {
			Files.writeString(file, report);
			System.err.println("Written to " + file);
		}
	}

	private static Set<String> rowsArgument(String[] args) {
		for (int i = 0; i < args.length - 1; i++) {
			if (args[i].equals("--rows")) {
				return Set.of(args[i + 1].split(","));
			}
		}
		return Set.of();
	}

	private static List<Row> allRows() {
		List<Row> rows = new ArrayList<>();
		rows.add(jmh("S1", "schedule, 1 thread, nothing fires", ScheduleBenchmark.class, "scheduleFromOneThread",
				"peer", "%.1f ns", Function.identity(), true));
		rows.add(plain(new Allocation()));
		rows.add(jmh("S2", "schedule, 2 threads: total", ScheduleBenchmark.class, "scheduleFromTwoThreads", "peer",
				"%.2f M/s", (Double opsPerSecond) -> opsPerSecond / 1e6, false));
		rows.add(jmh("C1", "cancel, 1M pending", CancelBenchmark.class, "cancelWithAMillionPending", "peer",
				"%.1f ns", Function.identity(), true));
		rows.add(jmh("C2", "schedule then cancel: per pair", ScheduleThenCancelBenchmark.class, "scheduleThenCancel",
				"peer", "%.1f ns", Function.identity(), true));
		rows.add(plain(new HeapFlatness()));
		for (PlainRow row : harnessRows()) {
			rows.add(plain(row));
		}
		rows.add(jmh("A1", "a delayed call in Spring (jdk column: ThreadPoolTaskScheduler)",
				SpringCallBenchmark.class, "call", "way", "%.0f ns", Function.identity(), true));
		return rows;
	}

	/** The rows of the plain harnesses, in the table's order. */
	private static List<PlainRow> harnessRows() {
		List<PlainRow> rows = new ArrayList<>();
		rows.addAll(Footprint.rows());
		rows.addAll(Lateness.rows());
		rows.addAll(WakeUps.rows());
		rows.addAll(Expiry.rows());
		rows.addAll(MixedLoad.rows());
		rows.addAll(VirtualBurst.rows());
		return rows;
	}

	private static Row plain(PlainRow row) {
		return new Row(row.id(), row.title(), row.lowerIsBetter(), row::measure);
	}

	private static Row jmh(String id, String title, Class<?> benchmark, String method, String parameter,
			String format, Function<Double, Double> unit, boolean lowerIsBetter) {
		// A1 starts an application per iteration: short iterations would mostly measure its warm-up.
		long iterationMillis = (benchmark == SpringCallBenchmark.class) ? 1_000 : 300;
		return new Row(id, title, lowerIsBetter, (mode) -> {
			ChainedOptionsBuilder options = new OptionsBuilder()
				.include(benchmark.getName() + "\\." + method + "$")
				.warmupIterations(mode == Mode.QUICK ? 2 : 5)
				.warmupTime(TimeValue.milliseconds(iterationMillis))
				.measurementIterations(mode == Mode.QUICK ? 4 : 10)
				.measurementTime(TimeValue.milliseconds(iterationMillis))
				.forks(mode == Mode.QUICK ? 1 : 2)
				.shouldDoGC(true)
				.shouldFailOnError(true)
				.verbosity(VerboseMode.SILENT);
			if (benchmark == SpringCallBenchmark.class) {
				// The table compares with the task scheduler; the capture's own cost is measured on its own.
				options.param("way", "delayed-execution", "task-scheduler");
			}
			Map<Peer, Measurement> results = new EnumMap<>(Peer.class);
			for (RunResult result : run(options)) {
				String value = result.getParams().getParam(parameter);
				Peer peer = value.equals("delayed-execution") ? Peer.OURS
						: value.equals("task-scheduler") ? Peer.JDK : Peer.ofLabel(value);
				double score = unit.apply(result.getPrimaryResult().getScore());
				double error = unit.apply(result.getPrimaryResult().getScoreError());
				results.put(peer, new Measurement(score,
						String.format(Locale.ROOT, format, score) + String.format(Locale.ROOT, " ± %.0f%%",
								(score == 0) ? 0 : 100 * error / score)));
			}
			return results;
		});
	}

	private static Collection<RunResult> run(ChainedOptionsBuilder options) throws RunnerException {
		return new Runner(options.build()).run();
	}

	private static String header(Mode mode) {
		return String.format(Locale.ROOT, "## Benchmarks, %s pass%n%n%s, %s %s, %d cores, %s %s, %s%n%n",
				mode.name().toLowerCase(Locale.ROOT), LocalDate.now(), System.getProperty("java.vm.name"),
				System.getProperty("java.runtime.version"), Runtime.getRuntime().availableProcessors(),
				System.getProperty("os.name"), System.getProperty("os.arch"), cpuModel());
	}

	private static String cpuModel() {
		try {
			return Files.readAllLines(Path.of("/proc/cpuinfo"))
				.stream()
				.filter((line) -> line.startsWith("model name"))
				.map((line) -> line.substring(line.indexOf(':') + 1).strip())
				.findFirst()
				.orElse("unknown CPU");
		}
		catch (IOException ex) {
			return "unknown CPU";
		}
	}

	private static String table(List<Row> rows) {
		StringBuilder table = new StringBuilder("| row | what | ");
		table.append(COLUMNS.stream().map(Peer::label).collect(Collectors.joining(" | "))).append(" |\n|---|---|");
		table.append("---|".repeat(COLUMNS.size())).append('\n');
		for (Row row : rows) {
			Measurement ours = row.results().get(Peer.OURS);
			table.append("| ").append(row.id()).append(" | ").append(row.title()).append(" | ");
			for (Peer peer : COLUMNS) {
				Measurement measurement = row.results().get(peer);
				if (measurement == null) {
					table.append("–");
				}
				else {
					table.append(measurement.text());
					// No ratio where either figure is zero (no wake-ups, a flat heap): it would mean nothing.
					if (peer != Peer.OURS && ours != null && !WITHOUT_RATIO.contains(row.id())
							&& Math.abs(measurement.value()) > 1e-9
							&& Math.abs(ours.value()) > 1e-9 && !Double.isNaN(measurement.value())
							&& !Double.isNaN(ours.value())) {
						table.append(String.format(Locale.ROOT, " (%.2f×)", ours.value() / measurement.value()));
					}
				}
				table.append(" | ");
			}
			table.setLength(table.length() - 1);
			table.append('\n');
		}
		table.append("\nIn brackets: ours / that peer (")
			.append("below 1 is better for ours where less is better, above 1 where more is: S2).\n");
		return table.toString();
	}

	@FunctionalInterface
	private interface Measure {

		Map<Peer, Measurement> measure(Mode mode) throws Exception;

	}

	private record Row(String id, String title, boolean lowerIsBetter, Measure measure, Map<Peer, Measurement> results) {

		Row(String id, String title, boolean lowerIsBetter, Measure measure) {
			this(id, title, lowerIsBetter, measure, new LinkedHashMap<>());
		}

		Row measured(Mode mode) {
			try {
				return new Row(this.id, this.title, this.lowerIsBetter, this.measure, this.measure.measure(mode));
			}
			catch (Exception ex) {
				System.err.printf("[%s] failed: %s%n", this.id, ex);
				return this;
			}
		}

	}

}
