package io.github.wheeltimer.benchmarks.durable;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How busy the machine was with work other than this run: all CPU time the kernel counted as busy,
 * less this JVM's and the database server's. On 2 shared cores, a test build running beside a
 * system's turn changes its figures; the log says so rather than leave it to be guessed. Linux
 * only ({@code /proc}); elsewhere it reports nothing.
 * <p>
 * The server's time is {@link ServerCpu}'s: its processes found by id, those that ended during
 * the turn included (a test build's PostgreSQL and MariaDB servers, of the same names, are other
 * work).
 */
final class MachineLoad {

	private static final Path STAT = Path.of("/proc/stat");

	private final long machineBusyTicks;

	private final long ourNanos;

	private final long nanoTime;

	private MachineLoad(long machineBusyTicks, long ourNanos, long nanoTime) {
		this.machineBusyTicks = machineBusyTicks;
		this.ourNanos = ourNanos;
		this.nanoTime = nanoTime;
	}

	static MachineLoad now(ServerCpu server) {
		try {
			long self = ServerCpu.processTicks(Path.of("/proc/self/stat")) * ServerCpu.NANOS_PER_TICK;
			return new MachineLoad(machineBusyTicks(), self + server.nanos(), System.nanoTime());
		}
		catch (IOException | RuntimeException ex) {
			return new MachineLoad(-1, -1, System.nanoTime());
		}
	}

	/**
	 * Cores' worth of CPU that other work used since {@code earlier}, such as 0.4 for 40 % of one
	 * core, or NaN where it cannot be told.
	 */
	double otherCoresSince(MachineLoad earlier) {
		if (this.machineBusyTicks < 0 || earlier.machineBusyTicks < 0) {
			return Double.NaN;
		}
		double seconds = (this.nanoTime - earlier.nanoTime) / 1e9;
		double busy = (this.machineBusyTicks - earlier.machineBusyTicks) / (double) ServerCpu.TICKS_PER_SECOND;
		double ours = (this.ourNanos - earlier.ourNanos) / 1e9;
		return Math.max(0, (busy - ours) / seconds);
	}

	/**
	 * As {@link #otherCoresSince(MachineLoad)}, where processes of the run other than this JVM and
	 * the database server (child JVMs) used {@code runCpuSeconds} meanwhile.
	 */
	double otherCoresSince(MachineLoad earlier, double runCpuSeconds) {
		double cores = otherCoresSince(earlier);
		double seconds = (this.nanoTime - earlier.nanoTime) / 1e9;
		return Double.isNaN(cores) ? cores : Math.max(0, cores - runCpuSeconds / seconds);
	}

	/** The first line of /proc/stat: every state but idle and iowait is busy. */
	private static long machineBusyTicks() throws IOException {
		String[] fields = Files.readAllLines(STAT).get(0).trim().split("\\s+");
		long busy = 0;
		for (int i = 1; i < fields.length && i <= 8; i++) {
			if (i != 4 && i != 5) {
				busy += Long.parseLong(fields[i]);
			}
		}
		return busy;
	}

}
