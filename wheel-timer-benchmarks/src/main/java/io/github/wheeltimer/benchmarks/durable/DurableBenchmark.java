package io.github.wheeltimer.benchmarks.durable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;

import io.github.wheeltimer.benchmarks.durable.CountingDataSource.Counts;

/**
 * Durable delayed calls side by side: ours ({@code @DelayedExecution(durable = true)}) and
 * db-scheduler, at its defaults and tuned, one after the other in one run, on one real database
 * server started in this process, PostgreSQL or MariaDB, each system on a fresh database of its
 * own.
 *
 * <pre>
 * wheel-timer-benchmarks/run-durable                     # builds, then the full pass (about 4 minutes)
 * wheel-timer-benchmarks/run-durable --quick             # smaller counts, shorter waits (about 2 minutes)
 * wheel-timer-benchmarks/run-durable --systems ours      # some systems only: ours, defaults, tuned
 * wheel-timer-benchmarks/run-durable --database mariadb  # on MariaDB 10.11 (default: postgresql)
 * wheel-timer-benchmarks/run-durable --rows F1           # some rows only (the steps that measure them)
 * wheel-timer-benchmarks/run-durable --rows F1 --retried-calls 300   # F1 with 300 calls
 * </pre>
 *
 * On PostgreSQL ({@link Postgres}) the systems use its driver; on MariaDB ({@link MariaDb}),
 * MariaDB's, through which our starter picks its MySQL dialect by itself. db-scheduler's defaults
 * poll with {@code fetch} through {@code MariaDBJdbcCustomization}, the one it detects; tuned
 * polls with its generic lock-and-fetch, which that one refuses, through
 * {@code MySQL8JdbcCustomization} ({@link DbSchedulerSystem} says why, and what each sends).
 * <p>
 * For each system, in this order, with one instance alive from the burst to the end:
 * <ol>
 * <li>D3, burst: {@code N} calls are written with no instance running, and all are overdue when
 * the instance starts; calls run per second from its first run to its last, and how long after
 * the instance's start the last ran;</li>
 * <li>D5, idle: statements per second with nothing pending;</li>
 * <li>D2, lateness: calls paced over some seconds, delays 0.5 to 20 s, each run compared with the
 * due time the harness computed before scheduling it (so the scheduling itself never counts
 * against a system; a negative lateness ran early);</li>
 * <li>D1, scheduling cost: calls due in an hour, one after the other, alone (autocommit) and each
 * in a transaction of its own;</li>
 * <li>D4, statements per call: everything the instance and its callers sent while the lateness
 * calls were scheduled, waited and ran, over their number; and the same for the burst;</li>
 * <li>F1, retries: {@code N} calls (10,000; 2,000 with {@code --quick}; {@code --retried-calls})
 * that fail on their first two runs and succeed on their third, each retried by the system itself
 * after the same fixed backoff of 1 s ({@link RetriedCalls}): ours, a durable method with Spring's
 * {@code @Retryable(maxRetries = 3, delay = 1000)}; db-scheduler, a one-time task with
 * {@code MaxRetriesFailureHandler(3, OnFailureRetryLater(1 s))}. They are written one after the
 * other through the running instance, each due 2 s after it was written. Measured from the first
 * write to the last success: the statements per call (its rows' last deletes in: counted 1 s
 * after the last success), the database's CPU time per 1,000 calls (as D6), the time it took,
 * and the threads blocked: the most threads seen at once sleeping in a backoff
 * ({@code Thread.sleep} under Spring's retry code or the system's own), looked for every 50 ms
 * ({@link BackoffThreads}). Checked: each call ran exactly 3 times, ours was told the attempt
 * the harness counted, and no row of them is left in the database; a call that did otherwise
 * fails the check, in the table.</li>
 * </ol>
 * D6, the database server's own CPU time per 1,000 calls ({@link ServerCpu}), is read over two of
 * those steps: over the lateness calls, the span of D4's paced figure; over the burst, from the
 * instance's start to the last run, its calls' writing left out.
 * Between steps the system's database is vacuumed, analyzed and checkpointed
 * ({@link Database#settle}; on MariaDB: purge, {@code ANALYZE TABLE}, dirty pages flushed), so that
 * no step pays for the server's tidying after an earlier one, and each starts with the statistics
 * its background work would have gathered given time: for the burst, those of the table full of
 * overdue calls.
 * With {@code --rows}, a pass runs only the steps of the rows it names (D4 and D6 need both the
 * burst and the lateness), and the table shows only those rows; without a burst, the instance is
 * started on an empty table before the first step.
 * The table is printed and written to {@code wheel-timer-benchmarks/target/durable-report.md}
 * ({@code durable-report-mariadb.md} on MariaDB); the statements behind each count go to the log.
 * The test command does not run any of it, and no test asserts a speed.
 */
