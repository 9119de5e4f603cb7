package io.github.wheeltimer.durable.storage;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * Durable calls of one state, or of one method id, for operators.
 *
 * @param name the state ({@code PENDING}, {@code CLAIMED}, {@code RUNNING}, {@code FAILED}) or the
 * method id
 * @param count how many calls
 * @param earliestDue the earliest due time among them, {@code null} if none
 */
public record CallCount(String name, long count, @Nullable Instant earliestDue) {
}
