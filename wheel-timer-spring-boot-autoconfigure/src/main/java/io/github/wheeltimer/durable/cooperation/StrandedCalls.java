package io.github.wheeltimer.durable.cooperation;

/**
 * Pending calls that wait for an instance that is not running.
 *
 * @param unknownMethods calls of methods no live instance knows
 * @param unreadable calls written by a version of the application whose arguments no live
 * instance can read
 */
public record StrandedCalls(long unknownMethods, long unreadable) {
}
