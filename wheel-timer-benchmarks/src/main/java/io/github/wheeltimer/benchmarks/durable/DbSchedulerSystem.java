package io.github.wheeltimer.benchmarks.durable;

import java.io.Serializable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import javax.sql.DataSource;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerBuilder;
import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.jdbc.JdbcCustomization;
import com.github.kagkarlsson.scheduler.jdbc.MariaDBJdbcCustomization;
import com.github.kagkarlsson.scheduler.jdbc.MySQL8JdbcCustomization;
import com.github.kagkarlsson.scheduler.task.FailureHandler;
import com.github.kagkarlsson.scheduler.task.Task;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariDataSource;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * db-scheduler, the plain library: one one-time task whose data is the call's number and due
 * time, scheduled for "now plus the delay", run by a {@link Scheduler} on 10 threads (its
 * default). Its task data goes through its default serializer (Java serialization).
 * <p>
 * It is given the counting DataSource behind Spring's {@link TransactionAwareDataSourceProxy}, as
 * its README says to do for scheduling inside a transaction: in a transaction of the
 * {@link DataSourceTransactionManager} on the same counting DataSource, the call's insert is part
 * of the caller's transaction; outside one, it runs on a connection of its own, in autocommit.
 * <p>
 * Its {@code JdbcCustomization}, the SQL it writes for a database. On PostgreSQL, the one it
 * detects itself, {@code PostgreSqlJdbcCustomization}: timestamps with a zone; lock-and-fetch in
 * one statement, an {@code UPDATE ... RETURNING} over a {@code SELECT ... FOR UPDATE SKIP LOCKED}.
 * On MariaDB ({@link #customization}), with timestamps persisted in UTC, as it asks for on MySQL
 * and MariaDB (their {@code TIMESTAMP} has no zone): the defaults get
 * {@code MariaDBJdbcCustomization}, the one it detects there. That one refuses lock-and-fetch
 * ({@code supportsGenericLockAndFetch()} is false in 16.12: its query would put
 * {@code FOR UPDATE SKIP LOCKED} before the {@code ORDER BY}), so the tuned configuration gets
 * {@code MySQL8JdbcCustomization}, the same but for that query, which it writes in the order
 * MariaDB 10.6 and later accept ({@code ... ORDER BY execution_time LIMIT n FOR UPDATE SKIP
 * LOCKED}): its generic lock-and-fetch, that query and a batch of updates that mark the rows
 * picked, in one transaction.
 * <p>
 * F1's calls are a second one-time task, {@value #RETRIED_TASK}, whose failures its
 * {@code FailureHandler} retries as its README shows: {@code MaxRetriesFailureHandler} around
 * {@code OnFailureRetryLater}, a fixed delay from the end of the failed run, written to the
 * execution's row (its {@code consecutive_failures} and next {@code execution_time}).
 */
final class DbSchedulerSystem implements DurableSystem {

	static final String TASK = "bench-call";

	static final String RETRIED_TASK = "bench-retried";

	/** Its table, as its README creates it ({@link #createTable}). */
	static final String TABLE = "scheduled_tasks";

	/** How many threads it runs calls on: its default. */
	private static final int THREADS = 10;

	/** Its default is 30 minutes; a benchmark that hangs should not. Nothing runs while it stops. */
	private static final Duration SHUTDOWN_MAX_WAIT = Duration.ofSeconds(10);

	private final String label;

	private final boolean tuned;

	private final String url;

	private final HikariDataSource pool;

	private final CountingDataSource counter;

	private final TransactionAwareDataSourceProxy dataSource;

	private final TransactionTemplate transactions;

	private final OneTimeTask<CallData> task = Tasks.oneTime(TASK, CallData.class)
		.execute((instance, context) -> CallLog.ran(instance.getData().callNumber(),
				instance.getData().dueAtEpochMicros()));

	/**
	 * F1: fails on its first two runs per instance id, by the harness's count (db-scheduler tells a
	 * handler the failures before it, not its attempt), and succeeds on its third.
	 */
	private final OneTimeTask<CallData> retried = Tasks.oneTime(RETRIED_TASK, CallData.class)
		.onFailure(new FailureHandler.MaxRetriesFailureHandler<>(RetriedCalls.MAX_RETRIES,
				new FailureHandler.OnFailureRetryLater<>(Duration.ofMillis(RetriedCalls.BACKOFF_MILLIS))))
		.execute((instance, context) -> RetriedCalls.run(instance.getData().callNumber(), 0,
				instance.getData().dueAtEpochMicros()));

	private Scheduler scheduler;

	private DbSchedulerSystem(String label, boolean tuned, String url) throws SQLException {
		this.label = label;
		this.tuned = tuned;
		this.url = url;
		this.pool = Database.pool(url, label);
		createTable(this.pool, url);
		this.counter = new CountingDataSource(this.pool);
		this.dataSource = new TransactionAwareDataSourceProxy(this.counter);
		this.transactions = new TransactionTemplate(new DataSourceTransactionManager(this.counter));
	}

	/**
	 * Everything as it comes: polling every 10 s, the {@code fetch} strategy (a {@code SELECT} of
	 * due executions, then an {@code UPDATE ... WHERE version = ?} per execution to pick it).
	 */
	static DbSchedulerSystem defaults(String url) throws SQLException {
		return new DbSchedulerSystem("db-scheduler (defaults)", false, url);
	}

	/**
	 * Its finest sensible settings for short delays: polling every 100 ms, and the
	 * {@code lock-and-fetch} strategy (on PostgreSQL one statement that picks and returns due
	 * executions; on MariaDB a {@code SELECT ... FOR UPDATE SKIP LOCKED} and a batch of updates in
	 * one transaction), with the batch sizes its README gives for high throughput
	 * ({@link #scheduler}).
	 */
	static DbSchedulerSystem tuned(String url) throws SQLException {
		return new DbSchedulerSystem("db-scheduler (tuned)", true, url);
	}

	@Override
	public String label() {
		return this.label;
	}

	@Override
	public Backlog prepareBacklog(long firstCall, int count) {
		// A client alone schedules, as an application instance that runs no scheduler would:
		// nothing runs the calls until start().
		SchedulerClient client = client(this.dataSource, this.url, this.task);
		CountingDataSource.Counts before = this.counter.counts();
		Instant due = Instant.now();
		for (int i = 0; i < count; i++) {
			long callNumber = firstCall + i;
			client.scheduleIfNotExists(this.task.instance(Long.toString(callNumber),
					new CallData(callNumber, CallLog.nowMicros())), due);
		}
		return new Backlog(due, this.counter.counts().minus(before));
	}

	@Override
	public void start() {
		SchedulerBuilder builder = scheduler(this.dataSource, this.url, List.of(this.task, this.retried), this.tuned)
			.shutdownMaxWait(SHUTDOWN_MAX_WAIT);
		if (this.tuned) {
			builder.pollingInterval(Duration.ofMillis(100));
		}
		this.scheduler = builder.build();
		this.scheduler.start();
	}

	@Override
	public void schedule(long callNumber, Delay delay, long dueAtEpochMicros) {
		this.scheduler.scheduleIfNotExists(
				this.task.instance(Long.toString(callNumber), new CallData(callNumber, dueAtEpochMicros)),
				Instant.now().plus(delay.duration()));
	}

	@Override
	public void scheduleRetried(long callNumber, long dueAtEpochMicros) {
		this.scheduler.scheduleIfNotExists(
				this.retried.instance(Long.toString(callNumber), new CallData(callNumber, dueAtEpochMicros)),
				Instant.now().plusMillis(RetriedCalls.FIRST_DELAY_MILLIS));
	}

	@Override
	public String retriedRowsQuery() {
		// CONCAT and a boolean in a CASE read the same on PostgreSQL and MariaDB (whose BOOLEAN is a
		// number); CONCAT with a NULL is NULL on MariaDB, so the failures never are.
		return "SELECT CONCAT(CASE WHEN picked THEN 'picked' ELSE 'waiting' END, ', ', "
				+ "COALESCE(consecutive_failures, 0), ' failures'), COUNT(*) FROM scheduled_tasks WHERE task_name = '"
				+ RETRIED_TASK + "' GROUP BY 1";
	}

	@Override
	public boolean isRetryFrame(StackTraceElement frame) {
		// Its failure handlers: they decide the next try, and are where a backoff would wait.
		return frame.getClassName().startsWith(FailureHandler.class.getName());
	}

	@Override
	public TransactionTemplate transactions() {
		return this.transactions;
	}

	@Override
	public CountingDataSource counter() {
		return this.counter;
	}

	@Override
	public Duration lookInterval() {
		return this.tuned ? Duration.ofMillis(100) : SchedulerBuilder.DEFAULT_POLLING_INTERVAL;
	}

	@Override
	public void close() {
		if (this.scheduler != null) {
			this.scheduler.stop();
		}
		this.pool.close();
	}

	@Override
	public String callsTable() {
		return TABLE;
	}

	/**
	 * Its pick: the one statement of lock-and-fetch on PostgreSQL, or the update that picks an
	 * execution it fetched (or, on MariaDB, locked); its unpick and heartbeat set other columns.
	 */
	@Override
	public boolean isClaim(String sql) {
		return sql.toLowerCase(Locale.ROOT).contains("set picked = ?, picked_by = ?, last_heartbeat = ?");
	}

	/**
	 * One call scheduled through the scheduler, due in an hour, is the template: each waiting call
	 * copies its row (its task, its serialized data, unpicked, version 1) but for its instance id
	 * (its number, as the harness names every call) and its due time. Then the template goes.
	 */
	@Override
	public void insertWaiting(Connection connection, long firstCall, long count) throws SQLException {
		boolean mariaDb = Database.isMariaDb(this.url);
		schedule(firstCall, Delay.ONE_HOUR, CallLog.nowMicros() + Delay.ONE_HOUR.micros());
		String columns = "task_name, task_instance, task_data, execution_time, picked, picked_by, last_success,"
				+ " last_failure, consecutive_failures, last_heartbeat, version, priority";
		WaitingCalls.inChunks(firstCall + 1, count, (first, size) -> {
			try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + TABLE + " (" + columns
					+ ") SELECT t.task_name, CAST(w.call AS " + (mariaDb ? "CHAR" : "TEXT") + "), t.task_data, w.due,"
					+ " t.picked, t.picked_by, t.last_success, t.last_failure, t.consecutive_failures, t.last_heartbeat,"
					+ " t.version, t.priority FROM " + TABLE + " t CROSS JOIN " + WaitingCalls.series(mariaDb, size)
					+ " WHERE t.task_name = ? AND t.task_instance = ?")) {
				insert.setLong(1, first - 1);
				insert.setString(2, TASK);
				insert.setString(3, Long.toString(firstCall));
				return insert.executeUpdate();
			}
		});
		try (PreparedStatement delete = connection
			.prepareStatement("DELETE FROM " + TABLE + " WHERE task_name = ? AND task_instance = ?")) {
			delete.setString(1, TASK);
			delete.setString(2, Long.toString(firstCall));
			delete.executeUpdate();
		}
	}

	/**
	 * Its poll, the statement it sent most while idle that reads due executions
	 * ({@code execution_time <= ?}), as it sent it, bound as it binds it: the picks it sets
	 * ({@code picked = ?} after {@code SET}: true), the ones it reads (after {@code WHERE}: false),
	 * a name, now, and its limit: lock-and-fetch's upper limit (4.0 per thread), fetch's (3.0 per
	 * thread, its default).
	 */
	@Override
	public String plans(Connection connection, CountingDataSource.Counts idle) throws SQLException {
		String poll = idle.bySql()
			.entrySet()
			.stream()
			.filter((entry) -> entry.getKey().toLowerCase(Locale.ROOT).contains("execution_time <= ?"))
			.max(Comparator.comparingLong((Map.Entry<String, CountingDataSource.Sql> entry) -> entry.getValue().count()))
			.map(Map.Entry::getKey)
			.orElse(null);
		if (poll == null) {
			return "(no poll of " + this.label + " was seen while idle)\n\n";
		}
		int limit = (int) ((this.tuned ? 4.0 : 3.0) * THREADS);
		Timestamp now = Timestamp.from(Instant.now());
		List<Object> parameters = new ArrayList<>();
		String lower = poll.toLowerCase(Locale.ROOT);
		for (int i = lower.indexOf('?'); i >= 0; i = lower.indexOf('?', i + 1)) {
			String before = lower.substring(0, i).stripTrailing();
			if (before.endsWith("picked_by =")) {
				parameters.add("explain");
			}
			else if (before.endsWith("picked =")) {
				parameters.add(!before.contains(" where "));
			}
			else if (before.endsWith("last_heartbeat =") || before.endsWith("execution_time <=")) {
				parameters.add(now);
			}
			else if (before.endsWith("limit")) {
				parameters.add(limit);
			}
			else {
				return "(its poll has a parameter the harness does not know how to bind: " + poll + ")\n\n";
			}
		}
		boolean autoCommit = connection.getAutoCommit();
		connection.setAutoCommit(false);
		try {
			return WaitingCalls.section(this.label + "'s poll, as it sends it: nothing due", poll, parameters,
					WaitingCalls.explain(connection, Database.isMariaDb(this.url), poll, parameters));
		}
		finally {
			connection.rollback();
			connection.setAutoCommit(autoCommit);
		}
	}

	/**
	 * A scheduler on the database of {@code url}, with the customization it needs there.
	 * @param tasks the tasks it runs
	 * @param lockAndFetch whether it polls with {@code lock-and-fetch} (with the batch sizes its
	 * README gives for high throughput) rather than its default, {@code fetch}
	 */
	static SchedulerBuilder scheduler(DataSource dataSource, String url, List<Task<?>> tasks, boolean lockAndFetch) {
		SchedulerBuilder builder = Scheduler.create(dataSource, tasks);
		if (Database.isMariaDb(url)) {
			builder.jdbcCustomization(customization(lockAndFetch));
		}
		if (lockAndFetch) {
			builder.pollUsingLockAndFetch(1.0, 4.0);
		}
		return builder;
	}

	/** What the report says of its configurations on a run's database. */
	static String configurations(String database) {
		return database.equals(Database.MARIADB)
				? "db-scheduler on MariaDB, timestamps in UTC: defaults poll with fetch through "
						+ "MariaDBJdbcCustomization, the one it detects; tuned with lock-and-fetch (1.0, 4.0) through "
						+ "MySQL8JdbcCustomization, MariaDB's refusing lock-and-fetch in 16.12 (a SELECT ... LIMIT ... FOR "
						+ "UPDATE SKIP LOCKED, then a batch of updates, in one transaction)."
				: "db-scheduler on PostgreSQL, through PostgreSqlJdbcCustomization, the one it detects: defaults poll "
						+ "with fetch; tuned with lock-and-fetch (1.0, 4.0), one UPDATE ... RETURNING.";
	}

	/** A client alone, writing as the scheduler reads: the same timestamps. */
	static SchedulerClient client(DataSource dataSource, String url, Task<?> task) {
		SchedulerClient.Builder builder = SchedulerClient.Builder.create(dataSource, task);
		if (Database.isMariaDb(url)) {
			builder.jdbcCustomization(customization(false));
		}
		return builder.build();
	}

	/**
	 * On MariaDB: its own customization, or MySQL 8's for lock-and-fetch, which its own refuses
	 * (both extend {@code MySQLBaseJdbcCustomization}: the same timestamps, limits and data). Given
	 * rather than detected, with timestamps in UTC (what the scheduler's
	 * {@code alwaysPersistTimestampInUTC()} would set), because the client has no such setting,
	 * and must write them as the scheduler reads them.
	 */
	private static JdbcCustomization customization(boolean lockAndFetch) {
		return lockAndFetch ? new MySQL8JdbcCustomization(true) : new MariaDBJdbcCustomization(true);
	}

	/**
	 * The table its README documents for the database of {@code url}, with its indexes, created
	 * before anything is counted.
	 */
	static void createTable(HikariDataSource pool, String url) throws SQLException {
		try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
			if (Database.isMariaDb(url)) {
				createMySqlTable(statement);
				return;
			}
			statement.execute("""
					CREATE TABLE scheduled_tasks (
					    task_name TEXT NOT NULL,
					    task_instance TEXT NOT NULL,
					    task_data BYTEA,
					    execution_time TIMESTAMP WITH TIME ZONE NOT NULL,
					    picked BOOLEAN NOT NULL,
					    picked_by TEXT,
					    last_success TIMESTAMP WITH TIME ZONE,
					    last_failure TIMESTAMP WITH TIME ZONE,
					    consecutive_failures INT,
					    last_heartbeat TIMESTAMP WITH TIME ZONE,
					    version BIGINT NOT NULL,
					    priority SMALLINT,
					    PRIMARY KEY (task_name, task_instance))""");
			statement.execute("CREATE INDEX execution_time_idx ON scheduled_tasks (execution_time)");
			statement.execute("CREATE INDEX last_heartbeat_idx ON scheduled_tasks (last_heartbeat)");
			statement.execute(
					"CREATE INDEX priority_execution_time_idx ON scheduled_tasks (priority DESC, execution_time ASC)");
		}
	}

	/**
	 * The same table in MySQL's and MariaDB's types: {@code TIMESTAMP(6)} for its instants (to the
	 * microsecond, in UTC as the customization writes them), keys of 100 characters, the data a
	 * {@code BLOB}, indexes declared with the table.
	 */
	private static void createMySqlTable(Statement statement) throws SQLException {
		statement.execute("""
				CREATE TABLE scheduled_tasks (
				    task_name VARCHAR(100) NOT NULL,
				    task_instance VARCHAR(100) NOT NULL,
				    task_data BLOB,
				    execution_time TIMESTAMP(6) NOT NULL,
				    picked BOOLEAN NOT NULL,
				    picked_by VARCHAR(50),
				    last_success TIMESTAMP(6) NULL,
				    last_failure TIMESTAMP(6) NULL,
				    consecutive_failures INT,
				    last_heartbeat TIMESTAMP(6) NULL,
				    version BIGINT NOT NULL,
				    priority SMALLINT,
				    PRIMARY KEY (task_name, task_instance),
				    INDEX execution_time_idx (execution_time),
				    INDEX last_heartbeat_idx (last_heartbeat),
				    INDEX priority_execution_time_idx (priority DESC, execution_time ASC)
				) ENGINE = InnoDB""");
	}

	/**
	 * A call's task data.
	 *
	 * @param callNumber the harness's number of the call
	 * @param dueAtEpochMicros when the harness wants it to run
	 */
	record CallData(long callNumber, long dueAtEpochMicros) implements Serializable {
	}

}
