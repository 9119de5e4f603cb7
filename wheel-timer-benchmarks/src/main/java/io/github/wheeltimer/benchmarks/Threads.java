package io.github.wheeltimer.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * What the operating system and the JVM say about one thread: its CPU time, and how often it went
 * to sleep of its own accord (each such sleep is one wake-up later).
 */
final class Threads {

	private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

	private Threads() {
	}

	static Thread named(String name) {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.getName().equals(name))
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No thread named " + name));
	}

	/** CPU time of a live thread, in nanoseconds. */
	@SuppressWarnings("deprecation") // Thread.getId: threadId() is Java 19+, and this runs on 17
	static long cpuNanos(Thread thread) {
		return THREADS.getThreadCpuTime(thread.getId());
	}

	/**
	 * The thread's {@code voluntary_ctxt_switches} from {@code /proc/self/task/<tid>/status}: how
	 * many times it blocked (parked, slept, waited). Linux names threads by their first 15
	 * characters, so the thread is found by name; names must be unique among the JVM's threads.
	 * @return the count, or -1 where /proc is not available
	 */
	static long voluntarySwitches(String threadName) {
		Path tasks = Path.of("/proc/self/task");
		if (!Files.isDirectory(tasks)) {
			return -1;
		}
		String comm = (threadName.length() > 15) ? threadName.substring(0, 15) : threadName;
		try (Stream<Path> all = Files.list(tasks)) {
			for (Path task : (Iterable<Path>) all::iterator) {
				if (Files.readString(task.resolve("comm")).strip().equals(comm)) {
					return Files.readAllLines(task.resolve("status"))
						.stream()
						.filter((line) -> line.startsWith("voluntary_ctxt_switches:"))
						.mapToLong((line) -> Long.parseLong(line.substring(line.indexOf(':') + 1).strip()))
						.findFirst()
						.orElse(-1);
				}
			}
		}
		catch (IOException ex) {
			return -1;
		}
		return -1;
	}

}
