package io.github.wheeltimer.benchmarks.durable;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;

import org.springframework.transaction.support.TransactionTemplate;

/**
 * One system of durable delayed calls, on its own fresh database of the run's server. Every
 * call it runs reports to {@link CallLog#ran(long, long)} with the number and the due time it was
 * given.
 */
interface DurableSystem extends AutoCloseable {

	/** The column's heading. */
	String label();

	/**
	 * Writes {@code count} calls, numbered from {@code firstCall}, with no instance of the system
	 * running them, so that all of them are due at once when {@link #start()} brings one up.
	 * @return when the last of them is due, and the statements it took to schedule them
	 */
	Backlog prepareBacklog(long firstCall, int count) throws Exception;

	/** Starts the instance that runs the calls, and stays up until {@link #close()}. */
	void start() throws Exception;

	/**
	 * Schedules one call, from the caller's thread, in the caller's transaction if there is one.
	 * @param dueAtEpochMicros when the harness wants it to run: its clock read before this call,
	 * plus the delay, so the time a system takes to schedule never counts against it
	 */
	void schedule(long callNumber, Delay delay, long dueAtEpochMicros);

	/**
	 * F1: schedules one call that fails on its first two runs and succeeds on its third
	 * ({@link RetriedCalls#run}), retried by the system itself after
	 * {@link RetriedCalls#BACKOFF_MILLIS}, first due {@link RetriedCalls#FIRST_DELAY_MILLIS} from
	 * now, from the caller's thread.
	 * @param dueAtEpochMicros when the harness wants its first run
	 */
	void scheduleRetried(long callNumber, long dueAtEpochMicros);

	/**
	 * F1: a query of the system's database that tells what is left of the retried calls' rows,
	 * one row per kind: a text that names the kind (its state, its runs), and how many rows.
	 */
	String retriedRowsQuery();

	/** F1: whether a stack frame is of the system's own retry or backoff code. */
	boolean isRetryFrame(StackTraceElement frame);

	/** Transactions on the same DataSource the system writes its calls to. */
	TransactionTemplate transactions();

	/** Counts what the running instance, and calls scheduled through it, send to the database. */
	CountingDataSource counter();

	/** The longest a due call may wait for the system to look for it: how long to wait past a due time. */
	Duration lookInterval();

	/**
	 * The table of its calls, as its statements name it (PostgreSQL folds the name, as it does in
	 * a {@code regclass}), once the instance runs.
	 */
	String callsTable();

	/**
	 * Whether a statement is the one that claims due calls (db-scheduler: picks them), by its text
	 * as {@link CountingDataSource} keys it: the rows it changed or returned are the rows claimed.
	 */
	boolean isClaim(String sql);

	/**
	 * D7: writes {@code count} calls due 30 to 60 days from now, spread at random, numbered from
	 * {@code firstCall} on, straight into the system's table by SQL ({@link WaitingCalls}), in a
	 * few statements, as a call scheduled through the running instance would have left each row:
	 * its columns are copied from one such call, written first and then deleted.
	 * @param connection the harness's own, in autocommit, on the system's database
	 */
	void insertWaiting(Connection connection, long firstCall, long count) throws SQLException;

	/**
	 * D7: the plans of the statements the system polls and starts its calls with, as it sends them,
	 * bound with the values it would bind, on its table as it is now: {@code EXPLAIN (ANALYZE,
	 * BUFFERS)} in a transaction rolled back on PostgreSQL, {@code EXPLAIN} on MariaDB.
	 * @param connection the harness's own, on the system's database
	 * @param idle what the instance sent on the waiting calls (their idle span and paced calls), to
	 * take its polling statement's text from
	 * @return the plans, each under a heading, in Markdown
	 */
	String plans(Connection connection, CountingDataSource.Counts idle) throws SQLException;

	@Override
	void close();

	/**
	 * @param allDueBy when the last call of the backlog is due
	 * @param scheduling the statements it took to schedule them
	 */
	record Backlog(Instant allDueBy, CountingDataSource.Counts scheduling) {
	}

}