public final class DurableBenchmark {

	/** What each step may take at most, past the last due time, before the calls left are reported missing. */
	private static final Duration GRACE = Duration.ofSeconds(15);

	/** The burst's instance needs time to start; a system that never drains must not hold the run. */
	private static final Duration BURST_CAP = Duration.ofSeconds(120);

	/** D1's rounds (odd: a median is then one of them). */
	private static final int ROUNDS = 5;

	private static final List<String> ALL_SYSTEMS = List.of("ours", "defaults", "tuned");

	/** The rows, in the table's order, and the steps that measure each. */
	private static final Map<String, Set<Step>> ROWS = rows();

	/** After F1's last success, the wait before its counts are read: ours deletes rows in a batch within a tick. */
	private static final Duration FINISHED = Duration.ofSeconds(1);

	private final Size size;

	/** The steps this pass runs, for the rows it was asked for. */
	private final Set<Step> steps;

	/** F1's calls. */
	private final int retriedCalls;

	private final Database server;

	/** D6: the server's processes, read before and after a step. */
	private final ServerCpu serverCpu;

	/** The database of the system being measured. */
	private String database;

	/** Its URL, for F1's look at what the system left in it. */
	private String url;

	private long nextCall = 1;

	private DurableBenchmark(Size size, Set<String> rows, int retriedCalls, Database server, ServerCpu serverCpu) {
		this.size = size;
		this.steps = EnumSet.noneOf(Step.class);
		rows.forEach((row) -> this.steps.addAll(ROWS.get(row)));
		this.retriedCalls = retriedCalls;
		this.server = server;
		this.serverCpu = serverCpu;
	}

	public static void main(String[] args) throws Exception {
		List<String> arguments = Arrays.asList(args);
		Size size = arguments.contains("--quick") ? Size.QUICK : Size.FULL;
		List<String> systems = systemsArgument(args);
		Set<String> rows = rowsArgument(args);
		String calls = argument(args, "--retried-calls");
		int retriedCalls = (calls != null) ? Integer.parseInt(calls) : size.retried;
		String databaseId = Database.argument(args);
		Map<String, Result> results = new LinkedHashMap<>();
		String version;
		String settings;
		try (Database server = Database.start(databaseId)) {
			version = server.version();
			settings = String.format("%s; %s between steps", server.settings(), server.betweenSteps());
			ServerCpu serverCpu = new ServerCpu(server.serverPid());
			System.err.printf("Database server: process %d and its children%n", serverCpu.pid());
			DurableBenchmark benchmark = new DurableBenchmark(size, rows, retriedCalls, server, serverCpu);
			for (String system : systems) {
				benchmark.database = "bench_" + system;
				String url = server.createDatabase(benchmark.database);
				benchmark.url = url;
				String label = system;
				Result result = new Result();
				result.commitBefore = server.commitMicros();
				MachineLoad before = MachineLoad.now(serverCpu);
				try (DurableSystem durable = create(system, url)) {
					label = durable.label();
					System.err.printf("== %s%n", label);
					benchmark.measure(durable, result);
				}
				catch (Exception | LinkageError ex) {
					// A system that fails must not end the run; the rows it got through keep their
					// figures.
					System.err.printf("%s failed: %s%n", label, ex);
					ex.printStackTrace();
					result.failure = ex.getClass().getSimpleName() + ": " + ex.getMessage();
				}
				result.otherCores = MachineLoad.now(serverCpu).otherCoresSince(before);
				result.commitAfter = server.commitMicros();
				System.err.printf(Locale.ROOT, "  other work on the machine meanwhile: %.2f cores; a commit took %.0f µs "
						+ "before, %.0f µs after%n", result.otherCores, result.commitBefore, result.commitAfter);
				results.put(label, result);
				System.gc();
			}
		}
		String report = header(size, rows, version, settings) + table(results, size, rows, retriedCalls)
				+ footer(size, databaseId, results, rows.contains("F1"));
		System.out.println(report);
		// PostgreSQL's keeps its name, which earlier runs and BENCHMARKS.md refer to.
		String suffix = databaseId.equals(Database.POSTGRESQL) ? "" : "-" + databaseId;
		Path file = Path.of("wheel-timer-benchmarks", "target", "durable-report" + suffix + ".md");
		if (Files.isDirectory(file.getParent())) {
			Files.writeString(file, report);
			System.err.println("Written to " + file);
		}
		// A system's threads that failed to stop must not keep the JVM alive.
		System.exit(0);
	}

	private static List<String> systemsArgument(String[] args) {
		String systems = argument(args, "--systems");
		return (systems != null) ? List.of(systems.split(",")) : ALL_SYSTEMS;
	}

