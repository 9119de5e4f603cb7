package io.github.wheeltimer.benchmarks.durable;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The CPU time the run's database server used, from the kernel's accounting in {@code /proc}
 * (Linux only): its process's user and system time, that of every live child process of it, and
 * that of the children it has already waited for. MariaDB is one process ({@code mariadbd}, its
 * threads included); PostgreSQL a postmaster with a child per connection (a backend) and its
 * background workers (WAL writer, checkpointer, autovacuum...), each of which ends with its
 * connection or its task: the postmaster's {@code cutime} and {@code cstime} keep what those used.
 * <p>
 * The server is found by its process id, which {@link Database#serverPid()} gives, never by
 * name: a test build on the same machine runs servers of the same names, which are other work.
 * <p>
 * Exact to the tick. {@code /proc/<pid>/stat} counts in ticks of 10 ms (the kernel's
 * {@code USER_HZ}, 100 on every usual Linux build), each of user and system time cut down to a
 * whole tick: read so, each of PostgreSQL's dozen processes would be up to 2 ticks short at each
 * end of a step, and a backend read while alive and then waited for counts a tick or two more in
 * its parent's total than it showed alive (measured). So a process of one thread (all of PostgreSQL's)
 * is read in nanoseconds from {@code /proc/<pid>/schedstat}, the runtime the kernel adds to the
 * parent's total when it waits for the process; a process of many threads ({@code mariadbd}),
 * whose ended threads only {@code stat} includes, and the total of ended children are read in
 * ticks. Either way a step's figure is good to 2 ticks. A child that ends while the children are
 * listed would count in both its own line and its parent's total, or in neither: the server's
 * total is read before and after the children, and the reading taken again until the two agree.
 */
final class ServerCpu {

	/** The kernel's unit of CPU time in {@code /proc/<pid>/stat}. */
	static final long TICKS_PER_SECOND = 100;

	static final long NANOS_PER_TICK = 1_000_000_000L / TICKS_PER_SECOND;

	/**
	 * How far a step's figure can be off: a tick each for the user and the system time read in
	 * ticks (MariaDB's server; PostgreSQL's ended children).
	 */
	static final long ERROR_TICKS = 2;

	/** Readings taken again while children end: a few at most, even while connections close. */
	private static final int ATTEMPTS = 20;

	private static final Path PROC = Path.of("/proc");

	private final long pid;

	/** @param pid the server's process: MariaDB's {@code mariadbd}, PostgreSQL's postmaster */
	ServerCpu(long pid) {
		this.pid = pid;
	}

	long pid() {
		return this.pid;
	}

