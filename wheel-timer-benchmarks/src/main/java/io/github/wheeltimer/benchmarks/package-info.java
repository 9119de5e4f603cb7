/**
 * Our wheel measured side by side with Netty's {@code HashedWheelTimer} 4.2, the JDK's
 * {@code ScheduledThreadPoolExecutor} (one thread, with and without remove-on-cancel) and Kafka's
 * hierarchical {@code SystemTimer}, in one run on one machine.
 * <p>
 * From the root of the repository:
 * <pre>
 * wheel-timer-benchmarks/run                  # builds, then a quick pass of every row: a few minutes
 * wheel-timer-benchmarks/run --full           # longer runs, for numbers worth publishing
 * wheel-timer-benchmarks/run --rows S1,L2     # some rows only
 * </pre>
 * It prints one table (each peer's figure, and the ratio ours/peer, with the JVM, the core count
 * and the date) and writes it to {@code wheel-timer-benchmarks/target/benchmark-report.md}.
 * {@code BENCHMARKS.md} at the root of the repository holds the latest table and what each row
 * means. JMH measures the rows it measures well (S1, S2, C1, C2, A1) in forked JVMs; plain
 * harnesses measure the rest (allocation, heap, lateness, wake-ups, CPU, expiry, and the mixed
 * workloads of far and near timeouts, H1 on the real clock and H2 on a virtual one), one timer at a
 * time. The test command does not run any of it, and no test asserts a speed.
 */
package io.github.wheeltimer.benchmarks;
