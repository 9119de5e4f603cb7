package io.github.wheeltimer.benchmarks.durable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import com.github.kagkarlsson.scheduler.SchedulerBuilder;
import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariDataSource;
import io.github.wheeltimer.durable.jdbc.DurableDialect;
import io.github.wheeltimer.durable.jdbc.DurableDialects;

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
 * the same on both: our tables' names unquoted in capitals, as the scripts create them (MariaDB
 * on Linux tells case apart; PostgreSQL folds them), and ids and instants bound as our dialect
 * for the database binds them.
 */
public final class ClusterBenchmark {

	/** Numbers reserved for each instance's share of a load: no two calls of the run share one. */
	private static final int BLOCK = 1_000_000;

	/** Caller threads per instance for K1. */
	private static final int THREADS = 4;

	/** K4-K6: calls per second each instance makes. */
	private static final double PACED_RATE = 100;

	/**
	 * K4-K6: each run's work, so that calls are in flight at a kill (at 100 calls/s per instance,
	 * a few per instance).
	 */
	private static final long WORK_MILLIS = 50;

	/** How long past the last due time waits go on before the calls left count as never run. */
	private static final Duration GRACE = Duration.ofSeconds(20);

	private static final String OURS_METHOD = "cluster.oneSecond";

	/** K8: the one system that has it, at its defaults. */
	private static final String RESTARTED = "ours";

	/**
	 * What K8's settings promise (lease 10 s, heartbeat 2 s, poll 2 s). A made-up name is a
	 * stranger: its instance takes nobody's calls over before it has been connected for a lease.
	 * A configured one finds its predecessor's row at its start, and takes its calls at the first
	 * poll that sees that row's heartbeat older than half the lease, once it has itself reached the
	 * database for two heartbeat intervals.
	 */
	private static final String RESTART_EXPECTED = "K8, the restart's startup, then a lease of its own (10 s) and up "
			+ "to a poll (2 s); K8b, the restart's first poll that finds the dead instance's heartbeat older than half "
			+ "the lease (5 s) once the restart has reached the database for two heartbeat intervals (4.1 s): its "
			+ "startup, then 4.1 s and up to a poll";

	/** K8: blank, so that the engine makes a name up, as for an application that does not set one. */
	private static final List<String> GENERATED_NAME = List.of("wheel-timer.durable.instance-name=",
			"work=" + WORK_MILLIS);

	/** K8b: one name for every start, as a StatefulSet's pod or a systemd unit has. */
	private static final List<String> CONFIGURED_NAME = List.of("wheel-timer.durable.instance-name=worker-0",
			"work=" + WORK_MILLIS);

	private static final List<String> SHORT_LEASE = List.of("wheel-timer.durable.lease=3s",
			"wheel-timer.durable.heartbeat-interval=1s", "wheel-timer.durable.poll-interval=1s");

	private static final List<Config> CONFIGS = List.of(
			new Config("ours", "ours (defaults)", "ours", List.of(), List.of(), Duration.ofSeconds(2),
					Duration.ofSeconds(40),
					"lease 10 s less up to a heartbeat (2 s), plus up to a poll (2 s): 8–12 s"),
			new Config("ours-short", "ours (lease 3 s, heartbeat 1 s, poll 1 s)", "ours", SHORT_LEASE, SHORT_LEASE,
					Duration.ofSeconds(1), Duration.ofSeconds(30), "lease 3 s less up to 1 s, plus up to 1 s: 2–4 s"),
			new Config("defaults", "db-scheduler (defaults)", "db-scheduler", List.of(), List.of("heartbeat=2s"),
					Duration.ofSeconds(10), Duration.ofSeconds(60), null),
			new Config("tuned", "db-scheduler (tuned)", "db-scheduler", List.of("poll=100ms", "lock-and-fetch=true"),
					List.of("poll=100ms", "lock-and-fetch=true", "heartbeat=2s"), Duration.ofMillis(100),
					Duration.ofSeconds(50), null));

	/**
	 * db-scheduler's own defaults, read from its builder: heartbeat 5 min, dead after 6 missed. It
	 * looks for dead executions every 2 heartbeats, so an execution picked just before a kill is
	 * found between 6 and 8 heartbeats later.
	 */
	private static final Duration DB_SCHEDULER_HEARTBEAT = SchedulerBuilder.DEFAULT_HEARTBEAT_INTERVAL;

	private static final int DB_SCHEDULER_MISSED = SchedulerBuilder.DEFAULT_MISSED_HEARTBEATS_LIMIT;

	private final Size size;

	private final Scope scope;

	private final Database server;

	/** K9: the server's processes, read before and after a step. */
	private final ServerCpu serverCpu;

	/** How our tables take ids and instants on this run's database. */
	private final DurableDialect dialect;

	private Config config;

	private String database;

	private String url;

	/** The harness's own connections to the system's database: never counted. */
	private HikariDataSource admin;

	private Path directory;

	private RunLog.Truth truth;

	private final Map<String, Integer> started = new HashMap<>();

	private final Map<String, ClusterChild> children = new LinkedHashMap<>();

	/** CPU seconds of this system's instances, read before each one ended. */
	private double childCpuSeconds;

	private long nextCall = 1;

	private ClusterBenchmark(Size size, Scope scope, Database server, ServerCpu serverCpu) {
		this.size = size;
		this.scope = scope;
		this.server = server;
		this.serverCpu = serverCpu;
		this.dialect = DurableDialects.forPlatform(server.id());
	}

