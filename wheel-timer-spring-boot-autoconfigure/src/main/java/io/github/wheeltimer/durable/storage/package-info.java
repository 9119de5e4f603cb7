/**
 * Durable calls' storage: the repository seam ({@code CallRepository}, {@code InstanceRepository}
 * and the rows they return), and how this instance lives with its database: failures classified
 * ({@code DatabaseFailure}), each problem said once ({@code DatabaseProblems}), writes that wait for
 * a database that is away ({@code RowWrites}), the stop's time budget, transaction callbacks.
 * <p>
 * Internal: public only for the packages above it (arguments, run, cooperation, engine, jdbc, actuate), not an API; it may change in any release.
 */
@NullMarked
package io.github.wheeltimer.durable.storage;

import org.jspecify.annotations.NullMarked;
