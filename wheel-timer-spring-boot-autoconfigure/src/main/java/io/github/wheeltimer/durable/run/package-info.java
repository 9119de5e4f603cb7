/**
 * The run of a call this instance holds, one way: hold it on its method's wheel
 * ({@code HeldCalls}), pass the gate in a batch ({@code CallBatches}), invoke it on its method's
 * executor ({@code CallRunner}), end it once and finish its row in a batch. Threads: callers' and
 * the poll thread hold, wheel workers fire, the gate thread gates and finishes, executors run.
 * <p>
 * Internal: public only for the packages above it (cooperation, engine, actuate), not an API; it may change in any release.
 */
@NullMarked
package io.github.wheeltimer.durable.run;

import org.jspecify.annotations.NullMarked;
