package io.github.wheeltimer.benchmarks.durable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import io.github.wheeltimer.benchmarks.durable.ClusterOptions.Config;

/**
 * Durable calls on a cluster, with faults: ours ({@code @DelayedExecution(durable = true)}) and
 * db-scheduler, each with one and with two instances, where every instance is a JVM of its own
 * ({@link ClusterInstance}) that the harness kills with SIGKILL, on one real database server
 * started in this process, PostgreSQL or MariaDB, a fresh database per system.
 *
 * <pre>
 * wheel-timer-benchmarks/run-cluster                   # builds, then the full pass (about 7 minutes)
 * wheel-timer-benchmarks/run-cluster --quick           # smaller counts, fewer kills (about 4.5 minutes)
 * wheel-timer-benchmarks/run-cluster --systems ours    # some systems only: ours, ours-short, defaults, tuned
 * wheel-timer-benchmarks/run-cluster --systems ours --only restart   # K8 alone
 * wheel-timer-benchmarks/run-cluster --database mariadb              # on MariaDB 10.11 (default: postgresql)
 * </pre>
 *
 * The systems: ours with its defaults (lease 10 s, heartbeat 2 s, poll 2 s, horizon 10 s); ours
 * with a short lease (lease 3 s, heartbeat 1 s, poll 1 s); db-scheduler 16.12 with its defaults
 * (polling every 10 s, heartbeat 5 min, dead after 6 missed heartbeats); db-scheduler tuned as in
 * {@link DurableBenchmark} (polling every 100 ms, lock-and-fetch; on MariaDB, its defaults with
 * {@code MariaDBJdbcCustomization} and tuned with {@code MySQL8JdbcCustomization}, whose generic
 * lock-and-fetch MariaDB's refuses: see {@link DbSchedulerSystem}). db-scheduler at its heartbeat
 * would find a killed instance's executions only after 30 to 40 minutes: for the rows with kills,
 * both of its columns run with a 2 s heartbeat (its other defaults kept: dead after 12 s, looked
 * for every 4 s), and its defaults' figure is computed from its configuration and marked so.
 * <p>
 * Truth: every instance appends each call its callers made and each run it started and ended to
 * a file of its own ({@link RunLog}); the parent computes every figure from those files, and from
 * the database itself right after a kill (which calls the dead instance held). Duplicates are
 * counted by call number. Statements come from a {@link CountingDataSource} in every instance,
 * whose totals each instance reports.
 * <p>
 * For each system, in this order:
 * <ol>
 * <li>instance a starts; K1: throughput under a load above capacity: 4 caller threads per
 * instance make calls (delay 1 s, no work) back to back for some seconds; calls made over the
 * time from the first one's due time to the last run (so the delay itself does not count, the
 * tail of the runs does). K2: the statements the instances sent meanwhile, per call;</li>
 * <li>K3: burst: the harness writes {@code N} calls due at one instant some seconds ahead, the
 * instances already running (ours: rows written straight into its table, as a big transaction's
 * calls would be; db-scheduler: its client's batch schedule); from the due instant to the last
 * run, and the lateness of each call's first run against the due instant (none may be early);</li>
 * <li>instance b starts; K1, K2 and K3 again with two instances (K3b: which instance ran how many
 * of the burst's calls); K7: a live instance that lost calls to another (ours' taken-over and
 * fenced counts) or a call that ran twice, while nothing was killed, is a false death; K9: the
 * database server's own CPU time per 1,000 calls ({@link ServerCpu}) over K1's and K3's steps, with
 * one and with two instances;</li>
 * <li>runs now do 50 ms of work, so that calls are in flight at a kill. K4 and K6: both instances
 * make 100 calls/s each, delays 1, 2 and 5 s; halfway, once b has a call in flight, b is killed.
 * The database says which calls b held (ours: rows it owned, claimed or running; db-scheduler:
 * executions it had picked); K4 is when they were released to the survivor (polled every 50 ms)
 * and when the last of those due by then ran; K6 is the lateness of every call of the load, by
 * the run that did its work;</li>
 * <li>K5: while a makes calls, an instance b is started, makes calls for 2 s (1.5 s in the quick
 * pass) and, once it has a call in flight, is killed; again and again; then every call made must
 * have run once. A call that ran twice is by design if its first run started on an instance
 * killed after that start (a call in flight runs again: at least once, in both systems); any
 * other second run is a duplicate of a call that had not started, which ours must never make.</li>
 * <li>K8, ours at its defaults only: a stops, and one instance alone on the database makes calls
 * as in K4 until, halfway through K4's load and once it has a call in flight, it is killed and
 * started again at once: the restart is the next one killed, a few times over. First with the
 * name the engine makes up (process id and host: a new name at every start), whose restart takes
 * the dead instance for dead only once it has itself been connected for a lease; then (K8b) with
 * {@code wheel-timer.durable.instance-name} the same for every start, whose restart takes its
 * predecessor's calls as soon as their heartbeat is seen to have stopped. Figures as in K4 (which
 * calls the dead instance held, by its instance id; when they were released, polled every 50 ms
 * while the restart starts; when the last of them due by then ran) and K5 (calls that ran twice),
 * with the restart's own startup, and any run that started before its due time. db-scheduler has
 * no such notion: a scheduler restarted under its name finds its previous run's executions only
 * as dead ones, after its heartbeats' limit (K4).</li>
 * </ol>
 * With {@code --only restart}, a pass measures K8 alone (and, without {@code --systems}, ours
 * alone: the other systems have no figure for it). The table is printed and written to
 * {@code wheel-timer-benchmarks/target/cluster-report.md}; instance logs and run files stay in
 * {@code wheel-timer-benchmarks/target/cluster/}. On MariaDB, {@code cluster-report-mariadb.md}
 * and {@code cluster-mariadb/}.
 * <p>
 * The harness's own SQL (which calls a killed instance held, and when they were released) is
 * the same on both ({@link ClusterSql} says how).
 * <p>
 * This class runs the pass: it starts the server, takes each system through its steps and writes
 * the report. {@link ClusterOptions} reads the command line and knows the systems,
 * {@link ClusterSteps} measures, with the instances of {@link ClusterInstances} and the SQL of
 * {@link ClusterSql}; {@link ClusterFigures} computes each row's figures, {@link ClusterResult}
 * holds a system's, and {@link ClusterReport} writes them out.
 */
