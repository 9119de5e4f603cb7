/**
 * Durable delayed calls: {@code @DelayedExecution(durable = true)} calls kept in the
 * application's database, shared by the instances on it, precise to the tick.
 * {@link io.github.wheeltimer.durable.DelayedCalls} is what application code uses.
 */
@NullMarked
package io.github.wheeltimer.durable;

import org.jspecify.annotations.NullMarked;