	/** The rows of {@code --rows}, such as {@code F1} or {@code D2,D3}, in the table's order; all without it. */
	private static Set<String> rowsArgument(String[] args) {
		String rows = argument(args, "--rows");
		if (rows == null) {
			return ROWS.keySet();
		}
		Set<String> asked = new LinkedHashSet<>();
		for (String row : rows.split(",")) {
			String id = ROWS.keySet()
				.stream()
				.filter((known) -> known.equalsIgnoreCase(row.strip()))
				.findFirst()
				.orElseThrow(() -> new IllegalArgumentException(
						"Unknown row " + row + ", expected some of " + ROWS.keySet()));
			asked.add(id);
		}
		Set<String> ordered = new LinkedHashSet<>(ROWS.keySet());
		ordered.retainAll(asked);
		return ordered;
	}

	/** The value that follows {@code name}, or {@code null} if it is not given. */
	private static String argument(String[] args, String name) {
		for (int i = 0; i < args.length - 1; i++) {
			if (args[i].equals(name)) {
				return args[i + 1];
			}
		}
		return null;
	}

	private static Map<String, Set<Step>> rows() {
		Map<String, Set<Step>> rows = new LinkedHashMap<>();
		rows.put("D1", EnumSet.of(Step.SCHEDULE));
		rows.put("D1t", EnumSet.of(Step.SCHEDULE));
		rows.put("D2", EnumSet.of(Step.LATENESS));
		rows.put("D3", EnumSet.of(Step.BURST));
		rows.put("D4", EnumSet.of(Step.BURST, Step.LATENESS));
		rows.put("D4s", EnumSet.of(Step.SCHEDULE));
		rows.put("D5", EnumSet.of(Step.IDLE));
		rows.put("D6", EnumSet.of(Step.BURST, Step.LATENESS));
		rows.put("F1", EnumSet.of(Step.RETRIES));
		return rows;
	}

	private static DurableSystem create(String system, String url) throws SQLException {
		return switch (system) {
			case "defaults" -> DbSchedulerSystem.defaults(url);
			case "tuned" -> DbSchedulerSystem.tuned(url);
			case "ours" -> new OursSystem(url);
			default -> throw new IllegalArgumentException(
					"Unknown system " + system + ", expected one of " + ALL_SYSTEMS);
		};
	}

	private void measure(DurableSystem system, Result result) throws Exception {
		if (this.steps.contains(Step.BURST)) {
			burst(system, result);
		}
		else {
			// The burst starts the instance with its calls overdue; without it, on an empty table.
			system.start();
		}
		if (this.steps.contains(Step.IDLE)) {
			settle();
			idle(system, result);
		}
		if (this.steps.contains(Step.LATENESS)) {
			settle();
			lateness(system, result);
		}
		if (this.steps.contains(Step.SCHEDULE)) {
			scheduleCost(system, result);
		}
		if (this.steps.contains(Step.RETRIES)) {
			// Last: the rows before it are measured as they were before it existed.
			settle();
			retries(system, result);
		}
		long strays = CallLog.strays() + RetriedCalls.strays();
		if (strays > 0) {
			System.err.printf("  %d runs so far that no step expected (late leftovers or second runs)%n", strays);
		}
	}

	/** D3: {@code N} calls overdue when the instance starts. */
	private void burst(DurableSystem system, Result result) throws Exception {
		int count = this.size.burst;
		long first = take(count);
		System.err.printf("  burst: writing %,d calls with no instance running%n", count);
		settle();
		ServerCpu.Mark writing = this.serverCpu.mark();
		DurableSystem.Backlog backlog = system.prepareBacklog(first, count);
		ServerCpu.Used written = writing.usedFor(count);
		settle();
		sleepUntil(backlog.allDueBy().plusMillis(200));
		CallLog.Recorder recorder = CallLog.expect(first, count);
		Counts before = countsOf(system);
		ServerCpu.Mark draining = this.serverCpu.mark();
		long startedAt = CallLog.nowMicros();
		system.start();
		double startup = (CallLog.nowMicros() - startedAt) / 1e6;
		recorder.awaitAll(startedAt + BURST_CAP.toNanos() / 1_000);
		Counts ran = countsOf(system).minus(before);
		result.drainCpu = draining.usedFor(count);
		long[] firstAndLast = recorder.firstAndLastRun();
		int done = recorder.ran();
		double seconds = (firstAndLast[1] - firstAndLast[0]) / 1e6;
		result.throughput = (done > 1 && seconds > 0) ? (done - 1) / seconds : Double.NaN;
		result.burstText = String.format(Locale.ROOT,
				"%,.0f calls/s; the last ran %.1f s after the instance was started (its startup: %.1f s)",
				result.throughput, (firstAndLast[1] - startedAt) / 1e6, startup);
		CallLog.Lateness lateness = recorder.lateness();
		if (lateness.missing() > 0 || lateness.twice() > 0) {
			result.burstText += String.format(Locale.ROOT, " (%,d never ran, %,d ran twice)", lateness.missing(),
					lateness.twice());
		}
		result.burstStatements = (backlog.scheduling().statements() + ran.statements()) / (double) count;
		result.burstCommits = (backlog.scheduling().commits() + ran.commits()) / (double) count;
		System.err.printf("  burst: %s%n  burst: %,d statements to schedule, %,d to run and finish:%n%s",
				result.burstText, backlog.scheduling().statements(), ran.statements(), ran.describe("    "));
		System.err.printf("  burst: database CPU per 1,000 calls: %s to write them (ours: with its writing instance's "
				+ "start and stop), %s to run and finish them%n", written.text(), result.drainCpu.text());
	}

