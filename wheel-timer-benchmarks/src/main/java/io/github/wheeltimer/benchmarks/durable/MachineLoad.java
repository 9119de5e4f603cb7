package io.github.wheeltimer.benchmarks.durable;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import java.util.stream.Stream;

/**
 * How busy the machine was with work other than this run: all CPU time the kernel counted as busy,
 * less this JVM's and the database server's. On 2 shared cores, a test build running beside a
 * system's turn changes its figures; the log says so rather than leave it to be guessed. Linux
 * only ({@code /proc}); elsewhere it reports nothing.
 * <p>
 * PostgreSQL is a process per connection, found by name; MariaDB one process, found by its id
 * (a test build's MariaDB servers, of the same name, are other work). Approximate: the time of a
 * PostgreSQL process that ended during the turn (an autovacuum worker) counts as other work.
 */
final class MachineLoad {

	private static final Path STAT = Path.of("/proc/stat");

	/** The kernel's unit of CPU time in /proc; 100 per second on every usual Linux build. */
	private static final double TICKS_PER_SECOND = 100;

	private final long machineBusy;

	private final long ours;

	private final long nanoTime;

	private MachineLoad(long machineBusy, long ours, long nanoTime) {
		this.machineBusy = machineBusy;
		this.ours = ours;
		this.nanoTime = nanoTime;
	}

	static MachineLoad now(Database database) {
		try {
			OptionalLong server = database.serverPid();
			long serverTicks = server.isPresent()
					? processTicks(Path.of("/proc", Long.toString(server.getAsLong()), "stat")) : postgresTicks();
			return new MachineLoad(machineBusy(), processTicks(Path.of("/proc/self/stat")) + serverTicks,
					System.nanoTime());
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
		if (this.machineBusy < 0 || earlier.machineBusy < 0) {
			return Double.NaN;
		}
		double seconds = (this.nanoTime - earlier.nanoTime) / 1e9;
		long other = (this.machineBusy - earlier.machineBusy) - (this.ours - earlier.ours);
		return Math.max(0, other / TICKS_PER_SECOND / seconds);
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
	private static long machineBusy() throws IOException {
		String[] fields = Files.readAllLines(STAT).get(0).trim().split("\\s+");
		long busy = 0;
		for (int i = 1; i < fields.length && i <= 8; i++) {
			if (i != 4 && i != 5) {
				busy += Long.parseLong(fields[i]);
			}
		}
		return busy;
	}

	private static long postgresTicks() throws IOException {
		long ticks = 0;
		try (Stream<Path> processes = Files.list(Path.of("/proc"))) {
			for (Path process : (Iterable<Path>) processes::iterator) {
				String name = process.getFileName().toString();
				if (!name.chars().allMatch(Character::isDigit)) {
					continue;
				}
				try {
					if (Files.readString(process.resolve("comm")).strip().equals("postgres")) {
						ticks += processTicks(process.resolve("stat"));
					}
				}
				catch (IOException ex) {
					// The process ended while we looked.
				}
			}
		}
		return ticks;
	}

	/** utime + stime of one process; the fields after its name, which may hold spaces. */
	private static long processTicks(Path stat) throws IOException {
		String line = Files.readString(stat);
		String[] fields = line.substring(line.lastIndexOf(')') + 2).split(" ");
		// After the name: state is field 3 of the whole line, utime 14 and stime 15.
		return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
	}

}
