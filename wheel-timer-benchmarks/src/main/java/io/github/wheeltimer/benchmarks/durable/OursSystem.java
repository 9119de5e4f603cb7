package io.github.wheeltimer.benchmarks.durable;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.github.wheeltimer.annotation.DelayedExecution;
import io.github.wheeltimer.autoconfigure.WheelTimerDurableProperties;
import io.github.wheeltimer.durable.DurableCalls;
import io.github.wheeltimer.durable.jdbc.ClaimAndGateStatements;
import io.github.wheeltimer.durable.jdbc.DurableDialect;
import io.github.wheeltimer.durable.jdbc.DurableTables;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.resilience.annotation.Retryable;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Ours: {@code @DelayedExecution(durable = true)} in a Spring Boot application (no web server)
 * with everything at its defaults, its DataSource configured from {@code spring.datasource.*} as
 * an application's would be. The only settings: the database, and creating our tables in it. The
 * starter finds its dialect from the DataSource (PostgreSQL's, or MySQL's under MariaDB's name),
 * and creates the tables from that dialect's script.
 * <p>
 * Our delay is fixed per method, so each {@link Delay} is a method of {@link Targets}. A bean
 * post-processor wraps the application's DataSource in a {@link CountingDataSource}: every
 * statement of ours, and of the transaction manager the benchmark's transactions use, is counted.
 * <p>
 * F1's calls go to {@link Targets#failsTwice}, a durable method with Spring's own
 * {@code @Retryable}, which the wheel honours as it is, with no {@code @EnableResilientMethods}.
 */
public final class OursSystem implements DurableSystem {

	/** Beyond {@code wheel-timer.durable.horizon} (10 s): the scheduling instance only writes rows. */
	private static final Delay BACKLOG_DELAY = Delay.TWENTY_SECONDS;

	/** Our default tick: how long after its due time a call on the wheel may wait for it. */
	private static final Duration TICK = Duration.ofMillis(100);

	/**
	 * D7: the columns a new call sets, as the starter's insert lists them ({@code CallerWrites}),
	 * so that the waiting calls are the rows it would write, whatever else the table has.
	 */
	private static final String NEW_COLUMNS = "id, method_id, call_key, arguments, due_at, state, owner_id, attempts,"
			+ " trace_parent, shape, created_at, failures, retries, retrying_since, finished_at, last_error";

	/** D7: the waiting calls are calls of {@link Targets#oneHour}, which the instance knows and claims. */
	private static final Delay WAITING_DELAY = Delay.ONE_HOUR;

	/** D7: a statement sent on the waiting calls this slow or slower, on average, has its plan shown. */
	private static final long SLOW_MILLIS = 5;

	/** D7: the rows of the gate whose plan is shown, as a tick's batch of starting calls might hold. */
	private static final int GATED = 10;

	private final String url;

	private ConfigurableApplicationContext instance;

	private Targets targets;

	public OursSystem(String url) {
		this.url = url;
	}

	@Override
	public String label() {
		return "ours";
	}

	@Override
	public Backlog prepareBacklog(long firstCall, int count) {
		// One instance writes the calls and stops: the calls it still holds go back to the database
		// (none should, being due beyond its horizon). The measured instance then starts with all
		// of them overdue.
		try (ConfigurableApplicationContext scheduling = startApplication()) {
			CountingDataSource counter = counter(scheduling);
			Targets targets = scheduling.getBean(Targets.class);
			CountingDataSource.Counts before = counter.counts();
			for (int i = 0; i < count; i++) {
				long callNumber = firstCall + i;
				targets.twentySeconds(callNumber, CallLog.nowMicros() + BACKLOG_DELAY.micros());
			}
			CountingDataSource.Counts scheduled = counter.counts().minus(before);
			return new Backlog(Instant.now().plus(BACKLOG_DELAY.duration()).plus(TICK), scheduled);
		}
	}

	@Override
	public void start() {
		this.instance = startApplication();
		this.targets = this.instance.getBean(Targets.class);
	}

	@Override
	public void schedule(long callNumber, Delay delay, long dueAtEpochMicros) {
		switch (delay) {
			case HALF_SECOND -> this.targets.halfSecond(callNumber, dueAtEpochMicros);
			case ONE_SECOND -> this.targets.oneSecond(callNumber, dueAtEpochMicros);
			case TWO_SECONDS -> this.targets.twoSeconds(callNumber, dueAtEpochMicros);
			case FIVE_SECONDS -> this.targets.fiveSeconds(callNumber, dueAtEpochMicros);
			case TEN_SECONDS -> this.targets.tenSeconds(callNumber, dueAtEpochMicros);
			case TWENTY_SECONDS -> this.targets.twentySeconds(callNumber, dueAtEpochMicros);
			case ONE_HOUR -> this.targets.oneHour(callNumber, dueAtEpochMicros);
		}
	}

	@Override
	public void scheduleRetried(long callNumber, long dueAtEpochMicros) {
		this.targets.failsTwice(callNumber, dueAtEpochMicros);
	}

	@Override
	public String retriedRowsQuery() {
		// CONCAT reads the same on PostgreSQL and MariaDB; the prefix is the default one.
		return "SELECT CONCAT(state, ', ', attempts, ' runs'), COUNT(*) FROM WHEEL_TIMER_CALL WHERE method_id = '"
				+ Targets.FAILS_TWICE + "' GROUP BY 1";
	}

	@Override
	public boolean isRetryFrame(StackTraceElement frame) {
		// The policy, and the runner's steps that turn a failure into the next attempt's due time.
		String type = frame.getClassName();
		return type.startsWith("io.github.wheeltimer.annotation.DelayedRetry")
				|| (type.equals("io.github.wheeltimer.durable.run.CallRunner")
						&& (frame.getMethodName().startsWith("retry") || frame.getMethodName().equals("waitForRetry")));
	}

	@Override
	public TransactionTemplate transactions() {
		// Spring Boot's own transaction manager, on the application's (counting) DataSource.
		return new TransactionTemplate(this.instance.getBean(PlatformTransactionManager.class));
	}

	@Override
	public CountingDataSource counter() {
		return (this.instance != null) ? counter(this.instance) : null;
	}

	@Override
	public Duration lookInterval() {
		// wheel-timer.durable.poll-interval's default: calls beyond the horizon are looked for this often.
		return Duration.ofSeconds(2);
	}

	@Override
	public void close() {
		if (this.instance != null) {
			this.instance.close();
		}
	}

	@Override
	public String callsTable() {
		return this.instance.getBean(DurableTables.class).calls();
	}

	/** The claim's text up to its list of method ids: the part every claim of the instance starts with. */
	@Override
	public boolean isClaim(String sql) {
		DurableDialect dialect = this.instance.getBean(DurableDialect.class);
		DurableTables tables = this.instance.getBean(DurableTables.class);
		String fixed = WaitingCalls.commonPrefix(ClaimAndGateStatements.claimStatement(dialect, tables, 1, 0),
				ClaimAndGateStatements.claimStatement(dialect, tables, 2, 0));
		return sql.startsWith(CountingDataSource.key(fixed));
	}

	/**
	 * One call scheduled through the instance, due in an hour, is the template: each waiting call
	 * copies its method, trace and argument shape, and has arguments of the same form (the method's
	 * two numbers, its own), a new random id, and its own due time; pending, with no owner, as the
	 * starter's insert sets the rest. Then the template goes.
	 */
	@Override
	public void insertWaiting(Connection connection, long firstCall, long count) throws SQLException {
		boolean mariaDb = Database.isMariaDb(this.url);
		DurableDialect dialect = this.instance.getBean(DurableDialect.class);
		String calls = callsTable();
		schedule(firstCall, WAITING_DELAY, CallLog.nowMicros() + WAITING_DELAY.micros());
		Object template;
		String arguments;
		try (PreparedStatement select = connection.prepareStatement(
				"SELECT id, arguments FROM " + calls + " WHERE method_id = ? ORDER BY created_at DESC")) {
			select.setMaxRows(1);
			select.setString(1, Targets.ONE_HOUR);
			try (ResultSet row = select.executeQuery()) {
				row.next();
				template = row.getObject(1);
				arguments = row.getString(2);
			}
		}
		// The method's JSON array of its two numbers: each call its own; otherwise the template's as is.
		boolean numbered = arguments.matches("\\[\\d+,\\d+\\]");
		String id = mariaDb
				? "LOWER(INSERT(INSERT(INSERT(INSERT(HEX(RANDOM_BYTES(16)), 9, 0, '-'), 14, 0, '-'), 19, 0, '-'), 24, 0,"
						+ " '-'))"
				: "gen_random_uuid()";
		String callArguments = !numbered ? "t.arguments"
				: mariaDb ? "CONCAT('[', w.call, ',', TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', w.due), ']')"
						: "'[' || w.call || ',' || CAST(floor(extract(epoch FROM w.due) * 1000000) AS BIGINT) || ']'";
		System.err.printf("  waiting: %s's calls, arguments such as %s%n", Targets.ONE_HOUR, arguments);
		WaitingCalls.inChunks(firstCall + 1, count, (first, size) -> {
			try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + calls + " (" + NEW_COLUMNS
					+ ") SELECT " + id + ", t.method_id, NULL, " + callArguments + ", w.due, 'PENDING', NULL, 0,"
					+ " t.trace_parent, t.shape, " + dialect.now() + ", 0, 0, NULL, NULL, NULL FROM " + calls + " t"
					+ " CROSS JOIN " + WaitingCalls.series(mariaDb, size) + " WHERE t.id = ?")) {
				insert.setLong(1, first - 1);
				insert.setObject(2, template);
				return insert.executeUpdate();
			}
		});
		try (PreparedStatement delete = connection.prepareStatement("DELETE FROM " + calls + " WHERE id = ?")) {
			delete.setObject(1, template);
			delete.executeUpdate();
		}
	}

	/**
	 * The claim as each poll sends it (nothing due within the horizon: what a poll costs with
	 * every call waiting far ahead), the same claim taking {@value #GATED} rows (due within 61
	 * days), and the gate of {@value #GATED} claimed rows, as the starter sends them, bound as it
	 * binds them: the instance's id, its horizon, batch size and lease, the ids of its methods.
	 * On PostgreSQL also the claim's generic plan.
	 */
	@Override
	public String plans(Connection connection, CountingDataSource.Counts idle) throws SQLException {
		boolean mariaDb = Database.isMariaDb(this.url);
		DurableDialect dialect = this.instance.getBean(DurableDialect.class);
		DurableTables tables = this.instance.getBean(DurableTables.class);
		WheelTimerDurableProperties properties = this.instance.getBean(WheelTimerDurableProperties.class);
		List<String> methodIds = Arrays.stream(Targets.class.getDeclaredMethods())
			.map((method) -> method.getAnnotation(DelayedExecution.class))
			.filter(Objects::nonNull)
			.map(DelayedExecution::id)
			.sorted()
			.toList();
		Object owner;
		try (PreparedStatement select = connection
			.prepareStatement("SELECT id FROM " + tables.instances() + " ORDER BY heartbeat_at DESC")) {
			select.setMaxRows(1);
			try (ResultSet row = select.executeQuery()) {
				row.next();
				owner = dialect.id(UUID.fromString(row.getString(1)));
			}
		}
		String claim = ClaimAndGateStatements.claimStatement(dialect, tables, methodIds.size(), 0);
		StringBuilder plans = new StringBuilder();
		boolean autoCommit = connection.getAutoCommit();
		connection.setAutoCommit(false);
		try {
			List<Object> poll = claimParameters(mariaDb, owner,
					dialect.instant(Instant.now().plus(properties.getHorizon())), methodIds, properties.getBatchSize());
			plans.append(WaitingCalls.section("Our claim, as each poll sends it: nothing due within the horizon ("
					+ properties.getHorizon().toSeconds() + " s)", claim, poll,
					WaitingCalls.explain(connection, mariaDb, claim, poll)));
			if (!mariaDb) {
				String generic;
				try {
					generic = WaitingCalls.genericPlan(this.url, claim);
				}
				catch (SQLException ex) {
					generic = "(not shown: " + ex.getMessage() + ")\n";
				}
				plans.append(String.format("Its generic plan (EXPLAIN (GENERIC_PLAN), parameters unbound), which a "
						+ "server-side prepared statement may settle on after its fifth run:%n%n```%n%s```%n%n",
						generic));
			}
			List<Object> taking = claimParameters(mariaDb, owner, dialect.instant(Instant.now().plus(Duration.ofDays(61))),
					methodIds, GATED);
			if (!mariaDb) {
				plans.append(WaitingCalls.section("Our claim taking " + GATED + " rows (all due within 61 days)", claim,
						taking, WaitingCalls.explain(connection, false, claim, taking)));
			}
			// The rows the gate starts: claimed here (the earliest still pending), in this transaction.
			List<Object> ids = new ArrayList<>();
			try (PreparedStatement claiming = connection.prepareStatement(claim)) {
				WaitingCalls.bind(claiming, taking);
				try (ResultSet rows = claiming.executeQuery()) {
					while (rows.next()) {
						ids.add(dialect.id(UUID.fromString(rows.getString(1))));
					}
				}
			}
			String lock = ClaimAndGateStatements.gateLock(dialect, tables, ids.size());
			// In place where the dialect allows it: on these fresh tables no older starter ran.
			boolean inPlace = dialect.gateInPlace();
			String gate = dialect.returning(ClaimAndGateStatements.gateStatement(dialect, tables, properties.getLease(),
					dialect.inSubquery("id", lock), inPlace), "id");
			if (gate != null) {
				List<Object> parameters = new ArrayList<>(ids);
				parameters.add(owner);
				parameters.add(owner);
				plans.append(WaitingCalls.section("Our gate of " + ids.size() + " claimed rows, one statement",
						gate, parameters, WaitingCalls.explain(connection, mariaDb, gate, parameters)));
			}
			else {
				List<Object> parameters = new ArrayList<>(ids);
				parameters.add(owner);
				plans.append(WaitingCalls.section("Our gate of " + ids.size() + " claimed rows: its locking select",
						lock, parameters, WaitingCalls.explain(connection, mariaDb, lock, parameters)));
				String update = ClaimAndGateStatements.gateStatement(dialect, tables, properties.getLease(),
						"id IN (" + WaitingCalls.placeholders(ids.size()) + ")", inPlace);
				plans.append(WaitingCalls.section("Our gate: its update of the rows locked", update, parameters,
						WaitingCalls.explain(connection, mariaDb, update, parameters)));
			}
		}
		finally {
			connection.rollback();
			connection.setAutoCommit(autoCommit);
		}
		slowest(connection, mariaDb, idle, methodIds, plans);
		return plans.toString();
	}

	/**
	 * The statements sent on the waiting calls (the idle span and the paced calls) that took
	 * {@value #SLOW_MILLIS} ms or more each, on average, as the instance sent them: those that bind
	 * nothing, only the ids of its methods, or only a {@code LIMIT} (the take-over's look for a row
	 * of a dead owner, which binds 1), whose values are known here. Explained in a transaction
	 * rolled back, as the claim is.
	 */
	private static void slowest(Connection connection, boolean mariaDb, CountingDataSource.Counts idle,
			List<String> methodIds, StringBuilder plans) throws SQLException {
		List<java.util.Map.Entry<String, CountingDataSource.Sql>> slow = idle.bySql()
			.entrySet()
			.stream()
			.filter((entry) -> entry.getValue().count() > 0
					&& entry.getValue().nanos() / entry.getValue().count() >= SLOW_MILLIS * 1_000_000)
			.sorted(java.util.Comparator.comparingLong(
					(java.util.Map.Entry<String, CountingDataSource.Sql> entry) -> entry.getValue().nanos()).reversed())
			.toList();
		boolean autoCommit = connection.getAutoCommit();
		connection.setAutoCommit(false);
		try {
			for (java.util.Map.Entry<String, CountingDataSource.Sql> entry : slow) {
				String sql = entry.getKey();
				long parameters = sql.chars().filter((c) -> c == '?').count();
				String heading = String.format(java.util.Locale.ROOT,
						"Slow on the waiting calls: %d runs over the idle span and the paced calls, %.1f ms each on average", entry.getValue().count(),
						entry.getValue().nanos() / 1e6 / entry.getValue().count());
				// A lone LIMIT: the take-over's look for any row of a dead owner, which asks for one.
				boolean limitOne = parameters == 1 && sql.endsWith("LIMIT ?");
				if (parameters != 0 && parameters != methodIds.size() && !limitOne) {
					plans.append(heading).append(": binds values the harness does not know, not explained\n\n```sql\n")
						.append(sql)
						.append("\n```\n\n");
					continue;
				}
				List<Object> bound = new ArrayList<>(limitOne ? List.of(1) : (parameters == 0) ? List.of() : methodIds);
				String plan;
				try {
					plan = WaitingCalls.explain(connection, mariaDb, sql, bound);
				}
				catch (SQLException ex) {
					// Its parameters were not the method ids after all.
					plan = "(not explained: " + ex.getMessage() + ")\n";
				}
				plans.append(WaitingCalls.section(heading, sql, bound, plan));
				connection.rollback();
			}
		}
		finally {
			connection.rollback();
			connection.setAutoCommit(autoCommit);
		}
	}

	/** The claim's parameters, in the order its text binds them: on PostgreSQL's one statement, the owner first. */
	private static List<Object> claimParameters(boolean mariaDb, Object owner, Object until, List<String> methodIds,
			int limit) {
		List<Object> parameters = new ArrayList<>();
		if (!mariaDb) {
			parameters.add(owner);
		}
		parameters.add(until);
		parameters.addAll(methodIds);
		parameters.add(limit);
		return parameters;
	}

	private ConfigurableApplicationContext startApplication() {
		return new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
			.logStartupInfo(false)
			.run("--spring.main.banner-mode=off", "--spring.datasource.url=" + this.url,
					"--spring.datasource.username=" + Database.user(this.url), "--spring.datasource.password=",
					"--wheel-timer.durable.jdbc.initialize-schema=always");
	}

	private static CountingDataSource counter(ConfigurableApplicationContext context) {
		return (CountingDataSource) context.getBean(DataSource.class);
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

		@Bean
		Targets targets() {
			return new Targets();
		}

		/** Static: a post-processor must exist before the beans it processes. */
		@Bean
		static BeanPostProcessor countingDataSource() {
			return CountingDataSource.wrapping();
		}

	}

	/** The durable methods, one per delay; each reports its run to the harness. */
	public static class Targets {

		static final String FAILS_TWICE = "bench.failsTwice";

		static final String ONE_HOUR = "bench.oneHour";

		@DelayedExecution(delay = 500, timeUnit = TimeUnit.MILLISECONDS, durable = true, id = "bench.halfSecond")
		public void halfSecond(long callNumber, long dueAtEpochMicros) {
			CallLog.ran(callNumber, dueAtEpochMicros);
		}

		@DelayedExecution(delay = 1, timeUnit = TimeUnit.SECONDS, durable = true, id = "bench.oneSecond")
		public void oneSecond(long callNumber, long dueAtEpochMicros) {
			CallLog.ran(callNumber, dueAtEpochMicros);
		}

		@DelayedExecution(delay = 2, timeUnit = TimeUnit.SECONDS, durable = true, id = "bench.twoSeconds")
		public void twoSeconds(long callNumber, long dueAtEpochMicros) {
			CallLog.ran(callNumber, dueAtEpochMicros);
		}

		@DelayedExecution(delay = 5, timeUnit = TimeUnit.SECONDS, durable = true, id = "bench.fiveSeconds")
		public void fiveSeconds(long callNumber, long dueAtEpochMicros) {
			CallLog.ran(callNumber, dueAtEpochMicros);
		}

		@DelayedExecution(delay = 10, timeUnit = TimeUnit.SECONDS, durable = true, id = "bench.tenSeconds")
		public void tenSeconds(long callNumber, long dueAtEpochMicros) {
			CallLog.ran(callNumber, dueAtEpochMicros);
		}

		@DelayedExecution(delay = 20, timeUnit = TimeUnit.SECONDS, durable = true, id = "bench.twentySeconds")
		public void twentySeconds(long callNumber, long dueAtEpochMicros) {
			CallLog.ran(callNumber, dueAtEpochMicros);
		}

		@DelayedExecution(delay = 1, timeUnit = TimeUnit.HOURS, durable = true, id = ONE_HOUR)
		public void oneHour(long callNumber, long dueAtEpochMicros) {
			CallLog.ran(callNumber, dueAtEpochMicros);
		}

		/**
		 * F1: fails on its first two runs, by the attempt the wheel tells it (an application would
		 * decide so too), and succeeds on its third; the wheel retries it after a fixed backoff, as
		 * db-scheduler's failure handler does its task.
		 */
		@DelayedExecution(delay = RetriedCalls.FIRST_DELAY_MILLIS, timeUnit = TimeUnit.MILLISECONDS, durable = true,
				id = FAILS_TWICE)
		@Retryable(maxRetries = RetriedCalls.MAX_RETRIES, delay = RetriedCalls.BACKOFF_MILLIS)
		public void failsTwice(long callNumber, long dueAtEpochMicros) {
			RetriedCalls.run(callNumber, DurableCalls.currentAttempt(), dueAtEpochMicros);
		}

	}

}
