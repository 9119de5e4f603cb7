/**
 * The run of a call this instance holds, one way: {@code Hold} (on its method's wheel) → the wheel
 * fires → {@code GateBatch} (one statement for the gates of the calls that fell due together) →
 * the method's executor: {@code CallRunner} (decode, invoke) → {@code RunEnd} (one outcome) →
 * {@code FinishBatch} (the rows that ran go together). {@code HandBack} takes a call any stage
 * will not run here. Threads: callers' and the poll thread hold, wheel workers fire, the gate
 * thread gates and finishes, executors run.
 * <p>
 * Internal: public only for the packages above it (cooperation, engine, actuate), not an API; it may change in any release.
 */
@NullMarked
package io.github.wheeltimer.durable.run;

import org.jspecify.annotations.NullMarked;