	/** D5: statements per second with nothing pending. */
	private void idle(DurableSystem system, Result result) throws InterruptedException {
		// Whatever the burst left to tidy up is not idling.
		Thread.sleep(2_000);
		Counts before = system.counter().counts();
		long start = System.nanoTime();
		Thread.sleep(this.size.idle.toMillis());
		Counts idle = system.counter().counts().minus(before);
		double seconds = (System.nanoTime() - start) / 1e9;
		result.idlePerSecond = idle.statements() / seconds;
		System.err.printf("  idle: %.2f statements/s over %.0f s:%n%s", result.idlePerSecond, seconds,
				idle.describe("    "));
	}

	/** D2, and D4's spread figure. */
	private void lateness(DurableSystem system, Result result) throws InterruptedException {
		int count = this.size.lateness;
		long first = take(count);
		CallLog.Recorder recorder = CallLog.expect(first, count);
		// The same delays, in the same order, for every system.
		SplittableRandom random = new SplittableRandom(42);
		long spacingNanos = this.size.latenessPacing.toNanos() / count;
		System.err.printf("  lateness: %,d calls over %d s%n", count, this.size.latenessPacing.toSeconds());
		Counts before = system.counter().counts();
		ServerCpu.Mark paced = this.serverCpu.mark();
		long start = System.nanoTime();
		long lastDue = 0;
		for (int i = 0; i < count; i++) {
			// Paced against absolute times: a late wake-up of this thread is caught up on, not carried.
			long target = start + i * spacingNanos;
			long wait;
			while ((wait = target - System.nanoTime()) > 0) {
				LockSupport.parkNanos(wait);
			}
			Delay delay = Delay.SPREAD.get(random.nextInt(Delay.SPREAD.size()));
			long due = CallLog.nowMicros() + delay.micros();
			system.schedule(first + i, delay, due);
			lastDue = Math.max(lastDue, due);
		}
		recorder.awaitAll(lastDue + system.lookInterval().toNanos() / 1_000 + GRACE.toNanos() / 1_000);
		Counts counts = system.counter().counts().minus(before);
		result.pacedCpu = paced.usedFor(count);
		result.lateness = recorder.lateness();
		result.spreadStatements = counts.statements() / (double) count;
		result.spreadCommits = counts.commits() / (double) count;
		System.err.printf("  lateness: %s%n  lateness: %,d statements:%n%s  lateness: database CPU per 1,000 calls %s%n",
				result.lateness.text(), counts.statements(), counts.describe("    "), result.pacedCpu.text());
	}

