package io.github.wheeltimer.benchmarks.durable;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariDataSource;
import io.github.wheeltimer.durable.jdbc.DurableDialect;

/**
 * The {@link ClusterBenchmark} harness's own SQL on one system's database, on connections of its
 * own that no instance counts: the burst's calls written straight into the system's table, and
 * what the database says an instance holds, while it runs and after it was killed.
 * <p>
 * The same SQL on PostgreSQL and MariaDB: our tables' names unquoted in capitals, as the scripts
 * create them (MariaDB on Linux tells case apart; PostgreSQL folds them), and ids and instants
 * bound as our dialect for the database binds them.
 */
final class ClusterSql implements AutoCloseable {

	/** The burst's rows are calls of {@link ClusterInstance.Targets#oneSecond}, each with its own due time. */
	private static final String OURS_METHOD = "cluster.oneSecond";

	private final boolean ours;

	private final String url;

	/** How our tables take ids and instants on this run's database. */
	private final DurableDialect dialect;

	/** The longest a due call waits for the system to look for it (its poll). */
	private final Duration look;

	/** The harness's own connections to the system's database: never counted. */
	private final HikariDataSource admin;

	/** Opens the harness's pool on the system's database; db-scheduler's table is created apart. */
	ClusterSql(ClusterOptions.Config config, String url, DurableDialect dialect) {
		this.ours = config.system().equals("ours");
		this.url = url;
		this.dialect = dialect;
		this.look = config.look();
		this.admin = Database.pool(url, "harness-" + config.id());
		this.admin.setMaximumPoolSize(2);
	}

	/** db-scheduler's table, which its instances do not create themselves (ours do theirs). */
	void createTables() throws SQLException {
		if (!this.ours) {
			DbSchedulerSystem.createTable(this.admin, this.url);
		}
	}

	/**
	 * Our rows, as a transaction that made many calls due at the same time would leave them: what
	 * our schema scripts document, pending, arguments as the method's JSON array.
	 */
	void writeOursBurst(long first, int count, long due) throws SQLException {
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

	void writeDbSchedulerBurst(long first, int count, long due) {
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

	/** The instance's name in the instance table, for the log: made up by the engine, or configured. */
	String instanceName(ClusterChild instance) throws SQLException {
		try (Connection connection = this.admin.getConnection();
				PreparedStatement select = connection
					.prepareStatement("SELECT name FROM WHEEL_TIMER_INSTANCE WHERE id = ?")) {
			bindInstance(select, instance);
			try (ResultSet rows = select.executeQuery()) {
				return rows.next() ? rows.getString(1) : "?";
			}
		}
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
	void awaitHolding(ClusterChild instance) throws Exception {
		long deadline = CallLog.nowMicros() + 2_000_000 + this.look.toNanos() / 1_000;
		String inFlight = this.ours
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
				Thread.sleep(seen ? ClusterSteps.WORK_MILLIS / 5 : 5);
			}
		}
	}

	private String heldCount() {
		return this.ours
				? "SELECT COUNT(*) FROM WHEEL_TIMER_CALL WHERE owner_id = ?"
				: "SELECT COUNT(*) FROM scheduled_tasks WHERE picked AND picked_by = ?";
	}

	/**
	 * What the database knows an instance by, as the first parameter: ours, its instance id, bound
	 * as our dialect binds ids (a uuid on PostgreSQL, text on MariaDB); db-scheduler, its name.
	 */
	private void bindInstance(PreparedStatement statement, ClusterChild instance) throws SQLException {
		if (this.ours) {
			statement.setObject(1, this.dialect.id(UUID.fromString(instance.instance)));
		}
		else {
			statement.setString(1, instance.instance);
		}
	}

	/** When the database stopped showing any call held by the dead instance, polled every 50 ms. */
	long awaitReleased(ClusterChild dead, long deadlineMicros) throws Exception {
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

	/** The numbers of the calls the database shows the (dead) instance holding, in no particular order. */
	List<Long> heldCalls(ClusterChild dead) throws SQLException {
		List<Long> held = new ArrayList<>();
		String sql = this.ours
				? "SELECT arguments FROM WHEEL_TIMER_CALL WHERE owner_id = ?"
				: "SELECT task_instance FROM scheduled_tasks WHERE picked AND picked_by = ?";
		try (Connection connection = this.admin.getConnection();
				PreparedStatement select = connection.prepareStatement(sql)) {
			bindInstance(select, dead);
			try (ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					String text = rows.getString(1);
					long number = this.ours ? Long.parseLong(text.substring(1, text.indexOf(','))) : Long.parseLong(text);
					held.add(number);
				}
			}
		}
		return held;
	}

	@Override
	public void close() {
		this.admin.close();
	}

}
