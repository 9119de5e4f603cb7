package io.github.wheeltimer.durable;

import java.time.Instant;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * A durable call as its row holds it, read through {@link DurableCalls}: what an application shows
 * its users ("this order cancels itself at 18:25") and what an operator needs to decide what to do
 * with a call.
 *
 * @param id the call's id; a rescheduled call gets a new one
 * @param methodId the method's durable id
 * @param key the key the call was made with, or {@code null}; a waiting call holds it, a running or
 * failed one keeps showing it (a re-queue gives it back)
 * @param state where the call is
 * @param due when it is due, by the application's clock
 * @param tries what its row says of its runs: how many started (0 while it first waits, unless its
 * instance died while it ran), how many failed, the {@code @Retryable} retries of this round
 * @param owner the instance that holds it (claimed or running), or {@code null}
 * @param ownerName that instance's {@code wheel-timer.durable.instance-name}, or {@code null} when no
 * live instance holds it
 * @param traceParent the caller's span as a W3C {@code traceparent}, or {@code null}
 * @param created when it was written, by the database's clock
 * @param failedAt when it failed, by the database's clock, or {@code null}
 * @param error why it failed, or {@code null}
 * @param arguments its arguments, as the JSON array they are stored as
 * @param shape the argument shape of the version of the application that wrote it; empty for a call
 * written by a starter that records none
 */
public record StoredCall(UUID id, String methodId, @Nullable String key, CallState state, Instant due, Tries tries,
		@Nullable UUID owner, @Nullable String ownerName, @Nullable String traceParent, @Nullable Instant created,
		@Nullable Instant failedAt, @Nullable String error, String arguments, String shape) {

	/**
	 * Returns how many times the call started, ever: its retries, and runs before an operator
	 * re-queued it, included.
	 * @return the starts
	 */
	public int attempts() {
		return this.tries.attempts();
	}

}