	public static void main(String[] args) throws Exception {
		List<String> arguments = Arrays.asList(args);
		Size size = arguments.contains("--quick") ? Size.QUICK : Size.FULL;
		Scope scope = scopeArgument(args);
		List<Config> configs = configsArgument(args, scope);
		long start = System.nanoTime();
		Map<String, Result> results = new LinkedHashMap<>();
		String databaseId = Database.argument(args);
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
			ClusterBenchmark benchmark = new ClusterBenchmark(size, scope, server, serverCpu);
			for (Config config : configs) {
				Result result = new Result();
				result.commitBefore = server.commitMicros();
				MachineLoad before = MachineLoad.now(serverCpu);
				System.err.printf("== %s%n", config.label);
				try {
					benchmark.begin(config, root);
					benchmark.measure(result);
				}
				catch (Exception | LinkageError ex) {
					// A system that fails must not end the run; the rows it got through keep their figures.
					System.err.printf("%s failed: %s%n", config.label, ex);
					ex.printStackTrace();
					result.failure = ex.getClass().getSimpleName() + ": " + ex.getMessage();
				}
				finally {
					benchmark.end();
				}
				result.otherCores = MachineLoad.now(serverCpu).otherCoresSince(before, benchmark.childCpuSeconds);
				result.commitAfter = server.commitMicros();
				System.err.printf(Locale.ROOT, "  other work on the machine meanwhile: %.2f cores; a commit took %.0f µs "
						+ "before, %.0f µs after%n", result.otherCores, result.commitBefore, result.commitAfter);
				if (!config.system.equals("ours")) {
					result.computedRecovery = String.format(Locale.ROOT, " (with a 2 s heartbeat; at its default "
							+ "heartbeat: **%d–%d min, computed**)",
							DB_SCHEDULER_HEARTBEAT.multipliedBy(DB_SCHEDULER_MISSED).toMinutes(),
							DB_SCHEDULER_HEARTBEAT.multipliedBy(DB_SCHEDULER_MISSED + 2).toMinutes());
				}
				if (!config.id.equals(RESTARTED)) {
					result.restartNote = config.system.equals("ours") ? "not measured: at the defaults only"
							: "no such notion: a scheduler restarted under its name finds its previous run's picked "
									+ "executions only as dead ones, as in K4";
				}
				results.put(config.label, result);
			}
		}
		double minutes = (System.nanoTime() - start) / 60e9;
		String report = header(size, scope, version, settings) + table(results, size, scope)
				+ footer(size, scope, databaseId, results, minutes) + targets(results);
		System.out.println(report);
		Path file = root.getParent().resolve("cluster-report" + suffix + ".md");
		if (Files.isDirectory(file.getParent())) {
			Files.writeString(file, report);
			System.err.println("Written to " + file);
		}
		System.exit(0);
	}

	private static Scope scopeArgument(String[] args) {
		for (int i = 0; i < args.length - 1; i++) {
			if (args[i].equals("--only")) {
				if (!args[i + 1].equals("restart")) {
					throw new IllegalArgumentException("Unknown --only " + args[i + 1] + ", expected restart");
				}
				return Scope.RESTART;
			}
		}
		return Scope.ALL;
	}

	private static List<Config> configsArgument(String[] args, Scope scope) {
		for (int i = 0; i < args.length - 1; i++) {
			if (args[i].equals("--systems")) {
				List<String> ids = List.of(args[i + 1].split(","));
				List<Config> chosen = CONFIGS.stream().filter((config) -> ids.contains(config.id)).toList();
				if (chosen.size() != ids.size()) {
					throw new IllegalArgumentException("Unknown system in " + ids + ", expected some of "
							+ CONFIGS.stream().map(Config::id).toList());
				}
				return chosen;
			}
		}
		// The others have no K8 figures: a pass of K8 alone would only start their databases.
		return (scope == Scope.RESTART) ? CONFIGS.stream().filter((config) -> config.id.equals(RESTARTED)).toList()
				: CONFIGS;
	}

	private void begin(Config config, Path root) throws Exception {
		this.config = config;
		this.database = "cluster_" + config.id.replace('-', '_');
		this.url = this.server.createDatabase(this.database);
		this.admin = Database.pool(this.url, "harness-" + config.id);
		this.admin.setMaximumPoolSize(2);
		this.directory = root.resolve(config.id);
		Files.createDirectories(this.directory);
		try (var files = Files.list(this.directory)) {
			for (Path file : (Iterable<Path>) files::iterator) {
				Files.delete(file);
			}
		}
		this.truth = new RunLog.Truth();
		this.started.clear();
		this.children.clear();
		this.childCpuSeconds = 0;
		if (!ours()) {
			DbSchedulerSystem.createTable(this.admin, this.url);
		}
	}

	private void end() {
		for (ClusterChild child : this.children.values()) {
			try {
				this.childCpuSeconds += child.cpuSeconds();
				child.stop();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		if (this.admin != null) {
			this.admin.close();
		}
	}

	private void measure(Result result) throws Exception {
		boolean restarts = this.config.id.equals(RESTARTED);
		if (this.scope == Scope.ALL) {
			ClusterChild a = kills(result);
			if (restarts) {
				// K8 wants the database to itself: a survivor would take the dead instance's calls over.
				stop(a);
			}
		}
		if (restarts) {
			result.restartsGenerated = restarts("g", GENERATED_NAME);
			result.restartsNamed = restarts("n", CONFIGURED_NAME);
		}
	}

	/** K1 to K7; returns a, still running. */
	private ClusterChild kills(Result result) throws Exception {
		ClusterChild a = start("a", this.config.options);
		settle();
		result.throughput1 = throughput(List.of(a));
		settle();
		result.burst1 = burst(List.of(a));
		ClusterChild b = start("b", this.config.options);
		settle();
		result.throughput2 = throughput(List.of(a, b));
		settle();
		result.burst2 = burst(List.of(a, b));
		result.falseDeaths = falseDeaths(List.of(a, b), List.of(result.throughput1.range, result.throughput2.range,
				result.burst1.range, result.burst2.range));
		if (!this.config.killOptions.equals(this.config.options)) {
			stop(a);
			stop(b);
			a = start("a", this.config.killOptions);
			b = start("b", this.config.killOptions);
		}
		a.send("work " + WORK_MILLIS);
		b.send("work " + WORK_MILLIS);
		settle();
		result.recovery = killOnce(a, b);
		settle();
		result.crashes = crashes(a);
		return a;
	}

	private boolean ours() {
		return this.config.system.equals("ours");
	}

	private ClusterChild start(String role, List<String> options) throws Exception {
		int n = this.started.merge(role, 1, Integer::sum);
		String name = role + n;
		long begin = System.nanoTime();
		ClusterChild child = ClusterChild.start(this.config.system, this.url, name, this.directory, options);
		this.truth.follow(name, child.runLog);
		this.children.put(name, child);
		System.err.printf(Locale.ROOT, "  instance %s ready in %.1f s%n", name, (System.nanoTime() - begin) / 1e9);
		return child;
	}

	private void stop(ClusterChild child) throws InterruptedException {
		this.childCpuSeconds += child.cpuSeconds();
		child.stop();
	}

	/** K1 and K2. */
	private Throughput throughput(List<ClusterChild> instances) throws Exception {
		long[] before = counts(instances);
		ServerCpu.Mark cpu = this.serverCpu.mark();
		long[] firsts = new long[instances.size()];
		for (int i = 0; i < instances.size(); i++) {
			firsts[i] = take(BLOCK);
			instances.get(i).send(String.format(Locale.ROOT, "load %d %d %d 0 %d ONE_SECOND", firsts[i], BLOCK, THREADS,
					this.size.loadMillis));
		}
		System.err.printf("  throughput, %d instance(s): %d callers each, flat out for %.0f s%n", instances.size(),
				THREADS, this.size.loadMillis / 1e3);
		for (ClusterChild instance : instances) {
			instance.await("@loaded", Duration.ofMillis(this.size.loadMillis).plusMinutes(2));
		}
		Ranges range = new Ranges(firsts, BLOCK);
		awaitRuns(range, CallLog.nowMicros() + Delay.ONE_SECOND.micros() + micros(this.config.look) + micros(GRACE));
		long[] counts = minus(counts(instances), before);
		List<RunLog.Call> calls = range.calls(this.truth);
		Tally tally = Tally.of(calls);
		ServerCpu.Used used = cpu.usedFor(tally.made);
		long firstMade = calls.stream().mapToLong((c) -> c.madeMicros).filter((m) -> m != Long.MIN_VALUE).min().orElse(0);
		long lastMade = calls.stream().mapToLong((c) -> c.madeMicros).max().orElse(0);
		long firstDue = calls.stream().mapToLong(RunLog.Call::due).min().orElse(0);
		long lastDue = calls.stream().mapToLong(RunLog.Call::due).max().orElse(0);
		Throughput throughput = new Throughput(range, tally.made, tally.made / seconds(tally.lastRun - firstDue),
				tally.made / seconds(lastMade - firstMade), seconds(tally.lastRun - lastDue),
				counts[0] / (double) tally.made, counts[1] / (double) tally.made, used, tally.twice, tally.missing);
		System.err.printf("  throughput: %s; %.2f statements per call (+%.2f commits); database CPU per 1,000 calls "
				+ "%s%n", throughput.text(), throughput.statements, throughput.commits, throughput.cpu.text());
		return throughput;
	}

	/** K3: {@code N} calls due at one instant, written while the instances run. */
	private Burst burst(List<ClusterChild> instances) throws Exception {
		int count = this.size.burst;
		long first = take(count);
		long[] before = counts(instances);
		long writing = CallLog.nowMicros();
		long due = writing + micros(this.size.burstLead);
		System.err.printf("  burst: writing %,d calls due in %.0f s%n", count, this.size.burstLead.toMillis() / 1e3);
		if (ours()) {
			writeOursBurst(first, count, due);
		}
		else {
			writeDbSchedulerBurst(first, count, due);
		}
		long written = CallLog.nowMicros();
		// The run and finish of the calls, as K2's burst figure: the harness's own writing left out.
		ServerCpu.Mark cpu = this.serverCpu.mark();
		this.truth.expect(first, count, due);
		Ranges range = new Ranges(new long[] { first }, count);
		awaitRuns(range, due + micros(this.config.look) + micros(GRACE) + 60_000_000L);
		long[] counts = minus(counts(instances), before);
		ServerCpu.Used used = cpu.usedFor(count);
		List<RunLog.Call> calls = range.calls(this.truth);
		Tally tally = Tally.of(calls);
		Map<String, Integer> split = new LinkedHashMap<>();
		instances.forEach((instance) -> split.put(instance.name, 0));
		calls.stream().filter(RunLog.Call::ran).forEach((call) -> split.merge(call.first().instance, 1, Integer::sum));
		// By each call's first run: the one that would be early, and with no kill the only one.
		long[] late = calls.stream()
			.filter(RunLog.Call::ran)
			.mapToLong((call) -> call.first().startMicros - call.due())
			.toArray();
		Burst burst = new Burst(range, count, seconds(tally.lastRun - due), tally.ran / seconds(tally.lastRun - due),
				split, CallLog.Lateness.of(late, tally.missing, tally.twice), seconds(written - writing), written > due,
				counts[0] / (double) count, counts[1] / (double) count, used, tally.twice, tally.missing);
		System.err.printf("  burst: %s; written in %.2f s; %.2f statements per call to run it (+%.2f commits); "
				+ "database CPU per 1,000 calls %s%n", burst.text(), burst.writeSeconds, burst.statements,
				burst.commits, burst.cpu.text());
		return burst;
	}

	/**
	 * Our rows, as a transaction that made many calls due at the same time would leave them: what
	 * our schema scripts document, pending, arguments as the method's JSON array.
	 */
	private void writeOursBurst(long first, int count, long due) throws SQLException {
		try (Connection connection = this.admin.getConnection();
				PreparedStatement insert = connection.prepareStatement("INSERT INTO WHEEL_TIMER_CALL (id, method_id,"
						+ " arguments, due_at, state, attempts) VALUES (?, ?, ?, ?, 'PENDING', 0)")) {
			connection.setAutoCommit(false);
			Object dueAt = this.dialect.instant(Instant.ofEpochSecond(0, due * 1_000));
			for (int i = 0; i < count; i++) {
				insert.setObject(1, this.dialect.id(UUID.randomUUID()));
				insert.setString(2, OURS_METHOD);
				insert.setString(3, "[" + (first + i) + "," + due + "]");
				insert.setObject(4, dueAt);
				insert.addBatch();
				if (i % 1_000 == 999) {
					insert.executeBatch();
				}
			}
			insert.executeBatch();
			connection.commit();
		}
	}

	private void writeDbSchedulerBurst(long first, int count, long due) {
		OneTimeTask<DbSchedulerSystem.CallData> task = Tasks
			.oneTime(DbSchedulerSystem.TASK, DbSchedulerSystem.CallData.class)
			.execute((instance, context) -> {
			});
		SchedulerClient client = DbSchedulerSystem.client(this.admin, this.url, task);
		List<TaskInstance<?>> instances = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			instances.add(task.instance(Long.toString(first + i), new DbSchedulerSystem.CallData(first + i, due)));
		}
		client.scheduleBatch(instances, Instant.ofEpochSecond(0, due * 1_000));
	}

	/** K7: what the live instances lost to each other, and calls that ran twice, with no kill. */
	private String falseDeaths(List<ClusterChild> instances, List<Ranges> ranges) {
		int twice = 0;
		for (Ranges range : ranges) {
			twice += Tally.of(range.calls(this.truth)).twice;
		}
		if (!ours()) {
			return (twice == 0) ? "none: no call ran twice" : twice + " calls ran twice";
		}
		long takenOver = 0;
		long fenced = 0;
		for (ClusterChild instance : instances) {
			long[] counts = instance.counts();
			// statements commits scheduled claimed started ran failed fenced takenOver handedBack
			fenced += counts[7];
			takenOver += counts[8];
		}
		String text = String.format(Locale.ROOT, "%s: %d taken over, %d fenced, %d ran twice",
				(takenOver + fenced + twice == 0) ? "none" : "**some**", takenOver, fenced, twice);
		System.err.printf("  false deaths: %s%n", text);
		return text;
	}

	/** K4 and K6: both instances make paced calls; halfway, b is killed. */
	private Recovery killOnce(ClusterChild a, ClusterChild b) throws Exception {
		long firstA = take(BLOCK);
		long firstB = take(BLOCK);
		String load = " %d 1 %s %d ONE_SECOND,TWO_SECONDS,FIVE_SECONDS";
		a.send(String.format(Locale.ROOT, "load %d" + load, firstA, BLOCK, PACED_RATE, this.size.killWindowMillis));
		b.send(String.format(Locale.ROOT, "load %d" + load, firstB, BLOCK, PACED_RATE, this.size.killWindowMillis));
		System.err.printf("  kill: %.0f calls/s on each instance for %.0f s, %s killed halfway%n", PACED_RATE,
				this.size.killWindowMillis / 1e3, b.name);
		Thread.sleep(this.size.killWindowMillis / 2);
		awaitHolding(b);
		long kill = kill(b);
		Map<Long, Boolean> held = held(b);
		long released = awaitReleased(b, kill + micros(this.config.recoveryCap));
		a.await("@loaded", Duration.ofMillis(this.size.killWindowMillis).plusMinutes(1));
		Ranges range = new Ranges(new long[] { firstA, firstB }, BLOCK);
		Map<Long, Long> killed = new HashMap<>();
		held.keySet().forEach((number) -> killed.put(number, kill));
		awaitRuns(range, killed, Math.max(CallLog.nowMicros() + Delay.FIVE_SECONDS.micros(),
				kill + micros(this.config.recoveryCap)) + micros(this.config.look) + micros(GRACE));
		List<RunLog.Call> calls = range.calls(this.truth);
		Stranded stranded = Stranded.of(held, calls, kill, released);
		Recovery recovery = new Recovery(held.size(), stranded.started, sinceKill(released, kill),
				stranded.dueByRelease, sinceKill(stranded.lastOverdue, kill), stranded.lost,
				Tally.of(calls).lateness(calls));
		System.err.printf("  kill: %s%n  kill: lateness %s%n", recovery.text(), recovery.lateness);
		return recovery;
	}

	/** K5: b is started, makes calls, and is killed, again and again, while a makes calls throughout. */
	private Crashes crashes(ClusterChild a) throws Exception {
		String load = "load %d %d 1 %s 600000 ONE_SECOND,TWO_SECONDS";
		long firstA = take(BLOCK);
		List<Long> firsts = new ArrayList<>(List.of(firstA));
		a.send(String.format(Locale.ROOT, load, firstA, BLOCK, PACED_RATE));
		int held = 0;
		int heldStarted = 0;
		Map<Long, Long> killed = new HashMap<>();
		long lastKill = 0;
		for (int cycle = 0; cycle < this.size.crashes; cycle++) {
			ClusterChild b = start("b", this.config.killOptions);
			b.send("work " + WORK_MILLIS);
			long first = take(BLOCK);
			firsts.add(first);
			b.send(String.format(Locale.ROOT, load, first, BLOCK, PACED_RATE));
			Thread.sleep(this.size.holdMillis);
			awaitHolding(b);
			long kill = kill(b);
			lastKill = kill;
			Map<Long, Boolean> stranded = held(b);
			stranded.keySet().forEach((number) -> killed.put(number, kill));
			held += stranded.size();
			heldStarted += (int) stranded.values().stream().filter((s) -> s).count();
			System.err.printf("  crash %d: %s held %d calls, %d of them started%n", cycle + 1, b.name, stranded.size(),
					stranded.values().stream().filter((s) -> s).count());
		}
		a.send("halt");
		a.await("@loaded", Duration.ofMinutes(1));
		long survivorFenced = ours() ? a.counts()[7] : 0;
		Ranges range = new Ranges(firsts.stream().mapToLong(Long::longValue).toArray(), BLOCK);
		awaitRuns(range, killed, Math.max(CallLog.nowMicros() + Delay.TWO_SECONDS.micros(),
				lastKill + micros(this.config.recoveryCap)) + micros(this.config.look) + micros(GRACE));
		List<RunLog.Call> calls = range.calls(this.truth);
		int twice = 0;
		int byDesign = 0;
		int returned = 0;
		int notStarted = 0;
		for (RunLog.Call call : calls) {
			if (call.runs.size() < 2) {
				continue;
			}
			twice++;
			RunLog.Run first = call.first();
			long killedAt = killedAt(first);
			if (killedAt != Long.MIN_VALUE && killedAt > first.startMicros) {
				byDesign++;
				if (first.ended() && first.endMicros < killedAt) {
					returned++;
				}
			}
			else {
				notStarted++;
				System.err.printf("  call %d ran twice and its first run (on %s) was not cut by a kill%n", call.number,
						first.instance);
			}
		}
		Tally tally = Tally.of(calls);
		Crashes crashes = new Crashes(this.size.crashes, tally.made, held, heldStarted, twice, byDesign, returned,
				notStarted, tally.missing, survivorFenced);
		System.err.printf("  crashes: %s%n", crashes.text());
		return crashes;
	}

	/**
	 * K8: one instance alone on the database makes calls as in K4 and, once it has a call in
	 * flight, is killed and started again at once with the same options; the restart is the next
	 * one killed. The release is watched from the kill on, while the restart starts: a restart
	 * that knows its predecessor may take its calls before it answers that it is ready.
	 */
	private List<Restart> restarts(String role, List<String> options) throws Exception {
		List<Restart> restarts = new ArrayList<>();
		ClusterChild instance = start(role, options);
		for (int cycle = 0; cycle < this.size.restarts; cycle++) {
			settle();
			long first = take(BLOCK);
			instance.send(String.format(Locale.ROOT, "load %d %d 1 %s 600000 ONE_SECOND,TWO_SECONDS,FIVE_SECONDS",
					first, BLOCK, PACED_RATE));
			Thread.sleep(this.size.killWindowMillis / 2);
			awaitHolding(instance);
			String name = instanceName(instance);
			long kill = kill(instance);
			Map<Long, Boolean> held = held(instance);
			ClusterChild dead = instance;
			long deadline = kill + micros(this.config.recoveryCap);
			CompletableFuture<Long> released = CompletableFuture.supplyAsync(() -> {
				try {
					return awaitReleased(dead, deadline);
				}
				catch (Exception ex) {
					throw new CompletionException(ex);
				}
			});
			instance = start(role, options);
			long ready = CallLog.nowMicros();
			long releasedAt = released.join();
			Ranges range = new Ranges(new long[] { first }, BLOCK);
			Map<Long, Long> killed = new HashMap<>();
			held.keySet().forEach((number) -> killed.put(number, kill));
			awaitRuns(range, killed, Math.max(CallLog.nowMicros() + Delay.FIVE_SECONDS.micros(), deadline)
					+ micros(this.config.look) + micros(GRACE));
			List<RunLog.Call> calls = range.calls(this.truth);
			Stranded stranded = Stranded.of(held, calls, kill, releasedAt);
			int twice = 0;
			int byDesign = 0;
			int early = 0;
			int lost = stranded.lost;
			for (RunLog.Call call : calls) {
				early += (int) call.runs.stream().filter((run) -> run.startMicros < run.dueMicros).count();
				if (!call.ran() && !held.containsKey(call.number)) {
					lost++;
				}
				if (call.runs.size() > 1) {
					twice++;
					if (killedAt(call.first()) > call.first().startMicros) {
						byDesign++;
					}
				}
			}
			Restart restart = new Restart(seconds(ready - kill), held.size(), stranded.started,
					sinceKill(releasedAt, kill), stranded.dueByRelease, sinceKill(stranded.lastOverdue, kill),
					calls.size(), twice, byDesign, early, lost);
			System.err.printf("  restart %d: %s (instance '%s') killed, %s took over %d calls: %s%n", cycle + 1,
					dead.name, name, instance.name, instance.counts()[8], Restart.text(List.of(restart)));
			restarts.add(restart);
		}
		stop(instance);
		return restarts;
	}

	/** The instance's name in the instance table, for the log: made up by the engine, or configured. */
	private String instanceName(ClusterChild instance) throws SQLException {
		try (Connection connection = this.admin.getConnection();
				PreparedStatement select = connection
					.prepareStatement("SELECT name FROM WHEEL_TIMER_INSTANCE WHERE id = ?")) {
			bindInstance(select, instance);
			try (ResultSet rows = select.executeQuery()) {
				return rows.next() ? rows.getString(1) : "?";
			}
		}
	}

	/** When the instance a run was on was killed; {@link Long#MIN_VALUE} if it was not. */
	private long killedAt(RunLog.Run run) {
		ClusterChild ranOn = this.children.get(run.instance);
		return (ranOn != null) ? ranOn.killedAtMicros() : Long.MIN_VALUE;
	}

	private static double sinceKill(long micros, long kill) {
		return (micros != Long.MIN_VALUE) ? seconds(micros - kill) : Double.NaN;
	}

	private long kill(ClusterChild child) throws InterruptedException {
		this.childCpuSeconds += child.cpuSeconds();
		long at = child.kill();
		System.err.printf("  killed %s%n", child.name);
		return at;
	}

	/**
	 * What the killed instance held, from the database: call number, and whether its run had
	 * started there (from its run file).
	 */
	private Map<Long, Boolean> held(ClusterChild dead) throws SQLException {
		Map<Long, Boolean> held = new LinkedHashMap<>();
		String sql = ours()
				? "SELECT arguments FROM WHEEL_TIMER_CALL WHERE owner_id = ?"
				: "SELECT task_instance FROM scheduled_tasks WHERE picked AND picked_by = ?";
		try (Connection connection = this.admin.getConnection();
				PreparedStatement select = connection.prepareStatement(sql)) {
			bindInstance(select, dead);
			try (ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					String text = rows.getString(1);
					long number = ours() ? Long.parseLong(text.substring(1, text.indexOf(','))) : Long.parseLong(text);
					held.put(number, false);
				}
			}
		}
		this.truth.refresh();
		List<RunLog.Call> calls = new ArrayList<>();
		for (long number : held.keySet()) {
			calls.addAll(this.truth.range(number, number));
		}
		for (RunLog.Call call : calls) {
			if (call.runs.stream().anyMatch((run) -> run.instance.equals(dead.name))) {
				held.put(call.number, true);
			}
		}
		return held;
	}

	/**
	 * Waits, up to 2 s and a poll, until the instance has a call in flight in the database, so that every kill
	 * cuts one: ours, a row it runs (it also holds, claimed, every call it made that is due within
	 * the horizon); db-scheduler, an execution it picked (it picks only calls already due, a few at
	 * a time at this load). Our wheel hands calls over tick by tick (100 ms), each runs 50 ms, so
	 * a kill at a given moment would otherwise find nothing running half the time. The kill comes
	 * when two looks a fifth of a run's work apart both see one (a run seen once may be ending, and
	 * a kill at the first look would cut runs at their first microsecond). db-scheduler at its
	 * defaults works in bursts after each poll: the wait is a poll longer.
	 */
	private void awaitHolding(ClusterChild instance) throws Exception {
		long deadline = CallLog.nowMicros() + 2_000_000 + micros(this.config.look);
		String inFlight = ours()
				? "SELECT COUNT(*) FROM WHEEL_TIMER_CALL WHERE state = 'RUNNING' AND owner_id = ?"
				: heldCount();
		try (Connection connection = this.admin.getConnection();
				PreparedStatement select = connection.prepareStatement(inFlight)) {
			bindInstance(select, instance);
			boolean seen = false;
			while (CallLog.nowMicros() < deadline) {
				try (ResultSet rows = select.executeQuery()) {
					rows.next();
					boolean holding = rows.getLong(1) > 0;
					if (holding && seen) {
						return;
					}
					seen = holding;
				}
				Thread.sleep(seen ? WORK_MILLIS / 5 : 5);
			}
		}
	}

	private String heldCount() {
		return ours()
				? "SELECT COUNT(*) FROM WHEEL_TIMER_CALL WHERE owner_id = ?"
				: "SELECT COUNT(*) FROM scheduled_tasks WHERE picked AND picked_by = ?";
	}

	/**
	 * What the database knows an instance by, as the first parameter: ours, its instance id, bound
	 * as our dialect binds ids (a uuid on PostgreSQL, text on MariaDB); db-scheduler, its name.
	 */
	private void bindInstance(PreparedStatement statement, ClusterChild instance) throws SQLException {
		if (ours()) {
			statement.setObject(1, this.dialect.id(UUID.fromString(instance.instance)));
		}
		else {
			statement.setString(1, instance.instance);
		}
	}

	/** When the database stopped showing any call held by the dead instance, polled every 50 ms. */
	private long awaitReleased(ClusterChild dead, long deadlineMicros) throws Exception {
		try (Connection connection = this.admin.getConnection();
				PreparedStatement select = connection.prepareStatement(heldCount())) {
			bindInstance(select, dead);
			while (CallLog.nowMicros() < deadlineMicros) {
				long now = CallLog.nowMicros();
				try (ResultSet rows = select.executeQuery()) {
					rows.next();
					if (rows.getLong(1) == 0) {
						return now;
					}
				}
				Thread.sleep(50);
			}
		}
		return Long.MIN_VALUE;
	}

	/** Waits until every call made in {@code range} ran, or the deadline (epoch µs) passed. */
	private void awaitRuns(Ranges range, long deadlineMicros) throws InterruptedException {
		awaitRuns(range, Map.of(), deadlineMicros);
	}

	/**
	 * Waits until every call made in {@code range} ran, and every call of {@code killed} (call
	 * number to the kill of the instance that held it) ran after that kill, or the deadline (epoch
	 * µs) passed: a call that was running when its instance died has a run already, and must run
	 * again.
	 */
	private void awaitRuns(Ranges range, Map<Long, Long> killed, long deadlineMicros) throws InterruptedException {
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
	private static long[] counts(List<ClusterChild> instances) {
		long[] sum = new long[2];
		for (ClusterChild instance : instances) {
			long[] counts = instance.counts();
			sum[0] += counts[0];
			sum[1] += counts[1];
		}
		return sum;
	}

	private static long[] minus(long[] after, long[] before) {
		return new long[] { after[0] - before[0], after[1] - before[1] };
	}

	private void settle() throws SQLException {
		this.server.settle(this.database);
	}

	private long take(int count) {
		long first = this.nextCall;
		this.nextCall += count;
		return first;
	}

	private static long micros(Duration duration) {
		return duration.toNanos() / 1_000;
	}

	private static double seconds(long micros) {
		return micros / 1e6;
	}

	/** The run's database is in the title: a table of one is not to be read as the other's. */
	private static String header(Size size, Scope scope, String version, String settings) {
		return String.format(Locale.ROOT,
				"## Durable calls on a cluster, with kills, on %s, %s pass%s%n%n%s, %s %s, %d cores, %s; %s "
						+ "(%s), one database per system; each instance a JVM of its own (-Xmx512m), killed with "
						+ "SIGKILL%n%n",
				version, size.name().toLowerCase(Locale.ROOT), (scope == Scope.RESTART) ? ", K8 alone" : "",
				LocalDate.now(), System.getProperty("java.vm.name"), System.getProperty("java.runtime.version"),
				Runtime.getRuntime().availableProcessors(), System.getProperty("os.name"), version, settings);
	}

	private static String table(Map<String, Result> results, Size size, Scope scope) {
		StringBuilder table = new StringBuilder("| row | what |");
		results.keySet().forEach((label) -> table.append(' ').append(label).append(" |"));
		table.append("\n|---|---|").append("---|".repeat(results.size())).append('\n');
		if (scope == Scope.ALL) {
			kills(table, results, size);
		}
		row(table, "K8", String.format(Locale.ROOT, "restart: one instance alone, %.0f calls/s, delays 1/2/5 s, 50 ms "
				+ "of work, killed (SIGKILL) while holding calls and started again at once, with the instance name the "
				+ "engine makes up; when the restart released the dead one's calls, when the last of them due by then "
				+ "ran, and which calls ran twice", PACED_RATE), results,
				(r) -> (r.restartNote != null) ? r.restartNote : Restart.text(r.restartsGenerated));
		row(table, "K8b", "restart as K8, with `wheel-timer.durable.instance-name` the same for both runs", results,
				(r) -> (r.restartNote != null) ? r.restartNote : Restart.text(r.restartsNamed));
		if (scope == Scope.ALL) {
			row(table, "K9", "database CPU per 1,000 calls: K1 / K1b throughput (schedule, run, finish); K3 / K3b "
					+ "burst (run, finish)", results,
					(r) -> String.format(Locale.ROOT, "%s / %s; burst %s / %s", r.throughput1.cpu.text(),
							r.throughput2.cpu.text(), r.burst1.cpu.text(), r.burst2.cpu.text()));
		}
		return table.toString();
	}

	/** K1 to K7. */
	private static void kills(StringBuilder table, Map<String, Result> results, Size size) {
		String load = String.format(Locale.ROOT, "%d callers per instance flat out for %.0f s, delay 1 s", THREADS,
				size.loadMillis / 1e3);
		row(table, "K1", "throughput, 1 instance: calls/s, " + load, results, (r) -> r.throughput1.text());
		row(table, "K1b", "throughput, 2 instances", results, (r) -> r.throughput2.text());
		row(table, "K2", "statements per call, 1 instance / 2 instances (+ commits): K1's schedule + run + finish; "
				+ "K3's run + finish", results,
				(r) -> String.format(Locale.ROOT, "%.2f (+%.2f) / %.2f (+%.2f); burst %.2f / %.2f",
						r.throughput1.statements, r.throughput1.commits, r.throughput2.statements,
						r.throughput2.commits, r.burst1.statements, r.burst2.statements));
		row(table, "K3", String.format(Locale.ROOT, "burst: %,d calls due at one instant, 1 instance running; lateness "
				+ "of each call against that instant", size.burst), results, (r) -> r.burst1.text());
		row(table, "K3b", "burst, 2 instances running (calls run by each)", results, (r) -> r.burst2.text());
		row(table, "K4", "recovery: b killed (SIGKILL) while holding calls; when the database released them, and when "
				+ "the last of them due by then ran", results, (r) -> r.recovery.text() + r.computedRecovery);
		row(table, "K5", String.format(Locale.ROOT, "duplicates: %d × start b, %.1f s of calls, SIGKILL, while a makes "
				+ "calls (100/s each, 50 ms of work)", size.crashes, size.holdMillis / 1e3), results,
				(r) -> r.crashes.text());
		row(table, "K6", String.format(Locale.ROOT, "lateness across the kill of K4: %.0f calls/s on each of a and b "
				+ "for %.0f s, delays 1/2/5 s, 50 ms of work, b killed halfway", PACED_RATE, size.killWindowMillis / 1e3), results,
				(r) -> r.recovery.lateness);
		row(table, "K7", "false deaths with no kill (K1–K3): calls a live instance lost to another, or that ran twice",
				results, (r) -> r.falseDeaths);
	}

	private static void row(StringBuilder table, String id, String title, Map<String, Result> results,
			Function<Result, String> cell) {
		table.append("| ").append(id).append(" | ").append(title).append(" |");
		for (Result result : results.values()) {
			String text;
			try {
				text = cell.apply(result);
			}
			catch (RuntimeException ex) {
				text = (result.failure != null) ? "failed: " + result.failure : "–";
			}
			table.append(' ').append(String.valueOf(text).replace("|", "\\|")).append(" |");
		}
		table.append('\n');
	}

	private static String footer(Size size, Scope scope, String database, Map<String, Result> results,
			double minutes) {
		StringBuilder footer = new StringBuilder(String.format("%n"));
		if (scope == Scope.ALL) {
			footer.append(kills(size, results)).append(DbSchedulerSystem.configurations(database)).append(' ');
		}
		footer.append(String.format(Locale.ROOT, "K8: the instance is killed %.0f s into its load, once it has a call "
				+ "in flight, and started again at once with the same settings; the restart is the next one killed. "
				+ "Ready: from the kill to the restart's answer that its application runs. The release is polled every "
				+ "50 ms from the kill on. Expected release: %s. The pass took %.1f minutes.%n%n"
				+ "The machine during each system's turn: CPU that other work used, in cores (near 0 for figures worth "
				+ "comparing), and a one-row autocommit insert before and after:", size.killWindowMillis / 2e3,
				RESTART_EXPECTED, minutes));
		results.forEach((label, result) -> footer.append(String.format(Locale.ROOT, " %s %.2f cores, %.0f/%.0f µs;",
				label, result.otherCores, result.commitBefore, result.commitAfter)));
		footer.setLength(footer.length() - 1);
		return footer.append(".\n").toString();
	}

	/** The notes on K1 to K7, and K9. */
	private static String kills(Size size, Map<String, Result> results) {
		double longestWrite = results.values()
			.stream()
			.flatMap((r) -> Stream.of(r.burst1, r.burst2))
			.filter(Objects::nonNull)
			.mapToDouble(Burst::writeSeconds)
			.max()
			.orElse(Double.NaN);
		return String.format(Locale.ROOT,
				"K1: calls made over the time from the first one's due time to the last run. K2: everything the "
						+ "instances sent during K1, polling and heartbeats included, over the calls; a batch counts "
						+ "once. K3: from the due instant to the last run; lateness: each call's first run against "
						+ "the due instant, \"early\" ran before it. The harness wrote the calls %.0f s ahead, twice "
						+ "the lead of the bursts half this size before them, time enough to write them all (at most "
						+ "%.1f s in this pass); not counted in K2 or K9. K9: the database server's own CPU time, user and "
						+ "system, over a step, per 1,000 of its calls: over K1 (K2's span) and from the end of the "
						+ "burst's writing to its last run (its run and finish, as K2's burst figure); its processes "
						+ "found by id, never by name (PostgreSQL: the postmaster, every backend and background "
						+ "worker, and those that ended during the step; MariaDB: mariadbd). The kernel counts in "
						+ "10 ms ticks: a figure is good to %d ticks over its step, %s ms per 1,000 calls over K3's "
						+ "%,d calls; the seconds in all beside it say how much it rests on. K4-K6: db-scheduler with "
						+ "a 2 s heartbeat (dead after 12 s, looked for "
						+ "every 4 s); at its default heartbeat of %d min and %d missed heartbeats, an execution picked "
						+ "just before a kill is found dead 30 to 40 minutes later (marked computed). K6: lateness of the "
						+ "run that did each call's work (a call cut by the kill counts by its second run). Ours' "
						+ "expected release in K4: %s (defaults), %s (short lease). ",
				size.burstLead.toMillis() / 1e3, longestWrite, ServerCpu.ERROR_TICKS,
				ServerCpu.Used.errorPerThousandCalls(size.burst), size.burst, DB_SCHEDULER_HEARTBEAT.toMinutes(),
				DB_SCHEDULER_MISSED, CONFIGS.get(0).expected, CONFIGS.get(1).expected);
	}

	/** The targets, as far as this run's systems allow. */
	private static String targets(Map<String, Result> results) {
		Result ours = results.get(CONFIGS.get(0).label);
		Result tuned = results.get(CONFIGS.get(3).label);
		StringBuilder text = new StringBuilder();
		if (ours != null && ours.recovery != null) {
			double defaultsMinutes = DB_SCHEDULER_HEARTBEAT.multipliedBy(DB_SCHEDULER_MISSED).toSeconds() / 60.0;
			double oursSeconds = Double.isNaN(ours.recovery.lastOverdue) ? ours.recovery.released
					: Math.max(ours.recovery.released, ours.recovery.lastOverdue);
			text.append(String.format(Locale.ROOT,
					"| recovery an order of magnitude faster than db-scheduler's defaults | %.1f s against at least "
							+ "%.0f min (computed) | %s (%.0fx) |%n",
					oursSeconds, defaultsMinutes, (oursSeconds * 10 <= defaultsMinutes * 60) ? "met" : "**not met**",
					defaultsMinutes * 60 / oursSeconds));
		}
		if (ours != null && ours.crashes != null) {
			text.append(String.format(Locale.ROOT,
					"| zero duplicates of calls that had not started | %d of %,d calls over %d kills | %s |%n",
					ours.crashes.notStarted, ours.crashes.calls, ours.crashes.kills,
					(ours.crashes.notStarted == 0) ? "met" : "**not met**"));
		}
		if (ours != null && tuned != null && ours.throughput1 != null && tuned.throughput1 != null) {
			double one = ours.throughput1.perSecond / tuned.throughput1.perSecond;
			double two = (ours.throughput2 != null && tuned.throughput2 != null)
					? ours.throughput2.perSecond / tuned.throughput2.perSecond : Double.NaN;
			text.append(String.format(Locale.ROOT,
					"| throughput within 2x of db-scheduler's best mode (tuned) | K1 %.2fx with 1 instance, %.2fx with 2 "
							+ "| %s |%n",
					one, two, (one >= 0.5 && (Double.isNaN(two) || two >= 0.5)) ? "met" : "**not met**"));
		}
		return text.isEmpty() ? "" : "\n| target | ours | verdict |\n|---|---|---|\n" + text;
	}

	/** How much of each step: FULL for the table (about 7 minutes), QUICK a smaller pass (about 4.5 minutes). */
	enum Size {

		FULL(6_000, 20_000, Duration.ofSeconds(8), 6_000, 5, 2_000, 3),

		QUICK(3_000, 10_000, Duration.ofSeconds(6), 4_000, 3, 1_500, 1);

		final long loadMillis;

		final int burst;

		/**
		 * How far ahead of their due instant the burst's calls are written: long enough for the
		 * harness to write them all first, on 2 shared cores; within ours' horizon (10 s), as the
		 * burst's calls were with the 4 s of a burst of 10,000.
		 */
		final Duration burstLead;

		final long killWindowMillis;

		final int crashes;

		final long holdMillis;

		/** K8: kills, each restarted at once, per instance name setting. */
		final int restarts;

		Size(long loadMillis, int burst, Duration burstLead, long killWindowMillis, int crashes, long holdMillis,
				int restarts) {
			this.loadMillis = loadMillis;
			this.burst = burst;
			this.burstLead = burstLead;
			this.killWindowMillis = killWindowMillis;
			this.crashes = crashes;
			this.holdMillis = holdMillis;
			this.restarts = restarts;
		}

	}

	/** Which rows a pass measures: all of them, or ({@code --only restart}) K8 alone. */
	enum Scope {

		ALL, RESTART

	}

	/**
	 * One system's setup.
	 *
	 * @param id its name on the command line
	 * @param label its column
	 * @param system {@code ours} or {@code db-scheduler}
	 * @param options its instances' options for K1-K3
	 * @param killOptions its instances' options for K4-K6 (db-scheduler: a short heartbeat)
	 * @param look the longest a due call waits for the system to look for it (its poll)
	 * @param recoveryCap how long after a kill the harness waits for the dead instance's calls
	 * @param expected for ours, the release its settings promise
	 */
	record Config(String id, String label, String system, List<String> options, List<String> killOptions,
			Duration look, Duration recoveryCap, String expected) {
	}

	/** Call numbers: blocks of {@code size} from each first number. */
	record Ranges(long[] firsts, int size) {

		List<RunLog.Call> calls(RunLog.Truth truth) {
			List<RunLog.Call> calls = new ArrayList<>();
			for (long first : this.firsts) {
				calls.addAll(truth.range(first, first + this.size - 1));
			}
			return calls;
		}

	}

	/** What happened to a set of calls. */
	record Tally(int made, int ran, int twice, int missing, long lastRun) {

		static Tally of(List<RunLog.Call> calls) {
			int ran = 0;
			int twice = 0;
			long lastRun = Long.MIN_VALUE;
			for (RunLog.Call call : calls) {
				if (call.ran()) {
					ran++;
					lastRun = Math.max(lastRun, call.first().startMicros);
				}
				if (call.runs.size() > 1) {
					twice++;
				}
			}
			return new Tally(calls.size(), ran, twice, calls.size() - ran, lastRun);
		}

		/**
		 * Lateness of the run that did each call's work (a call cut by a kill counts by its second
		 * run): p50 / p99 / max, how many were over 1 s late.
		 */
		String lateness(List<RunLog.Call> calls) {
			long[] late = calls.stream().filter(RunLog.Call::ran).mapToLong(RunLog.Call::latenessMicros).sorted().toArray();
			if (late.length == 0) {
				return "nothing ran";
			}
			long overOneSecond = Arrays.stream(late).filter((l) -> l > 1_000_000).count();
			long early = Arrays.stream(late).filter((l) -> l < 0).count();
			String text = String.format(Locale.ROOT, "p50 %s / p99 %s / max %s ms over %,d calls; %,d over 1 s late",
					CallLog.Lateness.ms(percentile(late, 0.50)), CallLog.Lateness.ms(percentile(late, 0.99)),
					CallLog.Lateness.ms(late[late.length - 1] / 1e3), calls.size(), overOneSecond);
			if (early > 0) {
				text += ", " + early + " early";
			}
			if (this.missing > 0) {
				text += ", **" + this.missing + " never ran**";
			}
			return text;
		}

		private static double percentile(long[] sorted, double fraction) {
			int rank = (int) Math.ceil(fraction * sorted.length);
			return sorted[Math.max(0, rank - 1)] / 1e3;
		}

	}

	/** K1, K2, K9. */
	record Throughput(Ranges range, int calls, double perSecond, double madePerSecond, double tail, double statements,
			double commits, ServerCpu.Used cpu, int twice, int missing) {

		String text() {
			String text = String.format(Locale.ROOT, "%,.0f calls/s (%,d calls, made at %,.0f/s; the last ran %.1f s after "
					+ "its due time)", this.perSecond, this.calls, this.madePerSecond, this.tail);
			return text + problems(this.twice, this.missing);
		}

	}

	/**
	 * K3, and its share of K2 and K9.
	 * @param lateness of each call's first run, against the due instant
	 * @param writeSeconds how long the harness took to write the calls, of the lead it had
	 */
	record Burst(Ranges range, int count, double lastAfterDue, double perSecond, Map<String, Integer> split,
			CallLog.Lateness lateness, double writeSeconds, boolean writtenLate, double statements, double commits,
			ServerCpu.Used cpu, int twice, int missing) {

		String text() {
			String text = String.format(Locale.ROOT, "%,.0f calls/s, the last %.2f s after the due instant",
					this.perSecond, this.lastAfterDue);
			if (this.split.size() > 1) {
				text += " (" + String.join(" / ", this.split.entrySet()
					.stream()
					.map((e) -> String.format(Locale.ROOT, "%s %,d", e.getKey(), e.getValue()))
					.toList()) + ")";
			}
			CallLog.Lateness late = this.lateness;
			text += String.format(Locale.ROOT, "; lateness p50 %s / p99 %s / max %s ms, %s",
					CallLog.Lateness.ms(late.p50Ms()), CallLog.Lateness.ms(late.p99Ms()),
					CallLog.Lateness.ms(late.maxMs()), (late.early() == 0) ? "0 early"
							: String.format(Locale.ROOT, "**%,d early** (earliest %.1f ms)", late.early(),
									late.earliestMs()));
			if (this.writtenLate) {
				text += ", written after the due instant";
			}
			return text + problems(this.twice, this.missing);
		}

	}

	/** K4, K6. */
	record Recovery(int held, int heldStarted, double released, int dueByRelease, double lastOverdue, int lost,
			String lateness) {

		String text() {
			if (this.held == 0) {
				return "b held no call when killed";
			}
			String text = String.format(Locale.ROOT, "b held %d calls (%d started): released %s s after the kill",
					this.held, this.heldStarted, Double.isNaN(this.released) ? "never (within the wait)"
							: String.format(Locale.ROOT, "%.1f", this.released));
			if (this.dueByRelease > 0) {
				text += String.format(Locale.ROOT, "; the %d due by then ran by %.1f s", this.dueByRelease,
						this.lastOverdue);
			}
			if (this.lost > 0) {
				text += ", **" + this.lost + " never ran**";
			}
			return text;
		}

	}

	/** K5. */
	record Crashes(int kills, int calls, int held, int heldStarted, int twice, int byDesign, int returned,
			int notStarted, int missing, long survivorFenced) {

		String text() {
			String text = String.format(Locale.ROOT,
					"%d of %,d calls ran twice: %d cut by a kill after their first run started%s, %s that had not "
							+ "started; the killed instances held %d calls, %d started",
					this.twice, this.calls, this.byDesign,
					(this.returned > 0) ? " (" + this.returned + " after their method returned)" : "",
					(this.notStarted > 0) ? "**" + this.notStarted + "**" : "0", this.held, this.heldStarted);
			if (this.missing > 0) {
				text += ", **" + this.missing + " never ran**";
			}
			if (this.survivorFenced > 0) {
				text += ", **the survivor lost " + this.survivorFenced + " calls to a false death**";
			}
			return text;
		}

	}

	/**
	 * What became of the calls a killed instance held (K4, K8): how many had started there; of
	 * their runs after the kill, how many were due by the release and when the last of those
	 * started; and how many never ran after the kill.
	 */
	record Stranded(int started, int dueByRelease, long lastOverdue, int lost) {

		/**
		 * @param held call number to whether its run had started on the dead instance
		 * @param released when the database released them, {@link Long#MIN_VALUE} if it did not
		 */
		static Stranded of(Map<Long, Boolean> held, List<RunLog.Call> calls, long kill, long released) {
			Map<Long, RunLog.Call> byNumber = new HashMap<>();
			calls.forEach((call) -> byNumber.put(call.number, call));
			int started = 0;
			int dueByRelease = 0;
			int lost = 0;
			long lastOverdue = Long.MIN_VALUE;
			long releasedAt = (released != Long.MIN_VALUE) ? released : Long.MAX_VALUE;
			for (Map.Entry<Long, Boolean> entry : held.entrySet()) {
				RunLog.Call call = byNumber.get(entry.getKey());
				if (entry.getValue()) {
					started++;
				}
				RunLog.Run after = (call != null) ? call.runs.stream()
					.filter((run) -> run.startMicros >= kill)
					.findFirst()
					.orElse(null) : null;
				if (after == null) {
					lost++;
					continue;
				}
				if (after.dueMicros <= releasedAt) {
					dueByRelease++;
					lastOverdue = Math.max(lastOverdue, after.startMicros);
				}
			}
			return new Stranded(started, dueByRelease, lastOverdue, lost);
		}

	}

	/**
	 * K8: one kill and its restart; seconds from the kill.
	 * @param ready when the restart answered that it was ready (its JVM and application started)
	 * @param calls the calls the killed instance made since its start
	 * @param byDesign of those that ran twice, the ones whose first run the kill cut
	 * @param early runs that started before their call's due time
	 */
	record Restart(double ready, int held, int heldStarted, double released, int dueByRelease, double lastOverdue,
			int calls, int twice, int byDesign, int early, int lost) {

		/** The kills of one setting: each figure for every kill in turn. */
		static String text(List<Restart> restarts) {
			int calls = restarts.stream().mapToInt(Restart::calls).sum();
			int twice = restarts.stream().mapToInt(Restart::twice).sum();
			int byDesign = restarts.stream().mapToInt(Restart::byDesign).sum();
			int early = restarts.stream().mapToInt(Restart::early).sum();
			int lost = restarts.stream().mapToInt(Restart::lost).sum();
			String text = String.format(Locale.ROOT,
					"%s: held %s calls (%s started), restarted at once (ready %s s after the kill): released %s s "
							+ "after the kill; the %s due by then ran by %s s; %d of %,d calls ran twice: %d cut by %s "
							+ "after their first run started, %s that had not started; %s",
					(restarts.size() == 1) ? "1 kill" : restarts.size() + " kills",
					each(restarts, (r) -> Integer.toString(r.held)),
					each(restarts, (r) -> Integer.toString(r.heldStarted)), each(restarts, (r) -> tenths(r.ready)),
					each(restarts, (r) -> tenths(r.released)), each(restarts, (r) -> Integer.toString(r.dueByRelease)),
					each(restarts, (r) -> tenths(r.lastOverdue)),
					twice, calls, byDesign, (restarts.size() == 1) ? "the kill" : "a kill",
					(twice > byDesign) ? "**" + (twice - byDesign) + "**" : "0",
					(early > 0) ? "**" + early + " runs early**" : "0 early");
			if (restarts.stream().anyMatch((r) -> Double.isNaN(r.released))) {
				text += ", **not released within the wait**";
			}
			if (lost > 0) {
				text += ", **" + lost + " never ran**";
			}
			return text;
		}

		private static String each(List<Restart> restarts, Function<Restart, String> figure) {
			return restarts.stream().map(figure).collect(Collectors.joining(" / "));
		}

		private static String tenths(double seconds) {
			return Double.isNaN(seconds) ? "–" : String.format(Locale.ROOT, "%.1f", seconds);
		}

	}

	private static String problems(int twice, int missing) {
		String text = "";
		if (twice > 0) {
			text += ", **" + twice + " ran twice**";
		}
		if (missing > 0) {
			text += ", **" + missing + " never ran**";
		}
		return text;
	}

	/** One system's figures; a step that failed leaves its own and later ones unset. */
	static final class Result {

		String failure;

		Throughput throughput1;

		Throughput throughput2;

		Burst burst1;

		Burst burst2;

		String falseDeaths;

		Recovery recovery;

		/** db-scheduler: what its default heartbeat would make of K4. */
		String computedRecovery = "";

		Crashes crashes;

		/** K8: ours at its defaults, restarted with the name the engine makes up. */
		List<Restart> restartsGenerated;

		/** K8b: the same, with a configured instance name. */
		List<Restart> restartsNamed;

		/** Why a system has no K8 figures. */
		String restartNote;

		double otherCores = Double.NaN;

		double commitBefore = Double.NaN;

		double commitAfter = Double.NaN;

	}

}
