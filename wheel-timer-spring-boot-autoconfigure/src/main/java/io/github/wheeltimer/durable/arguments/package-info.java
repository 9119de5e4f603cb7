/**
 * A durable method as it is stored: its id, its key expression, and the codec of its arguments,
 * proven at startup and checked at each call.
 * <p>
 * Internal: public only for the packages above it (run, cooperation, engine), not an API; it may change in any release.
 */
@NullMarked
package io.github.wheeltimer.durable.arguments;

import org.jspecify.annotations.NullMarked;