public final class ClusterBenchmark {

	private ClusterBenchmark() {
	}

	public static void main(String[] args) throws Exception {
		ClusterOptions options = ClusterOptions.parse(args);
		long start = System.nanoTime();
		Map<String, ClusterResult> results = new LinkedHashMap<>();
		String databaseId = options.databaseId();
		// PostgreSQL's keep their names, which earlier runs and BENCHMARKS.md refer to.
		String suffix = databaseId.equals(Database.POSTGRESQL) ? "" : "-" + databaseId;
		String version;
		String settings;
		Path root = Path.of("wheel-timer-benchmarks", "target", "cluster" + suffix);
		try (Database server = Database.start(databaseId)) {
			version = server.version();
			settings = server.settings();
			ServerCpu serverCpu = new ServerCpu(server.serverPid());
			System.err.printf("Database server: process %d and its children%n", serverCpu.pid());
			ClusterSteps steps = new ClusterSteps(options.size(), options.scope(), server, serverCpu);
			for (Config config : options.configs()) {
				ClusterResult result = new ClusterResult();
				result.commitBefore = server.commitMicros();
				MachineLoad before = MachineLoad.now(serverCpu);
				System.err.printf("== %s%n", config.label());
				try {
					steps.begin(config, root);
					steps.measure(result);
				}
				catch (Exception | LinkageError ex) {
					// A system that fails must not end the run; the rows it got through keep their figures.
					System.err.printf("%s failed: %s%n", config.label(), ex);
					ex.printStackTrace();
					result.failure = ex.getClass().getSimpleName() + ": " + ex.getMessage();
				}
				finally {
					steps.end();
				}
				result.otherCores = MachineLoad.now(serverCpu).otherCoresSince(before, steps.childCpuSeconds());
				result.commitAfter = server.commitMicros();
				System.err.printf(Locale.ROOT, "  other work on the machine meanwhile: %.2f cores; a commit took %.0f µs "
						+ "before, %.0f µs after%n", result.otherCores, result.commitBefore, result.commitAfter);
				ClusterReport.explainUnmeasured(config, result);
				results.put(config.label(), result);
			}
		}
		double minutes = (System.nanoTime() - start) / 60e9;
		String report = ClusterReport.header(options.size(), options.scope(), version, settings)
				+ ClusterReport.table(results, options.size(), options.scope())
				+ ClusterReport.footer(options.size(), options.scope(), databaseId, results, minutes)
				+ ClusterReport.targets(results);
		System.out.println(report);
		Path file = root.getParent().resolve("cluster-report" + suffix + ".md");
		if (Files.isDirectory(file.getParent())) {
			Files.writeString(file, report);
			System.err.println("Written to " + file);
		}
		System.exit(0);
	}

}