	/**
	 * D1: one call after the other, due in an hour, alone and each in a transaction of its own. The
	 * two alternate in {@link #ROUNDS} rounds, and each figure is the median of its rounds' means:
	 * on 2 shared cores a build starting beside us shifts a round or two, not the median. The
	 * database is settled after the warm-up, when the table holds its calls: statistics of an empty
	 * table would have PostgreSQL scan it whole for each lookup of db-scheduler's.
	 */
	private void scheduleCost(DurableSystem system, Result result) throws SQLException {
		for (int i = 0; i < this.size.scheduleWarmUp; i++) {
			schedule(system);
			system.transactions().executeWithoutResult((status) -> schedule(system));
		}
		settle();
		int perRound = this.size.schedule / ROUNDS;
		long[][] alone = new long[ROUNDS][perRound];
		long[][] inTransaction = new long[ROUNDS][perRound];
		long[][] wholeTransaction = new long[ROUNDS][perRound];
		Counts aloneCounts = new Counts(0, 0, Map.of());
		Counts transactionCounts = new Counts(0, 0, Map.of());
		for (int round = 0; round < ROUNDS; round++) {
			Counts before = system.counter().counts();
			for (int i = 0; i < perRound; i++) {
				long start = System.nanoTime();
				schedule(system);
				alone[round][i] = System.nanoTime() - start;
			}
			Counts afterAlone = system.counter().counts();
			for (int i = 0; i < perRound; i++) {
				long[] callNanos = inTransaction[round];
				int index = i;
				long start = System.nanoTime();
				system.transactions().executeWithoutResult((status) -> {
					long callStart = System.nanoTime();
					schedule(system);
					callNanos[index] = System.nanoTime() - callStart;
				});
				wholeTransaction[round][i] = System.nanoTime() - start;
			}
			aloneCounts = aloneCounts.plus(afterAlone.minus(before));
			transactionCounts = transactionCounts.plus(system.counter().counts().minus(afterAlone));
		}
		int calls = perRound * ROUNDS;
		result.scheduleAlone = Timing.of(alone, aloneCounts, calls);
		result.scheduleInTransaction = Timing.of(inTransaction, transactionCounts, calls);
		result.wholeTransaction = Timing.of(wholeTransaction, transactionCounts, calls);
		System.err.printf("  schedule alone: %s%n%s", result.scheduleAlone.text(), aloneCounts.describe("    "));
		System.err.printf("  schedule in a transaction: %s; whole transaction %s%n%s",
				result.scheduleInTransaction.text(), result.wholeTransaction.text(), transactionCounts.describe("    "));
	}

	/**
	 * F1: calls that fail twice, then succeed, each retried by the system itself after the same
	 * fixed backoff: what they cost from the first write to the last success, how many threads sat
	 * out a backoff meanwhile, and whether each call ran exactly three times and left no row.
	 */
	private void retries(DurableSystem system, Result result) throws Exception {
		int count = this.retriedCalls;
		long first = take(count);
		CallLog.Recorder succeeded = CallLog.expect(first, count);
		RetriedCalls.Recorder runs = RetriedCalls.expect(first, count);
		long leftOut = PlannedFailureFilter.leftOut();
		System.err.printf(Locale.ROOT,
				"  retries: %,d calls that fail twice, then succeed, each first due %d ms after it is written, "
						+ "retried after %d ms%n",
				count, RetriedCalls.FIRST_DELAY_MILLIS, RetriedCalls.BACKOFF_MILLIS);
		Counts before = system.counter().counts();
		ServerCpu.Mark cpu = this.serverCpu.mark();
		long start = CallLog.nowMicros();
		long written;
		boolean all;
		Counts counts;
		BackoffThreads threads = BackoffThreads.sample(system::isRetryFrame);
		try {
			long lastDue = start;
			for (int i = 0; i < count; i++) {
				long due = CallLog.nowMicros() + RetriedCalls.FIRST_DELAY_MILLIS * 1_000;
				system.scheduleRetried(first + i, due);
				lastDue = due;
			}
			written = CallLog.nowMicros();
			// Each of a call's runs may wait for a look of the system's; and all the runs, three a
			// call, at a thousand a second at least.
			long deadline = lastDue + RetriedCalls.FAILURES * RetriedCalls.BACKOFF_MILLIS * 1_000
					+ RetriedCalls.RUNS * system.lookInterval().toNanos() / 1_000 + GRACE.toNanos() / 1_000
					+ count * RetriedCalls.RUNS * 1_000L;
			all = succeeded.awaitAll(deadline);
			// A call's success is its method's return; its row goes after, ours in a batch.
			Thread.sleep(FINISHED.toMillis());
			counts = system.counter().counts().minus(before);
			result.retriedCpu = cpu.usedFor(count);
		}
		finally {
			threads.close();
		}
		long[] firstAndLast = succeeded.firstAndLastRun();
		CallLog.Lateness late = succeeded.lateness();
		// By now (a backoff after the last success) a run too many would have started on the
		// systems that hold their retries; a row left says more, whatever the system's polling.
		String rowsLeft = retriedRowsLeft(system);
		String problems = runs.problems();
		if (rowsLeft != null) {
			problems = ((problems != null) ? problems + "; " : "") + "rows left: " + rowsLeft;
		}
		result.retriedStatements = counts.statements() / (double) count;
		result.retriedCommits = counts.commits() / (double) count;
		String time = all ? String.format(Locale.ROOT, "%.1f s", (firstAndLast[1] - start) / 1e6)
				: String.format(Locale.ROOT, "%,d of %,d never succeeded", late.missing(), count);
		result.retriedText = String.format(Locale.ROOT,
				"%.2f (+%.2f) statements per call; database CPU %s per 1,000 calls; all succeeded after %s "
						+ "(written in %.1f s); %d threads blocked (most in %,d looks); %s",
				result.retriedStatements, result.retriedCommits, result.retriedCpu.text(), time,
				(written - start) / 1e6, threads.most(), threads.samples(),
				(problems == null) ? "each ran 3 times" : "CHECK FAILED: " + problems);
		System.err.printf(Locale.ROOT,
				"  retries: %s%n  retries: success after the earliest it could come (first due + 2 backoffs): %s; "
						+ "live threads at most %d%s; %,d log lines of planned failures left out%n"
						+ "  retries: runs per call %s; %,d statements:%n%s",
				result.retriedText, late.text(), threads.peakThreads(),
				(threads.example() != null) ? "; blocked, such as " + threads.example() : "",
				PlannedFailureFilter.leftOut() - leftOut, runs.runsPerCall(), counts.statements(),
				counts.describe("    "));
		if (problems != null) {
			System.err.printf("  retries: CHECK FAILED: %s%n", problems);
		}
	}

