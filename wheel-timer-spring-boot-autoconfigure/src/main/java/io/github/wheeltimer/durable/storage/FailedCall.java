package io.github.wheeltimer.durable.storage;

import java.time.Instant;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * A durable call whose method threw, or whose row could not be run, kept for operators.
 *
 * @param id the call's id
 * @param methodId the method's durable id
 * @param key the key it had, or {@code null}; given back when it is re-queued
 * @param attempts how many times it started
 * @param failedAt when it failed, by the database's clock
 * @param error why
 */
public record FailedCall(UUID id, String methodId, @Nullable String key, int attempts, @Nullable Instant failedAt,
		@Nullable String error) {
}
