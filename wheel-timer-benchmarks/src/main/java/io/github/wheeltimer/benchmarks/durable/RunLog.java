package io.github.wheeltimer.benchmarks.durable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The shared truth of the cluster benchmark: one file per instance (per child JVM), in which the
 * instance appends a line for every call its callers made and for every run of a call it started
 * and ended. The parent reads every file and computes each figure from them, never from what an
 * instance says about itself.
 * <p>
 * A file rather than a table of the measured database, so that recording costs the systems no
 * statement and no commit (the statements per call stay theirs alone). Each line is one
 * {@code write} system call on a channel opened for appending: it is in the kernel's page cache
 * when the call returns, so a SIGKILL loses at most the line being formed, never one written.
 * <p>
 * Lines, times in epoch microseconds (the wall clock every process of the machine shares):
 * <pre>
 * M call due made            a caller's schedule() returned: the call exists (committed)
 * S call attempt start due   the call's method was entered (attempt: ours' DurableCalls.currentAttempt(),
 *                            db-scheduler's execution version)
 * E call end                 the call's method returned
 * </pre>
 * A call whose insert committed but whose {@code M} line was lost to a kill shows up by its runs;
 * it counts as made.
 */
final class RunLog {

	private static FileChannel channel;

	private RunLog() {
	}

	/** In the child: from now on, records go to {@code file}. */
	static synchronized void open(Path file) throws IOException {
		channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
				StandardOpenOption.APPEND);
	}

	static void made(long call, long dueMicros) {
		append("M " + call + ' ' + dueMicros + ' ' + CallLog.nowMicros() + '\n');
	}

	static void started(long call, long attempt, long dueMicros) {
		append("S " + call + ' ' + attempt + ' ' + CallLog.nowMicros() + ' ' + dueMicros + '\n');
	}

	static void ended(long call) {
		append("E " + call + ' ' + CallLog.nowMicros() + '\n');
	}

	private static void append(String line) {
		ByteBuffer bytes = ByteBuffer.wrap(line.getBytes(StandardCharsets.US_ASCII));
		// Runs and callers are many threads; one line must never interleave with another.
		synchronized (RunLog.class) {
			try {
				while (bytes.hasRemaining()) {
					channel.write(bytes);
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
	}

	/** One run of a call, as its instance recorded it. */
	static final class Run {

		final String instance;

		final long attempt;

		final long startMicros;

		final long dueMicros;

		/** When the method returned; {@link Long#MIN_VALUE} if it never did (killed). */
		long endMicros = Long.MIN_VALUE;

		Run(String instance, long attempt, long startMicros, long dueMicros) {
			this.instance = instance;
			this.attempt = attempt;
			this.startMicros = startMicros;
			this.dueMicros = dueMicros;
		}

		boolean ended() {
			return this.endMicros != Long.MIN_VALUE;
		}

	}

	/** Everything known of one call. */
	static final class Call {

		final long number;

		/** The instance whose caller made it, {@code null} if its M line was lost. */
		String madeBy;

		long madeMicros = Long.MIN_VALUE;

		long dueMicros = Long.MIN_VALUE;

		/** Runs, earliest start first once {@link Truth#refresh()} has sorted them. */
		final List<Run> runs = new ArrayList<>(1);

		Call(long number) {
			this.number = number;
		}

		boolean ran() {
			return !this.runs.isEmpty();
		}

		Run first() {
			return this.runs.get(0);
		}

		/**
		 * The run that did the call's work: the first that returned; the last one if none did
		 * (the harness stopped waiting).
		 */
		Run completing() {
			return this.runs.stream().filter(Run::ended).findFirst().orElse(this.runs.get(this.runs.size() - 1));
		}

		/**
		 * Lateness of the run that did its work, µs: a call cut by a kill counts by the run that
		 * completed it, not by the start that was lost.
		 */
		long latenessMicros() {
			return completing().startMicros - due();
		}

		long due() {
			return (this.dueMicros != Long.MIN_VALUE) ? this.dueMicros : first().dueMicros;
		}

	}

	/**
	 * In the parent: every instance file of one system's turn, read as they grow. Only the main
	 * thread uses it.
	 */
	static final class Truth {

		private final Map<String, Tail> files = new LinkedHashMap<>();

		private final TreeMap<Long, Call> calls = new TreeMap<>();

		void follow(String instance, Path file) {
			this.files.put(instance, new Tail(instance, file));
		}

		/** Reads what the files gained since the last refresh. */
		void refresh() {
			for (Tail tail : this.files.values()) {
				tail.read(this);
			}
		}

		/** Calls the harness itself wrote, due at {@code dueMicros}: made, though no instance made them. */
		void expect(long first, int count, long dueMicros) {
			for (long n = first; n < first + count; n++) {
				Call call = call(n);
				call.madeBy = "harness";
				call.dueMicros = dueMicros;
			}
		}

		/** The calls numbered {@code first} to {@code last} that were made or ran, by number. */
		List<Call> range(long first, long last) {
			refresh();
			List<Call> range = new ArrayList<>(this.calls.subMap(first, true, last, true).values());
			range.forEach((call) -> call.runs.sort(Comparator.comparingLong((Run run) -> run.startMicros)));
			return range;
		}

		private Call call(long number) {
			return this.calls.computeIfAbsent(number, Call::new);
		}

		private void line(String instance, String line) {
			String[] f = line.split(" ");
			Call call = call(Long.parseLong(f[1]));
			switch (f[0]) {
				case "M" -> {
					call.madeBy = instance;
					call.dueMicros = Long.parseLong(f[2]);
					call.madeMicros = Long.parseLong(f[3]);
				}
				case "S" -> call.runs
					.add(new Run(instance, Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4])));
				case "E" -> {
					// The latest unended run of this call on this instance.
					for (int i = call.runs.size() - 1; i >= 0; i--) {
						Run run = call.runs.get(i);
						if (run.instance.equals(instance) && !run.ended()) {
							run.endMicros = Long.parseLong(f[2]);
							break;
						}
					}
				}
				default -> throw new IllegalStateException("Unreadable line of " + instance + ": " + line);
			}
		}

	}

	/** One instance file, read up to its last complete line. */
	private static final class Tail {

		private final String instance;

		private final Path file;

		private long position;

		private final StringBuilder partial = new StringBuilder();

		Tail(String instance, Path file) {
			this.instance = instance;
			this.file = file;
		}

		void read(Truth truth) {
			if (!Files.exists(this.file)) {
				return;
			}
			try (FileChannel in = FileChannel.open(this.file, StandardOpenOption.READ)) {
				ByteBuffer buffer = ByteBuffer.allocate(1 << 16);
				in.position(this.position);
				int n;
				while ((n = in.read(buffer)) > 0) {
					this.position += n;
					buffer.flip();
					this.partial.append(StandardCharsets.US_ASCII.decode(buffer));
					buffer.clear();
					int start = 0;
					int newline;
					while ((newline = this.partial.indexOf("\n", start)) >= 0) {
						truth.line(this.instance, this.partial.substring(start, newline));
						start = newline + 1;
					}
					this.partial.delete(0, start);
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

	}

}
