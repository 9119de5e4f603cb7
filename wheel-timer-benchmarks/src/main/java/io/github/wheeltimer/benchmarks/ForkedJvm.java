package io.github.wheeltimer.benchmarks;

/**
 * The options of every JVM that JMH forks. A young generation larger than what one iteration
 * allocates, emptied between iterations (JMH's {@code -gc true}), keeps garbage collection out of
 * the measured time: the rows measure the timers, and millions of live timeouts would otherwise
 * make each young collection copy them. Parallel GC, because G1's concurrent marking of Netty's
 * millions of pending timeouts overflows its mark stack and stops the JVM.
 */
final class ForkedJvm {

	static final String HEAP_MIN = "-Xms8g";

	static final String HEAP_MAX = "-Xmx8g";

	static final String YOUNG = "-Xmn6g";

	static final String GC = "-XX:+UseParallelGC";

	private ForkedJvm() {
	}

}
