package io.github.wheeltimer.durable.storage;

import java.util.List;

/**
 * What a re-queue of failed durable calls did.
 *
 * @param requeued how many calls are pending again
 * @param keyHeld the failed calls left failed because a pending call holds their key now
 */
public record Requeued(int requeued, List<FailedCall> keyHeld) {
}
