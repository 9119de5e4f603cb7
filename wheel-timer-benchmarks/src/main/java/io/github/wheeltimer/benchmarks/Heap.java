package io.github.wheeltimer.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/** The used heap, once garbage collection has settled. */
final class Heap {

	private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

	private Heap() {
	}

	/** Collects until two readings in a row agree within 64 KB (at most ten rounds). */
	static long usedAfterGc() throws InterruptedException {
		long previous = Long.MAX_VALUE;
		for (int round = 0; round < 10; round++) {
			System.gc();
			Thread.sleep(50);
			long used = MEMORY.getHeapMemoryUsage().getUsed();
			if (Math.abs(previous - used) < 64 << 10) {
				return used;
			}
			previous = used;
		}
		return previous;
	}

}
