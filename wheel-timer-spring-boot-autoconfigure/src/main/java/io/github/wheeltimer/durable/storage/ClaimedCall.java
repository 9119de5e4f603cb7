package io.github.wheeltimer.durable.storage;

import java.time.Instant;
import java.util.UUID;

import io.github.wheeltimer.durable.Tries;
import org.jspecify.annotations.Nullable;

/**
 * A call a poll claimed, as a {@link CallRepository} reads it.
 *
 * @param id the call's id
 * @param methodId the durable method's id
 * @param key its key, or {@code null}
 * @param startedKey the key it had when a run that never ended started (a take-over put it back
 * without its key), or {@code null}
 * @param arguments its arguments as JSON
 * @param due when it falls due
 * @param tries what its row says of its runs before
 * @param traceParent its caller's span as a W3C {@code traceparent}, or {@code null}
 * @param shape the argument shape of the version that wrote it, empty if written before the tables
 * recorded shapes
 */
public record ClaimedCall(UUID id, String methodId, @Nullable String key, @Nullable String startedKey,
		String arguments, Instant due,
		Tries tries, @Nullable String traceParent, String shape) {
}
