package io.github.wheeltimer.durable.storage;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * Waiting calls of one method, written by a version of the application whose arguments no live
 * instance can read: they wait, reported, until an instance that reads them starts (the version
 * that wrote them, or one made to read them).
 *
 * @param methodId the method's durable id
 * @param shape the argument shape of the version that wrote them; empty for calls written before
 * the tables recorded shapes
 * @param count how many
 * @param earliestDue the earliest due time among them
 */
public record UnreadableCalls(String methodId, String shape, long count, @Nullable Instant earliestDue) {
}
