package io.github.wheeltimer.durable.storage;

import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.github.wheeltimer.durable.Tries;
import io.github.wheeltimer.durable.storage.DatabaseProblems.Source;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The writes of this instance's calls' rows (finish, fail, hand back, release), and what a
 * failing database does to them: a write that may pass later waits in {@code deferred} for the
 * next poll; one the database refuses for this row's data is given up (after its fallback), so
 * that one bad row never stops the instance's other work. Once the instance stops, every
 * statement runs within the stop's {@link ShutdownBudget}.
 * <p>
 * Threads: executors' threads write as their calls end, the poll's thread retries, the closing
 * thread stops. {@code deferred} is a concurrent queue, kept in order by a single retrier (the
 * poll, then the stop); the budget is published through a volatile field, set once.
 */
public final class RowWrites {

	private static final Log logger = LogFactory.getLog(RowWrites.class);

	private final DatabaseProblems problems;

	/** Told when a statement finds the database unreachable: the lease's take-overs wait then. */
	private final Runnable disconnected;

	private final Duration shutdownTimeout;

	private final Queue<Write> deferred = new ConcurrentLinkedQueue<>();

	private volatile @Nullable ShutdownBudget shutdown;

	public RowWrites(DatabaseProblems problems, Runnable disconnected, Duration shutdownTimeout) {
		this.problems = problems;
		this.disconnected = disconnected;
		this.shutdownTimeout = shutdownTimeout;
	}

	/**
	 * A write of one call's row, or of a batch's rows.
	 * @param rows which rows, for the log, such as
	 * {@code Durable call 1b4e... to orders.cancel (Orders.cancel(long)) [key 42]}
	 * @param what what it does to the rows, for the log
	 * @param fallback what to write instead if the database refuses it, or {@code null}
	 */
	public record Write(String rows, String what, Runnable statement, @Nullable Runnable fallback) {
	}

	/** Writes now or, while the database fails in a way that may pass, at the next poll. */
	public void write(String rows, String what, Runnable statement, @Nullable Runnable fallback) {
		write(new Write(rows, what, statement, fallback));
	}

	/** Writes now or, while the database fails in a way that may pass, at the next poll. */
	public void write(Write write) {
		if (!attempt(write)) {
			this.deferred.add(write);
		}
	}

	/** Leaves a write to the next poll: its statement failed already, in a way that may pass. */
	public void defer(Write write) {
		this.deferred.add(write);
	}

	/** Tries the writes that waited for the database again, in order, until one must still wait. */
	public void retryDeferred() {
		Write write;
		int left = this.deferred.size();
		while (left-- > 0 && (write = this.deferred.poll()) != null) {
			if (!attempt(write)) {
				this.deferred.add(write);
				return;
			}
		}
	}

	/** @return {@code false} if the write must wait for a later attempt */
	private boolean attempt(Write write) {
		try {
			if (run(write.statement())) {
				this.problems.succeeded(Source.CALLS);
			}
			return true;
		}
		catch (RuntimeException ex) {
			String call = write.rows() + " could not be " + write.what();
			if (DatabaseFailure.of(ex).retryLater()) {
				failed(Source.CALLS, ex);
				ShutdownBudget stopping = this.shutdown;
				if (stopping != null) {
					// No next poll to try it again: the lease hands the row on.
					stopping.leftToLease("a write failed (" + ex.getMessage() + ")");
					return true;
				}
				logger.debug(call + " (tried again at the next poll): " + ex.getMessage());
				return false;
			}
			Runnable fallback = write.fallback();
			logger.error(call + ": the database refused it for this row (" + ex.getMessage() + ")"
					+ ((fallback != null) ? "; writing it without the refused text" : "; given up"));
			if (fallback != null) {
				try {
					run(fallback);
				}
				catch (RuntimeException refusedAgain) {
					logger.error(call + " at all; its row stays as it is: " + refusedAgain.getMessage());
				}
			}
			return true;
		}
	}

	/**
	 * Runs a statement now, or within the stop's time budget once this instance is stopping.
	 * @return {@code false} if the stop skipped it: the database is unreachable, or took too long
	 */
	public boolean run(Runnable statement) {
		ShutdownBudget budget = this.shutdown;
		if (budget == null) {
			statement.run();
			return true;
		}
		return budget.run(statement);
	}

	/**
	 * Records a failed statement. A call's statement that failed for itself (a deadlock, its row
	 * refused) is that row's matter, logged where it is handled, not a problem of the database's:
	 * polls and heartbeats, which come again, say when they pass again; a call's statement might
	 * never. One that says the database cannot be reached also tells the lease, so that no
	 * take-over follows the outage before the others could beat again.
	 */
	public void failed(Source source, RuntimeException ex) {
		DatabaseFailure kind = DatabaseFailure.of(ex);
		if (source != Source.CALLS || kind == DatabaseFailure.UNREACHABLE || kind == DatabaseFailure.SCHEMA) {
			this.problems.failed(source, kind, ex);
		}
		if (kind == DatabaseFailure.UNREACHABLE) {
			this.disconnected.run();
		}
	}

	public void succeeded(Source source) {
		this.problems.succeeded(source);
	}

	/** @return the stop's budget, made by the first to ask: from then on every statement runs within it */
	public synchronized ShutdownBudget stopping() {
		ShutdownBudget budget = this.shutdown;
		if (budget == null) {
			budget = new ShutdownBudget(this.shutdownTimeout, this.problems);
			this.shutdown = budget;
		}
		return budget;
	}

}
