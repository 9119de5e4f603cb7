package io.github.wheeltimer.durable;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;

import org.springframework.core.NestedExceptionUtils;

/**
 * The time a stopping instance may spend on its database ({@code wheel-timer.durable.shutdown-timeout}),
 * shared by every statement of its stop: handing held calls back, the writes that waited for the
 * database, leaving the instance table. A statement runs on a thread of its own while the stopping
 * thread waits for it, at most what is left of the budget; one that outlives it is interrupted
 * (a pool's wait for a connection ends then). Once the database is known unreachable, or the budget
 * is spent, the remaining statements are skipped: the lease hands their rows to the other
 * instances, or to the next start, as after a crash.
 * <p>
 * Threads: the thread that closes the application, and executor threads handing back a call their
 * executor refused; they take turns on this object's lock, so the budget is spent once.
 */
final class ShutdownBudget {

	private final Duration timeout;

	private final DatabaseProblems problems;

	private final ExecutorService statements = Executors.newSingleThreadExecutor((task) -> {
		Thread thread = new Thread(task, "wheel-timer-durable-shutdown");
		thread.setDaemon(true);
		return thread;
	});

	/** Guarded by this. */
	private long leftNanos;

	/** Why statements are skipped from now on; guarded by this. */
	private @Nullable String skipping;

	/** How many statements were skipped; guarded by this. */
	private int skipped;

	ShutdownBudget(Duration timeout, DatabaseProblems problems) {
		this.timeout = timeout;
		this.problems = problems;
		this.leftNanos = timeout.toNanos();
	}

	/**
	 * Runs one statement within what is left of the budget, unless statements are skipped already.
	 * @return {@code false} if it was skipped, or did not end in time: its row is left to the lease
	 * @throws RuntimeException what the statement threw, unless it says the database is unreachable
	 */
	synchronized boolean run(Runnable statement) {
		if (this.skipping == null && this.problems.unreachable()) {
			this.skipping = "the database could not be reached when it began (" + this.problems.describe() + ")";
		}
		if (this.skipping == null && this.leftNanos <= 0) {
			this.skipping = "it spent wheel-timer.durable.shutdown-timeout (" + this.timeout + ") on the database";
		}
		if (this.skipping != null) {
			this.skipped++;
			return false;
		}
		long started = System.nanoTime();
		Future<?> running = this.statements.submit(statement);
		try {
			running.get(this.leftNanos, TimeUnit.NANOSECONDS);
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
			if (failure instanceof RuntimeException runtime && DatabaseFailure.of(runtime) != DatabaseFailure.UNREACHABLE) {
				throw runtime;
			}
			return skip("the database cannot be reached (" + NestedExceptionUtils.getMostSpecificCause(failure).getMessage()
					+ ")");
		}
		finally {
			this.leftNanos -= System.nanoTime() - started;
		}
	}

	/** @return how much of the budget is left, in nanoseconds; zero or less once it is spent */
	synchronized long leftNanos() {
		return this.leftNanos;
	}

	/** Counts a wait for the database made elsewhere (calls starting on executors) against the budget. */
	synchronized void spent(long nanos) {
		this.leftNanos -= nanos;
	}

	private boolean skip(String why) {
		this.skipping = why;
		this.skipped++;
		return false;
	}

	/** @return why statements were skipped, or {@code null} if none was */
	synchronized @Nullable String skipped() {
		return (this.skipped > 0) ? this.skipping : null;
	}

	/** Lets the thread go; a statement still waiting for the database is interrupted. */
	void close() {
		this.statements.shutdownNow();
	}

}
