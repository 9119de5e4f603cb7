package io.github.wheeltimer.benchmarks.durable;

import java.time.Instant;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Where every call of every system reports that it ran. One {@link Recorder} at a time expects a
 * range of call numbers; each run is stamped with the wall clock in microseconds, the clock both
 * systems store due times in, and compared with the due time the harness gave the call.
 */
final class CallLog {

	private static volatile Recorder current;

	/** Runs of calls no recorder expected: left over from an earlier step, or run twice late. */
	private static final LongAdder strays = new LongAdder();

	private CallLog() {
	}

	/** Called by each system's handler when a call runs. */
	static void ran(long callNumber, long dueAtEpochMicros) {
		long now = nowMicros();
		Recorder recorder = current;
		if (recorder == null || !recorder.record(callNumber, dueAtEpochMicros, now)) {
			strays.increment();
		}
	}

	/** From now on, calls {@code firstCall} to {@code firstCall + count - 1} are expected. */
	static Recorder expect(long firstCall, int count) {
		Recorder recorder = new Recorder(firstCall, count);
		current = recorder;
		return recorder;
	}

	static long strays() {
		return strays.sum();
	}

	static long nowMicros() {
		Instant now = Instant.now();
		return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
	}

	/** The runs of one range of calls. */
	static final class Recorder {

		private static final long NOT_RUN = Long.MIN_VALUE;

		private final long firstCall;

		private final long[] lateMicros;

		private final long[] ranAtMicros;

		private final AtomicInteger ran = new AtomicInteger();

		private final AtomicInteger twice = new AtomicInteger();

		Recorder(long firstCall, int count) {
			this.firstCall = firstCall;
			this.lateMicros = new long[count];
			this.ranAtMicros = new long[count];
			Arrays.fill(this.ranAtMicros, NOT_RUN);
		}

		private boolean record(long callNumber, long dueAtEpochMicros, long now) {
			long index = callNumber - this.firstCall;
			if (index < 0 || index >= this.lateMicros.length) {
				return false;
			}
			int slot = (int) index;
			// Runs come from many threads; a call must run once, a second run is counted, not kept.
			synchronized (this) {
				if (this.ranAtMicros[slot] != NOT_RUN) {
					this.twice.incrementAndGet();
					return true;
				}
				this.ranAtMicros[slot] = now;
				this.lateMicros[slot] = now - dueAtEpochMicros;
			}
			this.ran.incrementAndGet();
			return true;
		}

		int ran() {
			return this.ran.get();
		}

		int count() {
			return this.lateMicros.length;
		}

		/**
		 * Waits until every call has run, or {@code deadline} (epoch micros) has passed.
		 * @return whether every call ran
		 */
		boolean awaitAll(long deadlineMicros) throws InterruptedException {
			while (ran() < count()) {
				if (nowMicros() > deadlineMicros) {
					return false;
				}
				Thread.sleep(20);
			}
			return true;
		}

		/** Lateness p50/p99/max, early runs, and what did not run or ran twice. */
		synchronized Lateness lateness() {
			long[] late = new long[count()];
			int n = 0;
			for (int i = 0; i < count(); i++) {
				if (this.ranAtMicros[i] != NOT_RUN) {
					late[n++] = this.lateMicros[i];
				}
			}
			return Lateness.of(Arrays.copyOf(late, n), count() - n, this.twice.get());
		}

		/** First and last run, epoch micros, of the calls that ran. */
		synchronized long[] firstAndLastRun() {
			long first = Long.MAX_VALUE;
			long last = Long.MIN_VALUE;
			for (long at : this.ranAtMicros) {
				if (at != NOT_RUN) {
					first = Math.min(first, at);
					last = Math.max(last, at);
				}
			}
			return new long[] { first, last };
		}

	}

	/**
	 * How late the calls of one recorder ran, in ms.
	 *
	 * @param ran calls that ran
	 * @param missing calls that did not run in time
	 * @param twice second runs of a call
	 * @param early calls that ran before they were due
	 * @param earliestMs the most negative lateness, 0 when none was early
	 */
	record Lateness(int ran, int missing, int twice, int early, double earliestMs, double p50Ms, double p99Ms,
			double maxMs) {

		/**
		 * @param late each call's lateness, µs, of the calls that ran, in any order: sorted in place
		 * @param missing calls that did not run
		 * @param twice second runs
		 */
		static Lateness of(long[] late, int missing, int twice) {
			Arrays.sort(late);
			int n = late.length;
			int early = 0;
			long earliest = 0;
			for (long micros : late) {
				if (micros < 0) {
					early++;
					earliest = Math.min(earliest, micros);
				}
			}
			return new Lateness(n, missing, twice, early, earliest / 1e3, percentile(late, 0.50),
					percentile(late, 0.99), (n > 0) ? late[n - 1] / 1e3 : Double.NaN);
		}

		/** Nearest rank, in ms. */
		private static double percentile(long[] sorted, double fraction) {
			if (sorted.length == 0) {
				return Double.NaN;
			}
			int rank = (int) Math.ceil(fraction * sorted.length);
			return sorted[Math.max(0, rank - 1)] / 1e3;
		}

		String text() {
			String text = String.format(Locale.ROOT, "p50 %s / p99 %s / max %s ms, %d early", ms(this.p50Ms),
					ms(this.p99Ms), ms(this.maxMs), this.early);
			if (this.early > 0) {
				text += String.format(Locale.ROOT, " (earliest %.1f ms)", this.earliestMs);
			}
			if (this.missing > 0) {
				text += ", " + this.missing + " of " + (this.ran + this.missing) + " never ran";
			}
			if (this.twice > 0) {
				text += ", " + this.twice + " ran twice";
			}
			return text;
		}

		/** Three significant figures are plenty: 0.532 ms, 53.2 ms, 5,320 ms. */
		static String ms(double ms) {
			if (Double.isNaN(ms)) {
				return "–";
			}
			double abs = Math.abs(ms);
			String format = (abs >= 100) ? "%,.0f" : (abs >= 10) ? "%.1f" : (abs >= 1) ? "%.2f" : "%.3f";
			return String.format(Locale.ROOT, format, ms);
		}

	}

}