	/**
	 * What is left of F1's rows in the system's database, read on a connection of its own that no
	 * count sees.
	 * @return such as {@code 3 FAILED, 4 runs}, or {@code null} if none is left
	 */
	private String retriedRowsLeft(DurableSystem system) throws SQLException {
		Properties login = new Properties();
		login.setProperty("user", Database.user(this.url));
		try (Connection connection = DriverManager.getConnection(this.url, login);
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery(system.retriedRowsQuery())) {
			StringBuilder text = new StringBuilder();
			while (rows.next()) {
				text.append((text.length() > 0) ? ", " : "")
					.append(rows.getLong(2))
					.append(' ')
					.append(rows.getString(1));
			}
			return (text.length() > 0) ? text.toString() : null;
		}
	}

	private void schedule(DurableSystem system) {
		long callNumber = take(1);
		system.schedule(callNumber, Delay.ONE_HOUR, CallLog.nowMicros() + Delay.ONE_HOUR.micros());
	}

	private void settle() throws SQLException {
		this.server.settle(this.database);
	}

	/** Numbers for {@code count} new calls: no two calls of the run share a number. */
	private long take(int count) {
		long first = this.nextCall;
		this.nextCall += count;
		return first;
	}

	/** The instance's counts, or none before it exists (ours counts per application context). */
	private static Counts countsOf(DurableSystem system) {
		CountingDataSource counter = system.counter();
		return (counter != null) ? counter.counts() : new Counts(0, 0, Map.of());
	}

	private static void sleepUntil(Instant instant) throws InterruptedException {
		long millis = Duration.between(Instant.now(), instant).toMillis();
		if (millis > 0) {
			System.err.printf("  waiting %.1f s until every call is overdue%n", millis / 1e3);
			Thread.sleep(millis);
		}
	}

	/**
	 * The run's database is in the title: a table of one is not to be read as the other's; and so
	 * are the rows of a pass of some rows only, measured without the steps before them.
	 */
	private static String header(Size size, Set<String> rows, String version, String settings) {
		String some = rows.equals(ROWS.keySet()) ? "" : ", rows " + String.join(", ", rows) + " only";
		return String.format(Locale.ROOT,
				"## Durable delayed calls on %s, %s pass%s%n%n%s, %s %s, %d cores, %s; %s (%s), one database per "
						+ "system%n%n",
				version, size.name().toLowerCase(Locale.ROOT), some, LocalDate.now(),
				System.getProperty("java.vm.name"),
				System.getProperty("java.runtime.version"), Runtime.getRuntime().availableProcessors(),
				System.getProperty("os.name"), version, settings);
	}

