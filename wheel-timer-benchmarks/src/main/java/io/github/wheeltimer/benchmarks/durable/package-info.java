/**
 * Durable delayed calls measured side by side: ours ({@code @DelayedExecution(durable = true)})
 * and db-scheduler 16.12, at its defaults and tuned, on one PostgreSQL or MariaDB started in this
 * process ({@code --database postgresql}, the default, or {@code --database mariadb}).
 * <p>
 * From the root of the repository:
 * <pre>
 * wheel-timer-benchmarks/run-durable           # builds, then the full pass
 * wheel-timer-benchmarks/run-durable --quick   # a smaller pass
 * wheel-timer-benchmarks/run-durable --quick --database mariadb   # the same on MariaDB 10.11
 * wheel-timer-benchmarks/run-durable --rows F1   # retried calls (F1) alone: fail twice, then succeed
 * </pre>
 * {@link io.github.wheeltimer.benchmarks.durable.DurableBenchmark} says what each row measures.
 * <p>
 * On a cluster, with faults: one and two instances, each a JVM of its own killed with SIGKILL
 * ({@link io.github.wheeltimer.benchmarks.durable.ClusterBenchmark} says what each row measures):
 * <pre>
 * wheel-timer-benchmarks/run-cluster           # builds, then the full pass
 * wheel-timer-benchmarks/run-cluster --quick   # a smaller pass
 * wheel-timer-benchmarks/run-cluster --systems ours --only restart   # kill -9 and restart at once (K8) alone
 * </pre>
 * The test command does not run any of it, and no test asserts a speed.
 */
package io.github.wheeltimer.benchmarks.durable;
