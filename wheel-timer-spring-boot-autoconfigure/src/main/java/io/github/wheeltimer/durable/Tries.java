package io.github.wheeltimer.durable;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * What a durable call's row says of its runs before the next one: the history that
 * {@link DurableCalls#currentAttempt()} and {@code @Retryable} read.
 *
 * @param attempts how many times it started, ever (an operator's re-queue keeps them)
 * @param failures how many of those runs failed; a start beyond them was cut short by a lapsed
 * instance, so the next run may repeat work that run did
 * @param retries the retries of this round: an operator's re-queue starts a new round at 0
 * @param retryingSince when this round's first attempt started, from which a {@code @Retryable}
 * timeout counts; {@code null} before the round's first failure
 */
public record Tries(int attempts, int failures, int retries, @Nullable Instant retryingSince) {

	/** A call that never started. */
	public static final Tries NONE = new Tries(0, 0, 0, null);

	/** @return whether a run started before and never ended: it may have done its work */
	public boolean cutShort() {
		return this.attempts > this.failures;
	}

}
