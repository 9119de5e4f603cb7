package io.github.wheeltimer.benchmarks;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The allocation half of row S1: bytes allocated per schedule, by every thread of the JVM (the
 * caller's, and the timer's own threads moving the timeout into place), while a million timeouts
 * an hour away are scheduled. JMH's GC profiler would also count what stopping the timer between
 * iterations allocates.
 */
final class Allocation implements PlainRow {

	private static final com.sun.management.ThreadMXBean THREADS = (com.sun.management.ThreadMXBean) ManagementFactory
		.getThreadMXBean();

	@Override
	public String id() {
		return "S1a";
	}

	@Override
	public String title() {
		return "bytes allocated per schedule (all threads)";
	}

	@Override
	public Map<Peer, Measurement> measure(Mode mode) {
		return Lateness.eachPeer(id(), List.of(Peer.OURS, Peer.NETTY, Peer.JDK, Peer.KAFKA), Allocation::measure);
	}

	private static Measurement measure(Peer peer) throws InterruptedException {
		Peer.PeerTimer timer = peer.create(Duration.ofMillis(100), 512);
		try {
			Object task = timer.task(() -> {
			});
			int count = 1_000_000;
			// Warm up the path, so that class loading and JIT compilation are not counted.
			for (int i = 0; i < count / 10; i++) {
				timer.schedule(task, ScheduleBenchmark.ONE_HOUR);
			}
			Thread.sleep(300);
			long before = allocatedByAllThreads();
			for (int i = 0; i < count; i++) {
				timer.schedule(task, ScheduleBenchmark.ONE_HOUR);
			}
			// Let the timer's threads move the new timeouts into place (Netty: 100k per tick).
			Thread.sleep(1_500);
			return Measurement.of((double) (allocatedByAllThreads() - before) / count, "%.1f B");
		}
		finally {
			Lateness.closeAndJoin(timer);
		}
	}

	private static long allocatedByAllThreads() {
		long total = 0;
		for (long allocated : THREADS.getThreadAllocatedBytes(THREADS.getAllThreadIds())) {
			total += Math.max(0, allocated);
		}
		return total;
	}

}
