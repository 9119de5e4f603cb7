package io.github.wheeltimer.benchmarks.durable;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;

import io.github.wheeltimer.benchmarks.durable.CountingDataSource.Counts;
import io.github.wheeltimer.benchmarks.durable.DurableOptions.Size;
import io.github.wheeltimer.benchmarks.durable.DurableOptions.Step;
import io.github.wheeltimer.benchmarks.durable.DurableResult.Timing;

/**
 * The steps of a {@link DurableBenchmark} pass, run on one system after the other: each system's
 * figures go into its {@link DurableResult}, and what they are made of to the log. One instance
 * serves every step, so the steps run in the order {@link #measure} gives, each on a settled
 * database; call numbers run on across systems, so that no two calls of the run share one.
 */
final class DurableSteps {

	/** What each step may take at most, past the last due time, before the calls left are reported missing. */
	private static final Duration GRACE = Duration.ofSeconds(15);

	/**
	 * D7's idle spans: a minute, so that each holds one of our clean-ups (once a minute, at the
	 * first poll), and the two spans compare like with like.
	 */
	static final Duration WAITING_IDLE = Duration.ofMinutes(1);

	/** How many times D7 paces its calls on each table. */
	private static final int PACED_RUNS = 3;

	/** The burst's instance needs time to start; a system that never drains must not hold the run. */
	private static final Duration BURST_CAP = Duration.ofSeconds(120);

	/** D1's rounds (odd: a median is then one of them). */
	static final int ROUNDS = 5;

	/** After F1's last success, the wait before its counts are read: ours deletes rows in a batch within a tick. */
	static final Duration FINISHED = Duration.ofSeconds(1);

	/**
	 * How long after a step PostgreSQL's statistics hold every backend's updates, waited for before
	 * and after the paced calls (outside of what they measure): a backend flushes
	 * its counts when it goes idle, at most once a second; counts it could not flush then wait up to
	 * {@code PGSTAT_IDLE_INTERVAL} (10 s) for a timer, on a connection the pool leaves idle.
	 */
	static final Duration STATS_FLUSHED = Duration.ofSeconds(11);

	private final Size size;

	/** The steps this pass runs, for the rows it was asked for. */
	private final Set<Step> steps;

	/** F1's calls. */
	private final int retriedCalls;

	/** D7's waiting calls. */
	private final long waiting;

	private final Database server;

	/** D6: the server's processes, read before and after a step. */
	private final ServerCpu serverCpu;

	/** The database of the system being measured. */
	private String database;

	/** Its URL, for F1's look at what the system left in it. */
	private String url;

	private long nextCall = 1;

	DurableSteps(DurableOptions options, Database server, ServerCpu serverCpu) {
		this.size = options.size();
		this.steps = options.steps();
		this.retriedCalls = options.retriedCalls();
		this.waiting = options.waiting();
		this.server = server;
		this.serverCpu = serverCpu;
	}

	/** The system measured next lives on this database of its own. */
	void useDatabase(String database, String url) {
		this.database = database;
		this.url = url;
	}

	/** Runs the pass's steps on the system, in order; a step that throws leaves the later ones unmeasured. */
	void measure(DurableSystem system, DurableResult result) throws Exception {
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
		if (this.steps.contains(Step.WAITING)) {
			// After every other: its millions of rows must not weigh on theirs.
			waiting(system, result);
		}
		long strays = CallLog.strays() + RetriedCalls.strays();
		if (strays > 0) {
			System.err.printf("  %d runs so far that no step expected (late leftovers or second runs)%n", strays);
		}
	}

