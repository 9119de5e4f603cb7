package io.github.wheeltimer.benchmarks.durable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

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
 * wheel-timer-benchmarks/run-durable --rows D7 --waiting 1000000      # D7 on a million waiting calls
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
 * instance's start to the last run, its calls' writing left out. On PostgreSQL, the updates of the
 * system's table over the lateness calls are read from {@code pg_stat_user_tables}, with how many
 * were HOT (no index entry written), beside the rows its claim took.
 * <p>
 * D7, cost flat in what waits, only when {@code --rows} names it, after every other step: the idle
 * span and the lateness calls (D5; D2, D4 paced, D6 paced) on the table as the pass found it, then
 * again on top of {@code --waiting} calls (10,000,000; 1,000,000 with {@code --quick}) due 30 to 60
 * days ahead, written straight into the system's table by SQL ({@link WaitingCalls}); then the
 * plans of the system's poll (ours: its claim and its gate, from {@code ClaimAndGateStatements}) on
 * that table, and its bytes per waiting call.
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
 * <p>
 * This class runs the pass: it starts the server, gives each system a database of its own and
 * writes the report. {@link DurableOptions} reads the command line, {@link DurableSteps} measures,
 * {@link DurableResult} holds a system's figures and {@link DurableReport} writes them out.
 */
public final class DurableBenchmark {

	private DurableBenchmark() {
	}

	public static void main(String[] args) throws Exception {
		DurableOptions options = DurableOptions.parse(args);
		Map<String, DurableResult> results = new LinkedHashMap<>();
		String version;
		String settings;
		try (Database server = Database.start(options.databaseId())) {
			version = server.version();
			settings = String.format("%s; %s between steps", server.settings(), server.betweenSteps());
			ServerCpu serverCpu = new ServerCpu(server.serverPid());
			System.err.printf("Database server: process %d and its children%n", serverCpu.pid());
			DurableSteps steps = new DurableSteps(options, server, serverCpu);
			for (String system : options.systems()) {
				String database = "bench_" + system;
				String url = server.createDatabase(database);
				steps.useDatabase(database, url);
				String label = system;
				DurableResult result = new DurableResult();
				result.commitBefore = server.commitMicros();
				MachineLoad before = MachineLoad.now(serverCpu);
				try (DurableSystem durable = create(system, url)) {
					label = durable.label();
					System.err.printf("== %s%n", label);
					steps.measure(durable, result);
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
		String report = DurableReport.header(options.size(), options.rows(), version, settings)
				+ DurableReport.table(results, options.size(), options.rows(), options.retriedCalls())
				+ DurableReport.footer(options.size(), options.databaseId(), results, options.rows().contains("F1"),
						options.rows().contains("D7"))
				+ DurableReport.waitingPlans(results);
		System.out.println(report);
		// PostgreSQL's keeps its name, which earlier runs and BENCHMARKS.md refer to.
		String suffix = options.databaseId().equals(Database.POSTGRESQL) ? "" : "-" + options.databaseId();
		Path file = Path.of("wheel-timer-benchmarks", "target", "durable-report" + suffix + ".md");
		if (Files.isDirectory(file.getParent())) {
			Files.writeString(file, report);
			System.err.println("Written to " + file);
		}
		// A system's threads that failed to stop must not keep the JVM alive.
		System.exit(0);
	}

	private static DurableSystem create(String system, String url) throws SQLException {
		return switch (system) {
			case "defaults" -> DbSchedulerSystem.defaults(url);
			case "tuned" -> DbSchedulerSystem.tuned(url);
			case "ours" -> new OursSystem(url);
			default -> throw new IllegalArgumentException(
					"Unknown system " + system + ", expected one of " + DurableOptions.ALL_SYSTEMS);
		};
	}

}
