package io.github.wheeltimer.durable.storage;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * The time a stopping instance may spend waiting for its database
 * ({@code wheel-timer.durable.shutdown-timeout}): the union of the moments when at least one of
 * its statements is in flight (handing held calls back, the start gates and writes of calls that
 * still run, the writes that waited for the database, leaving the instance table), whatever runs
 * in between (the timers' drain, methods still running) and however many statements overlap.
 * Each statement runs on a thread of this budget while its caller waits, at most until the
 * budget is spent; one still in flight then is interrupted (a pool's wait for a connection ends
 * with it). Once the database is known unreachable, or the budget is spent, every further
 * statement is skipped: the lease hands its row to the other instances, or to the next start, as
 * after a crash.
 * <p>
 * Threads: the thread that closes the application (the durable calls' stop and destroy, the
 * timers' stop handing back what they held), the gate thread (start gates, deletes of calls that
 * ran, a call its executor refused), the executors' threads (writes of the calls still running)
 * and a timer's worker (a call that fell due as the instance stopped) call
 * {@link #run(Runnable)} concurrently. The accounting is guarded by this object's lock, never held
 * while a statement runs, so statements run in parallel as they would without a stop.
 */
public final class ShutdownBudget {

	private final Duration timeout;

	private final DatabaseProblems problems;

	private final ExecutorService statements = Executors.newCachedThreadPool(daemons());

	/** Statements in flight; guarded by this. */
	private int inFlight;

	/** When the statements in flight began to be in flight; guarded by this. */
	private long busySinceNanos;

	/** The budget spent by the moments with statements in flight that are over; guarded by this. */
	private long spentNanos;

	/** Why statements are skipped from now on; guarded by this. */
	private @Nullable String skipping;

	/** How many statements were skipped; guarded by this. */
	private int skipped;

	ShutdownBudget(Duration timeout, DatabaseProblems problems) {
		this.timeout = timeout;
		this.problems = problems;
	}

	/**
	 * Runs one statement within what is left of the budget, unless statements are skipped already.
	 * @return {@code false} if it was skipped, or did not end in time: its row is left to the lease
	 * @throws RuntimeException what the statement threw, unless it says the database is unreachable
	 */
	public boolean run(Runnable statement) {
		long deadline;
		synchronized (this) {
			if (this.skipping == null && this.problems.unreachable()) {
				this.skipping = "the database was known to be unreachable (" + this.problems.describe() + ")";
			}
			if (this.skipping != null) {
				this.skipped++;
				return false;
			}
			long now = System.nanoTime();
			if (this.inFlight++ == 0) {
				this.busySinceNanos = now;
			}
			// Every statement of one busy stretch shares its end: overlapping ones count once.
			deadline = this.busySinceNanos + this.timeout.toNanos() - this.spentNanos;
		}
		try {
			Future<?> running;
			try {
				running = this.statements.submit(statement);
			}
			catch (RejectedExecutionException closed) {
				return skip("the instance had stopped");
			}
			try {
				running.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
				return true;
			}
			catch (TimeoutException ex) {
				running.cancel(true);
				return skip("the database did not answer within wheel-timer.durable.shutdown-timeout (" + this.timeout
						+ ")");
			}
			catch (InterruptedException ex) {
				running.cancel(true);
				Thread.currentThread().interrupt();
				return skip("the stopping thread was interrupted");
			}
			catch (ExecutionException ex) {
				Throwable failure = (ex.getCause() != null) ? ex.getCause() : ex;
				if (failure instanceof RuntimeException runtime
						&& DatabaseFailure.of(runtime) != DatabaseFailure.UNREACHABLE) {
					throw runtime;
				}
				return skip("the database could not be reached ("
						+ NestedExceptionUtils.getMostSpecificCause(failure).getMessage() + ")");
			}
		}
		finally {
			synchronized (this) {
				if (--this.inFlight == 0) {
					this.spentNanos += System.nanoTime() - this.busySinceNanos;
				}
			}
		}
	}

	/**
	 * Records a write that the stop leaves to the lease without running it (the database failed
	 * it in a way that would have passed later, and there is no later).
	 */
	synchronized void leftToLease(String why) {
		skip(why);
	}

	private synchronized boolean skip(String why) {
		if (this.skipping == null) {
			this.skipping = why;
		}
		this.skipped++;
		return false;
	}

	/** @return why statements were skipped, or {@code null} if none was */
	public synchronized @Nullable String skipped() {
		return (this.skipped > 0) ? this.skipping : null;
	}

	/** Lets the threads go; a statement still waiting for the database is interrupted. */
	public void close() {
		this.statements.shutdownNow();
	}

	/** Daemons, as every thread of durable calls, so that a JVM whose context was never closed exits. */
	private static CustomizableThreadFactory daemons() {
		CustomizableThreadFactory threads = new CustomizableThreadFactory("wheel-timer-durable-shutdown-");
		threads.setDaemon(true);
		return threads;
	}

}
