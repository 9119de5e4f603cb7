package io.github.wheeltimer.benchmarks.durable;

import java.io.Serializable;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerBuilder;
import com.github.kagkarlsson.scheduler.SchedulerClient;
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
 */
final class DbSchedulerSystem implements DurableSystem {

	static final String TASK = "bench-call";

	/** Its default is 30 minutes; a benchmark that hangs should not. Nothing runs while it stops. */
	private static final Duration SHUTDOWN_MAX_WAIT = Duration.ofSeconds(10);

	private final String label;

	private final boolean tuned;

	private final HikariDataSource pool;

	private final CountingDataSource counter;

	private final TransactionAwareDataSourceProxy dataSource;

	private final TransactionTemplate transactions;

	private final OneTimeTask<CallData> task = Tasks.oneTime(TASK, CallData.class)
		.execute((instance, context) -> CallLog.ran(instance.getData().callNumber(),
				instance.getData().dueAtEpochMicros()));

	private Scheduler scheduler;

	private DbSchedulerSystem(String label, boolean tuned, String url) throws SQLException {
		this.label = label;
		this.tuned = tuned;
		this.pool = Postgres.pool(url, label);
		createTable(this.pool);
		this.counter = new CountingDataSource(this.pool);
		this.dataSource = new TransactionAwareDataSourceProxy(this.counter);
		this.transactions = new TransactionTemplate(new DataSourceTransactionManager(this.counter));
	}

	/** Everything as it comes: polling every 10 s, the {@code fetch} strategy. */
	static DbSchedulerSystem defaults(String url) throws SQLException {
		return new DbSchedulerSystem("db-scheduler (defaults)", false, url);
	}

	/**
	 * Its finest sensible settings for short delays on PostgreSQL: polling every 100 ms, and the
	 * {@code lock-and-fetch} strategy (one {@code SELECT ... FOR UPDATE SKIP LOCKED} that picks
	 * and returns due executions), with the batch sizes its README gives for high throughput.
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
		SchedulerClient client = SchedulerClient.Builder.create(this.dataSource, this.task).build();
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
		SchedulerBuilder builder = Scheduler.create(this.dataSource, this.task).shutdownMaxWait(SHUTDOWN_MAX_WAIT);
		if (this.tuned) {
			builder.pollingInterval(Duration.ofMillis(100)).pollUsingLockAndFetch(1.0, 4.0);
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

	/**
	 * The table its README documents for PostgreSQL, with its indexes, created before anything
	 * is counted.
	 */
	static void createTable(HikariDataSource pool) throws SQLException {
		try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
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
	 * A call's task data.
	 *
	 * @param callNumber the harness's number of the call
	 * @param dueAtEpochMicros when the harness wants it to run
	 */
	record CallData(long callNumber, long dueAtEpochMicros) implements Serializable {
	}

}
