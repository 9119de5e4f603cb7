package io.github.wheeltimer.durable.run;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import io.github.wheeltimer.annotation.DelayedCallObserver;
import io.github.wheeltimer.annotation.DelayedCallOutcome;
import io.github.wheeltimer.annotation.DelayedRetry;
import io.github.wheeltimer.durable.Tries;
import io.github.wheeltimer.durable.storage.CallRepository;
import io.github.wheeltimer.durable.storage.RowWrites;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The end of a run, once: one {@link Outcome}, which the counts and the row's last write follow.
 * Its method and its timer count the run by that outcome too (completed, failed; withdrawn for a
 * run lost to a take-over or handed back). A row to delete, or to keep waiting for a
 * {@code @Retryable} retry, joins the next batch of finishes.
 * <p>
 * Threads: the one that knows the outcome: the executor's thread, or the thread that completes
 * the future the method returned. Holds no state of its own; each call's is its own.
 */
final class RunEnd {

	private static final Log logger = LogFactory.getLog(RunEnd.class);

	/** What a row keeps instead of an error whose text the database refused. */
	static final String ERROR_REFUSED = "the database refused the error's text; it is in the log of the"
			+ " instance that ran the call";

	/** How a run ended. */
	enum Outcome {

		/** The method returned: the row goes. */
		RAN,

		/** The method threw, or its future failed: the row is kept as failed. */
		FAILED,

		/** The arguments could not be read back: the row is kept as failed. */
		UNREADABLE,

		/** Its own transaction found the row taken over while it ran, and rolled back. */
		LOST,

		/**
		 * The database failed in a way that may pass, where nothing of the method can have stayed:
		 * before the method started (its transaction could not begin), or in the end of the
		 * transaction that also ends the call (the statement that deletes the row, the commit).
		 * The row goes back to run again; not an attempt.
		 */
		UNFINISHED

	}

	private final CallRepository calls;

	private final RowWrites writes;

	private final CallCounters counters;

	private final DurableClock clock;

	private final UUID instance;

	private final Duration lease;

	/** A retry due within it waits on this instance's wheel; a later one waits in the database for any. */
	private final Duration horizon;

	private final CallBatches batches;

	private final HandBack handBack;

	RunEnd(CallRepository calls, RowWrites writes, CallCounters counters, DurableClock clock, UUID instance,
			Duration lease, Duration horizon, CallBatches batches, HandBack handBack) {
		this.calls = calls;
		this.writes = writes;
		this.counters = counters;
		this.clock = clock;
		this.instance = instance;
		this.lease = lease;
		this.horizon = horizon;
		this.batches = batches;
		this.handBack = handBack;
	}

	/**
	 * The method's outcome is known: its observation stops, then the run ends, or, for a failure
	 * its {@code @Retryable} retries, the attempt ends and the call waits for the next one.
	 * @param values the arguments, for the retry's listeners and the failure handler
	 * @param started when this attempt started
	 */
	void methodEnded(HeldCall call, @Nullable Object value, @Nullable Throwable failure, @Nullable Object[] values,
			Instant started, DelayedCallObserver.Run run) {
		run.stop(failure);
		if (failure == null) {
			end(call, Outcome.RAN, null, null);
			DurableResult result = call.result();
			if (result != null) {
				result.complete(value);
			}
			return;
		}
		String error = failure.getClass().getName() + ": " + failure.getMessage();
		DelayedRetry retry = call.method().retry();
		if (retry != null) {
			Tries before = call.before();
			Instant since = (before.retryingSince() != null) ? before.retryingSince() : started;
			Instant now = this.clock.now();
			// This attempt's failure and retry counted, as the row will keep them if it is retried.
			Tries after = new Tries(call.attempt(), before.failures() + 1, before.retries() + 1, since);
			DelayedRetry.Next next = retry.next(failure, after.retries(), Duration.between(since, now));
			retry.publish(new RetriedInvocation(call.method().method(), values), failure, next.stop());
			Duration delay = next.delay();
			call.method().retryDecided(delay != null, after.retries());
			if (delay != null) {
				retry(call, error, now, now.plus(delay), after);
				return;
			}
			if (before.retries() > 0) {
				error = error + " (attempt " + call.attempt() + "; not retried: " + next.stop() + ")";
			}
		}
		end(call, Outcome.FAILED, error, failure);
		DurableResult result = call.result();
		if (result != null) {
			result.completeExceptionally(failure);
		}
		else {
			call.method().failed(failure, values, call.namedKey());
		}
	}

	/**
	 * The one end of a run: its method's and its timer's count of how the run ended, then its
	 * row's last write, then its durable count, so that a reader who sees the durable count finds
	 * the row written (unless the write waits for the database) and the run counted.
	 */
	void end(HeldCall call, Outcome outcome, @Nullable String error, @Nullable Throwable failure) {
		switch (outcome) {
			case RAN -> {
				call.ended(DelayedCallOutcome.RAN);
				if (!call.isFinishedInTransaction()) {
					// Counted once its batch is written.
					this.batches.ran(call);
					return;
				}
				this.counters.ran.increment();
			}
			case LOST -> {
				// Its effects rolled back: it runs again where it was taken over to.
				call.withdrawn();
				this.counters.fenced.increment();
				logger.warn(error + " (a pause longer than wheel-timer.durable.lease: " + this.lease
						+ "), so that its effects happen once, where it runs now");
			}
			case UNFINISHED -> {
				// Its effects rolled back with its end: not an attempt, it goes back to run again.
				call.withdrawn();
				logger.warn(error);
				this.handBack.afterGate(call);
			}
			case FAILED, UNREADABLE -> {
				call.ended(DelayedCallOutcome.FAILED);
				int attempt = call.attempt();
				String because = (failure != null) ? failure.getClass().getName() : "unknown";
				this.writes.write(call.description(), "marked failed",
						() -> this.calls.fail(call.id(), this.instance, attempt, String.valueOf(error)),
						() -> this.calls.fail(call.id(), this.instance, attempt, ERROR_REFUSED + " (" + because + ")"));
				this.counters.failed.increment();
			}
		}
	}

	/**
	 * A failed attempt that its {@code @Retryable} tries again: counted as a failed run, and its
	 * row waits for the next attempt, written in the statement that would have failed it. A retry
	 * due within the horizon waits on this instance's wheel (a new timeout, no thread), once that
	 * statement passed; a later one waits in the database for whichever instance claims it.
	 * @param now when the attempt ended
	 * @param after the row's history once it waits for the retry
	 */
	private void retry(HeldCall call, String error, Instant now, Instant due, Tries after) {
		call.ended(DelayedCallOutcome.FAILED);
		this.counters.retried.increment();
		Instant at = DurableClock.wholeMicros(due);
		UUID holder = at.isAfter(now.plus(this.horizon)) ? null : this.instance;
		logger.warn(call.description() + " failed on attempt " + after.attempts() + " (retry " + after.retries()
				+ " of " + call.method().retry().maxRetries() + " follows at " + at + "): " + error);
		// Written with the finishes of its batch, which then holds it.
		call.retryWith(new CallRepository.Retry(call.id(), after.attempts(), at, holder, after, error));
		this.batches.ran(call);
	}

}
