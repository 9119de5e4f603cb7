/**
 * This instance's durable calls as a whole: {@code DurableEngine} starts and stops them and is the
 * scheduler the annotation package hands durable calls to; {@code CallWriter} makes the callers'
 * writes; {@code DefaultDurableCalls} is the {@link io.github.wheeltimer.durable.DurableCalls}
 * application code uses.
 * <p>
 * Internal: public only for the packages above it (the auto-configuration, actuate), not an API; it may change in any release.
 */
@NullMarked
package io.github.wheeltimer.durable.engine;

import org.jspecify.annotations.NullMarked;