	/** D3: {@code N} calls overdue when the instance starts. */
	private void burst(DurableSystem system, DurableResult result) throws Exception {
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
	private void idle(DurableSystem system, DurableResult result) throws InterruptedException {
		result.idlePerSecond = idleSpan(system, "idle", this.size.idle).perSecond();
	}

	/**
	 * Statements per second over the idle span, and what they were.
	 * @param label the log's name for the step
	 * @param span how long
	 */
	private Idle idleSpan(DurableSystem system, String label, Duration span) throws InterruptedException {
		// Whatever the burst left to tidy up is not idling.
		Thread.sleep(2_000);
		Counts before = system.counter().counts();
		ServerCpu.Mark cpu = this.serverCpu.mark();
		long start = System.nanoTime();
		Thread.sleep(span.toMillis());
		Counts idle = system.counter().counts().minus(before);
		double seconds = (System.nanoTime() - start) / 1e9;
		// Per second: one "call" per second of the span, in ms per 1,000.
		double cpuMillisPerSecond = cpu.usedFor(1).nanos() / 1e6 / seconds;
		double perSecond = idle.statements() / seconds;
		System.err.printf(Locale.ROOT, "  %s: %.2f statements/s over %.0f s (database CPU %.1f ms/s):%n%s", label,
				perSecond, seconds, cpuMillisPerSecond, idle.describe("    "));
		return new Idle(perSecond, cpuMillisPerSecond, idle);
	}

	/** D2, and D4's spread figure; on PostgreSQL, the updates of the system's table beside D6. */
	private void lateness(DurableSystem system, DurableResult result) throws Exception {
		DurableResult.Paced paced = paced(system, "lateness");
		result.lateness = paced.lateness();
		result.spreadStatements = paced.statements();
		result.spreadCommits = paced.commits();
		result.pacedCpu = paced.cpu();
		result.pacedUpdates = paced.updates();
	}

	/**
	 * Calls paced over some seconds: their lateness, statements and database CPU; on PostgreSQL,
	 * the updates of the system's table meanwhile, and how many of them were HOT.
	 * @param label the log's name for the step
	 */
	private DurableResult.Paced paced(DurableSystem system, String label) throws Exception {
		int count = this.size.lateness;
		long first = take(count);
		CallLog.Recorder recorder = CallLog.expect(first, count);
		// The same delays, in the same order, for every system.
		SplittableRandom random = new SplittableRandom(42);
		long spacingNanos = this.size.latenessPacing.toNanos() / count;
		System.err.printf("  %s: %,d calls over %d s%n", label, count, this.size.latenessPacing.toSeconds());
		if (this.server.id().equals(Database.POSTGRESQL)) {
			// The updates of a step before (a burst's, a quick idle span after it) are all counted by now.
			Thread.sleep(STATS_FLUSHED.toMillis());
		}
		long[] updatesBefore = tableUpdates(system);
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
		ServerCpu.Used cpu = paced.usedFor(count);
		CallLog.Lateness lateness = recorder.lateness();
		DurableResult.Updates updates = null;
		if (updatesBefore != null) {
			// Read once every backend has flushed its counts: the statements above are counted as they were.
			Thread.sleep(STATS_FLUSHED.toMillis());
			long[] updatesAfter = tableUpdates(system);
			updates = new DurableResult.Updates(updatesAfter[0] - updatesBefore[0], updatesAfter[1] - updatesBefore[1],
					counts.rows(system::isClaim), count);
		}
		System.err.printf("  %s: %s%n  %s: %,d statements:%n%s  %s: database CPU per 1,000 calls %s%n", label,
				lateness.text(), label, counts.statements(), counts.describe("    "), label, cpu.text());
		if (updates != null) {
			System.err.printf("  %s: %s%n", label, updates.text());
		}
		return new DurableResult.Paced(lateness, counts.statements() / (double) count,
				counts.commits() / (double) count, cpu, updates);
	}

	/**
	 * PostgreSQL's counts of the updates of the system's table so far, {@code n_tup_upd} and
	 * {@code n_tup_hot_upd}, read on a connection of the harness's own; {@code null} on MariaDB.
	 */
	private long[] tableUpdates(DurableSystem system) throws SQLException {
		if (!this.server.id().equals(Database.POSTGRESQL)) {
			return null;
		}
		try (Connection connection = connect();
				PreparedStatement select = connection.prepareStatement(
						"SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relid = CAST(? AS regclass)")) {
			select.setString(1, system.callsTable());
			try (ResultSet row = select.executeQuery()) {
				return row.next() ? new long[] { row.getLong(1), row.getLong(2) } : new long[] { 0, 0 };
			}
		}
	}

	/**
	 * D7: the paced and idle rows (D2, D4 paced, D5, D6 paced) on the system's table as the pass
	 * found it, then again on top of {@link #waiting} calls due 30 to 60 days ahead, which the
	 * harness writes straight into the table by SQL; then the plans of the system's polling and
	 * starting statements on that table, and the bytes it takes per waiting call.
	 */
	private void waiting(DurableSystem system, DurableResult result) throws Exception {
		DurableResult.Waiting waiting = new DurableResult.Waiting();
		result.waiting = waiting;
		waiting.waiting = this.waiting;
		boolean mariaDb = this.server.id().equals(Database.MARIADB);
		try (Connection connection = connect()) {
			waiting.rowsBefore = WaitingCalls.rows(connection, system.callsTable());
		}
		System.err.printf("  waiting: first on the table as it is (%,d rows)%n", waiting.rowsBefore);
		settle();
		Idle emptyIdle = idleSpan(system, "empty: idle", WAITING_IDLE);
		waiting.emptyIdle = emptyIdle.perSecond();
		waiting.emptyIdleCpu = emptyIdle.cpuMillisPerSecond();
		waiting.emptyRuns = pacedRuns(system, "empty");
		waiting.emptyPaced = median(waiting.emptyRuns);
		System.err.printf("  waiting: writing %,d calls due 30 to 60 days ahead%n", this.waiting);
		long start = System.nanoTime();
		try (Connection connection = connect()) {
			system.insertWaiting(connection, take(1), this.waiting);
			take((int) Math.min(Integer.MAX_VALUE, this.waiting));
		}
		waiting.insertSeconds = (System.nanoTime() - start) / 1e9;
		start = System.nanoTime();
		settle();
		waiting.settleSeconds = (System.nanoTime() - start) / 1e9;
		System.err.printf(Locale.ROOT, "  waiting: written in %.1f s, then %s in %.1f s%n", waiting.insertSeconds,
				this.server.betweenSteps(), waiting.settleSeconds);
		Counts onWaiting = system.counter().counts();
		Idle idle = idleSpan(system, "waiting: idle", WAITING_IDLE);
		waiting.fullIdle = idle.perSecond();
		waiting.fullIdleCpu = idle.cpuMillisPerSecond();
		waiting.fullRuns = pacedRuns(system, "waiting");
		waiting.fullPaced = median(waiting.fullRuns);
		settle();
		try (Connection connection = connect()) {
			WaitingCalls.sizes(connection, mariaDb, system.callsTable(), waiting);
			waiting.plans = system.plans(connection, system.counter().counts().minus(onWaiting));
		}
		System.err.printf(Locale.ROOT, "  waiting: %,d bytes in all (table %,d, indexes %,d): %.1f per waiting call%n%s%n%s",
				waiting.totalBytes, waiting.tableBytes, waiting.indexBytes, waiting.totalBytes / (double) this.waiting,
				waiting.indexes, waiting.plans);
	}

	/**
	 * D7's paced calls, {@value #PACED_RUNS} times on one table: the database's CPU over one such
	 * span moves by a third from run to run (its background workers), more than the 10 % D7 looks for.
	 */
	private List<DurableResult.Paced> pacedRuns(DurableSystem system, String label) throws Exception {
		List<DurableResult.Paced> runs = new ArrayList<>();
		for (int run = 1; run <= PACED_RUNS; run++) {
			settle();
			runs.add(paced(system, label + ": lateness, run " + run));
		}
		return runs;
	}

	/** @return the run whose database CPU is the median */
	private static DurableResult.Paced median(List<DurableResult.Paced> runs) {
		List<DurableResult.Paced> sorted = new ArrayList<>(runs);
		sorted.sort(Comparator.comparingDouble((run) -> run.cpu().millisPerThousandCalls()));
		return sorted.get(sorted.size() / 2);
	}

	/** A connection of the harness's own to the system's database, in autocommit, that no count sees. */
	private Connection connect() throws SQLException {
		Properties login = new Properties();
		login.setProperty("user", Database.user(this.url));
		return DriverManager.getConnection(this.url, login);
	}

	/**
	 * D1: one call after the other, due in an hour, alone and each in a transaction of its own. The
	 * two alternate in {@link #ROUNDS} rounds, and each figure is the median of its rounds' means:
	 * on 2 shared cores a build starting beside us shifts a round or two, not the median. The
	 * database is settled after the warm-up, when the table holds its calls: statistics of an empty
	 * table would have PostgreSQL scan it whole for each lookup of db-scheduler's.
	 */
	private void scheduleCost(DurableSystem system, DurableResult result) throws SQLException {
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
	private void retries(DurableSystem system, DurableResult result) throws Exception {
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
		try (Connection connection = connect();
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

	/**
	 * An idle span's statements per second, and what they were.
	 *
	 * @param perSecond statements per second
	 * @param cpuMillisPerSecond the database server's CPU time over the span, ms per second
	 * @param counts the statements
	 */
	private record Idle(double perSecond, double cpuMillisPerSecond, Counts counts) {
	}

	private static void sleepUntil(Instant instant) throws InterruptedException {
		long millis = Duration.between(Instant.now(), instant).toMillis();
		if (millis > 0) {
			System.err.printf("  waiting %.1f s until every call is overdue%n", millis / 1e3);
			Thread.sleep(millis);
		}
	}

}