	private static String table(Map<String, Result> results, Size size, Set<String> shown, int retriedCalls) {
		StringBuilder table = new StringBuilder("| row | what |");
		results.keySet().forEach((label) -> table.append(' ').append(label).append(" |"));
		table.append("\n|---|---|").append("---|".repeat(results.size())).append('\n');
		row(table, shown, "D1", "schedule one call, alone (autocommit): µs per call", results,
				(r) -> r.scheduleAlone.text());
		row(table, shown, "D1t", "schedule one call in a transaction: µs for the call (for the whole transaction)",
				results, (r) -> r.scheduleInTransaction.micros() + " (" + r.wholeTransaction.micros() + ")");
		row(table, shown, "D2",
				String.format(Locale.ROOT, "lateness, %,d calls paced over %d s, delays 0.5–20 s", size.lateness,
						size.latenessPacing.toSeconds()),
				results, (r) -> r.lateness.text());
		row(table, shown, "D3",
				String.format(Locale.ROOT, "throughput, %,d calls overdue when an instance starts", size.burst),
				results, (r) -> r.burstText);
		row(table, shown, "D4", "statements per call: schedule + run + finish (+ commits)", results,
				(r) -> String.format(Locale.ROOT, "%.2f (+%.2f) paced; %.2f (+%.2f) burst", r.spreadStatements,
						r.spreadCommits, r.burstStatements, r.burstCommits));
		row(table, shown, "D4s", "of which scheduling one call, alone / in a transaction (+ commits)", results,
				(r) -> String.format(Locale.ROOT, "%.2f / %.2f (+%.2f)", r.scheduleAlone.statementsPerCall(),
						r.scheduleInTransaction.statementsPerCall(), r.scheduleInTransaction.commitsPerCall()));
		row(table, shown, "D5",
				String.format(Locale.ROOT, "idle statements per second (over %d s)", size.idle.toSeconds()),
				results, (r) -> String.format(Locale.ROOT, "%.2f", r.idlePerSecond));
		row(table, shown, "D6", "database CPU per 1,000 calls: paced (D2) / backlog drain (D3)", results,
				(r) -> r.pacedCpu.text() + " / " + r.drainCpu.text());
		row(table, shown, "F1",
				String.format(Locale.ROOT, "retries, %,d calls that fail twice, then succeed, after a fixed %d ms "
						+ "backoff", retriedCalls, RetriedCalls.BACKOFF_MILLIS),
				results, (r) -> r.retriedText);
		return table.toString();
	}

	private static void row(StringBuilder table, Set<String> shown, String id, String title,
			Map<String, Result> results, java.util.function.Function<Result, String> cell) {
		if (!shown.contains(id)) {
			return;
		}
		table.append("| ").append(id).append(" | ").append(title).append(" |");
		for (Result result : results.values()) {
			String text;
			try {
				text = cell.apply(result);
			}
			catch (RuntimeException ex) {
				text = null;
			}
			if (text == null) {
				// A system that failed before this row's step: its figures are unset, its texts null.
				text = (result.failure != null) ? "failed: " + result.failure : "–";
			}
			table.append(' ').append(text.replace("|", "\\|")).append(" |");
		}
		table.append('\n');
	}

	private static String footer(Size size, String database, Map<String, Result> results, boolean retries) {
		StringBuilder footer = new StringBuilder(String.format(Locale.ROOT,
				"%nD1: %,d calls of each kind, alternating in %d rounds, after %,d unmeasured, due in an hour; "
						+ "the median of the rounds' means. D2: lateness against the due time read before each "
						+ "call; \"early\" ran before it. D4 paced: everything sent while the D2 calls were "
						+ "scheduled, waited (polling included) and ran, over their number; burst: the D3 calls' "
						+ "scheduling and their run. A batch counts as one statement; commits are counted apart. "
						+ "D6: the database server's own CPU time, user and system, over a step, per 1,000 of its "
						+ "calls; its processes found by id, never by name (PostgreSQL: the postmaster, every "
						+ "backend and background worker, and those that ended during the step; MariaDB: mariadbd). "
						+ "Paced: the span of D4 paced; backlog drain: from the instance's start to the last D3 "
						+ "call's run, their writing (in D4 burst) left out. The kernel counts in 10 ms ticks: a "
						+ "figure is good to %d ticks over its step, %s ms per 1,000 calls over D2's %,d calls and "
						+ "%s over D3's %,d; the seconds in all beside it say how much it rests on. %s",
				size.schedule, ROUNDS, size.scheduleWarmUp, ServerCpu.ERROR_TICKS,
				ServerCpu.Used.errorPerThousandCalls(size.lateness), size.lateness,
				ServerCpu.Used.errorPerThousandCalls(size.burst), size.burst,
				DbSchedulerSystem.configurations(database)));
		if (retries) {
			footer.append(String.format(Locale.ROOT, "%n%nR1: each call first due %d ms after it was written, one "
					+ "after the other through the running instance; its first two runs throw, its third returns. "
					+ "Ours: @Retryable(maxRetries = %d, delay = %d) (Spring's) on the durable method, with no "
					+ "@EnableResilientMethods; db-scheduler: MaxRetriesFailureHandler(%d, OnFailureRetryLater(%d "
					+ "ms)). Statements, commits and database CPU from the first write until %d ms after the last "
					+ "success (the last rows' deletes in); the time from the first write to the last success, at "
					+ "least the writing, %d ms and two backoffs; threads blocked: the most threads seen at once "
					+ "whose stack sleeps (Thread.sleep) under Spring's retry code or the system's own, looked at "
					+ "every %d ms. Checked: each call ran %d times, ours was told the attempt the harness counted, "
					+ "no row was left.",
					RetriedCalls.FIRST_DELAY_MILLIS, RetriedCalls.MAX_RETRIES, RetriedCalls.BACKOFF_MILLIS,
					RetriedCalls.MAX_RETRIES, RetriedCalls.BACKOFF_MILLIS, FINISHED.toMillis(),
					RetriedCalls.FIRST_DELAY_MILLIS, BackoffThreads.PERIOD_MILLIS, RetriedCalls.RUNS));
		}
		footer.append(String.format(Locale.ROOT, "%n%nThe machine during each system's turn: CPU that other work "
				+ "used, in cores (near 0 for figures worth comparing), and what a one-row autocommit insert took "
				+ "before and after (the disk's flush):"));
		results.forEach((label, result) -> footer.append(String.format(Locale.ROOT, " %s %.2f cores, %.0f/%.0f µs;",
				label, result.otherCores, result.commitBefore, result.commitAfter)));
		footer.setLength(footer.length() - 1);
		return footer.append(".\n").toString();
	}