	/**
	 * CPU time the server used since it started, ns: its own, its live children's and its ended
	 * children's.
	 * @throws IOException if {@code /proc} cannot be read, or the server is gone
	 */
	long nanos() throws IOException {
		for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
			Times server = Times.of(this.pid);
			if (server == null) {
				throw new NoSuchFileException("/proc/" + this.pid + ": the database server is gone");
			}
			long children = liveChildrenNanos();
			Times after = Times.of(this.pid);
			if (after != null && after.endedChildrenTicks == server.endedChildrenTicks) {
				return after.ownNanos + after.endedChildrenTicks * NANOS_PER_TICK + children;
			}
		}
		throw new IOException("The database server's children kept ending while they were read");
	}

	/** A reading now, to take the time used since from; one that cannot be read makes the figure unknown. */
	Mark mark() {
		return new Mark(nanosOrUnknown());
	}

	private long nanosOrUnknown() {
		try {
			return nanos();
		}
		catch (IOException ex) {
			System.err.printf("  the database server's CPU time cannot be read: %s%n", ex);
			return -1;
		}
	}

	/**
	 * Each live child's own time, and what it waited for of its own children (none for
	 * PostgreSQL's backends, but counted as the server's own total counts them).
	 */
	private long liveChildrenNanos() throws IOException {
		long nanos = 0;
		try (Stream<Path> processes = Files.list(PROC)) {
			for (Path process : (Iterable<Path>) processes::iterator) {
				String name = process.getFileName().toString();
				if (!name.chars().allMatch(Character::isDigit)) {
					continue;
				}
				Times child = Times.of(Long.parseLong(name));
				if (child != null && child.parent == this.pid) {
					nanos += child.ownNanos + child.endedChildrenTicks * NANOS_PER_TICK;
				}
			}
		}
		return nanos;
	}

	/** The parent of a live process. */
	static long parentPid(long pid) throws IOException {
		return Stat.parse(Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"))).parent;
	}

	/** utime + stime of one process, all its threads, in ticks: such as {@code /proc/self/stat}. */
	static long processTicks(Path stat) throws IOException {
		return Stat.parse(Files.readString(stat)).ownTicks;
	}

	/**
	 * The fields of one {@code /proc/<pid>/stat} line that count here.
	 *
	 * @param parent its parent's id (field 4)
	 * @param ownTicks utime + stime, all its threads (fields 14 and 15)
	 * @param endedChildrenTicks cutime + cstime, the children it waited for (fields 16 and 17)
	 * @param threads its live threads (field 20)
	 */
	private record Stat(long parent, long ownTicks, long endedChildrenTicks, long threads) {

		static Stat parse(String line) {
			// The name (field 2) is in parentheses and may hold spaces and parentheses: the fields
			// that follow start after the last ')', with the state, field 3, at index 0.
			String[] fields = line.substring(line.lastIndexOf(')') + 2).split(" ");
			return new Stat(Long.parseLong(fields[1]), Long.parseLong(fields[11]) + Long.parseLong(fields[12]),
					Long.parseLong(fields[13]) + Long.parseLong(fields[14]), Long.parseLong(fields[17]));
		}

	}

	/**
	 * One process's CPU time as counted here.
	 *
	 * @param ownNanos its own: from {@code schedstat} if it has one thread, else its ticks
	 */
	private record Times(long parent, long ownNanos, long endedChildrenTicks) {

		/** The process's times, {@code null} if it is gone (it ended, or ended while read). */
		static Times of(long pid) {
			Path process = PROC.resolve(Long.toString(pid));
			try {
				Stat stat = Stat.parse(Files.readString(process.resolve("stat")));
				long own = stat.ownTicks * NANOS_PER_TICK;
				if (stat.threads == 1) {
					// The first field: time on a CPU, ns.
					own = Long.parseLong(Files.readString(process.resolve("schedstat")).split(" ")[0]);
				}
				return new Times(stat.parent, own, stat.endedChildrenTicks);
			}
			catch (IOException ex) {
				return null;
			}
		}

	}

	/** The server's CPU time at one moment; -1 if it could not be read. */
	final class Mark {

		private final long nanos;

		private Mark(long nanos) {
			this.nanos = nanos;
		}

		/** The CPU time used since this mark, for {@code calls} calls. */
		Used usedFor(int calls) {
			long now = nanosOrUnknown();
			return new Used((this.nanos < 0 || now < 0) ? -1 : now - this.nanos, calls);
		}

	}

	/**
	 * The server's CPU time over a step, and the calls the step ran.
	 *
	 * @param nanos negative if it could not be read
	 * @param calls the calls of the step
	 */
	record Used(long nanos, int calls) {

		/** Database CPU ms per 1,000 calls; NaN if it could not be read. */
		double millisPerThousandCalls() {
			return (this.nanos < 0 || this.calls == 0) ? Double.NaN : this.nanos / 1e6 * 1_000 / this.calls;
		}

		/**
		 * Such as {@code 412 ms (1.24 s in all)}: no more decimals than the figure's error
		 * ({@link #ERROR_TICKS}) over this many calls allows, and the step's total, which says how
		 * far to trust it.
		 */
		String text() {
			double millis = millisPerThousandCalls();
			if (Double.isNaN(millis)) {
				return "–";
			}
			return String.format(Locale.ROOT, format(ERROR_TICKS * NANOS_PER_TICK / 1e6 * 1_000 / this.calls)
					+ " ms (%.2f s in all)", millis, this.nanos / 1e9);
		}

		/** How far a figure over this many calls may be off, ms per 1,000 calls, such as {@code 10} or {@code 0.4}. */
		static String errorPerThousandCalls(int calls) {
			double error = ERROR_TICKS * NANOS_PER_TICK / 1e6 * 1_000 / calls;
			return String.format(Locale.ROOT, format(error), error);
		}

		/** No more decimals than an error of this size, ms, allows. */
		private static String format(double error) {
			return (error >= 1) ? "%,.0f" : (error >= 0.1) ? "%,.1f" : "%,.2f";
		}

	}

}