	/** How much of each step: FULL for the table, QUICK to see that everything works. */
	enum Size {

		FULL(10_000, Duration.ofSeconds(20), 2_000, Duration.ofSeconds(10), 500, 2_000, 10_000),

		QUICK(2_000, Duration.ofSeconds(5), 500, Duration.ofSeconds(5), 200, 500, 2_000);

		final int burst;

		final Duration idle;

		final int lateness;

		final Duration latenessPacing;

		final int scheduleWarmUp;

		final int schedule;

		/** F1's calls, unless {@code --retried-calls} says otherwise. */
		final int retried;

		Size(int burst, Duration idle, int lateness, Duration latenessPacing, int scheduleWarmUp, int schedule,
				int retried) {
			this.burst = burst;
			this.idle = idle;
			this.lateness = lateness;
			this.latenessPacing = latenessPacing;
			this.scheduleWarmUp = scheduleWarmUp;
			this.schedule = schedule;
			this.retried = retried;
		}

	}

	/** What a pass does for its rows, in this order. */
	enum Step {

		/** D3, and half of D4 and D6. */
		BURST,

		/** D5. */
		IDLE,

		/** D2, and half of D4 and D6. */
		LATENESS,

		/** D1, D1t, D4s. */
		SCHEDULE,

		/** F1. */
		RETRIES

	}

	/** A typical mean and the p99 of some rounds of durations, with the statements they took. */
	record Timing(double meanMicros, double p99Micros, double statementsPerCall, double commitsPerCall) {

		/** The median of the rounds' means, and the p99 of every call. */
		static Timing of(long[][] rounds, Counts counts, int calls) {
			double[] means = Arrays.stream(rounds)
				.mapToDouble((round) -> Arrays.stream(round).average().orElse(Double.NaN))
				.sorted()
				.toArray();
			double median = means[means.length / 2] / 1e3;
			long[] all = Arrays.stream(rounds).flatMapToLong(Arrays::stream).sorted().toArray();
			double p99 = all[Math.max(0, (int) Math.ceil(0.99 * all.length) - 1)] / 1e3;
			return new Timing(median, p99, counts.statements() / (double) calls, counts.commits() / (double) calls);
		}

		String micros() {
			return String.format(Locale.ROOT, "%s µs", number(this.meanMicros));
		}

		String text() {
			return String.format(Locale.ROOT, "%s µs (p99 %s)", number(this.meanMicros), number(this.p99Micros));
		}

		private static String number(double micros) {
			return String.format(Locale.ROOT, (micros >= 100) ? "%,.0f" : "%.1f", micros);
		}

	}

	/** One system's figures; a step that failed leaves its fields, and those of the steps after it, unset. */
	static final class Result {

		/** Why the system stopped short, if it did. */
		String failure;

		Timing scheduleAlone;

		Timing scheduleInTransaction;

		Timing wholeTransaction;

		CallLog.Lateness lateness;

		double throughput = Double.NaN;

		String burstText;

		double burstStatements = Double.NaN;

		double burstCommits = Double.NaN;

		double spreadStatements = Double.NaN;

		double spreadCommits = Double.NaN;

		double idlePerSecond = Double.NaN;

		/** D6: the database server's CPU time over the D2 calls, and over the D3 calls' run. */
		ServerCpu.Used pacedCpu;

		ServerCpu.Used drainCpu;

		/** F1: its cell, and what it is made of. */
		String retriedText;

		double retriedStatements = Double.NaN;

		double retriedCommits = Double.NaN;

		ServerCpu.Used retriedCpu;

		/** CPU that work other than this run used meanwhile, in cores. */
		double otherCores = Double.NaN;

		/** A one-row autocommit insert before and after the system's turn, in µs. */
		double commitBefore = Double.NaN;

		double commitAfter = Double.NaN;

	}

}
