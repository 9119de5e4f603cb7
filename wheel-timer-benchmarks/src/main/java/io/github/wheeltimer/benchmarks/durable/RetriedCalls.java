package io.github.wheeltimer.benchmarks.durable;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Row F1's calls: each fails on its first {@link #FAILURES} runs and succeeds on the next, retried
 * by the system's own means (ours: Spring's {@code @Retryable} on the durable method; db-scheduler:
 * a {@code FailureHandler}) after the same fixed {@link #BACKOFF_MILLIS backoff}. Every run of a
 * call reports here, so that the harness knows how often each call ran, whatever the system
 * believes; the run that succeeds also reports to {@link CallLog}, which the row waits on.
 */
final class RetriedCalls {

	/** How long after it was written a call is first due: a moment, most of the calls written by then. */
	static final long FIRST_DELAY_MILLIS = 2_000;

	/** The fixed backoff between a failed run and the next, both systems alike. */
	static final long BACKOFF_MILLIS = 1_000;

	/** More than the calls need, so that a call that runs too few times is not stopped by its policy. */
	static final int MAX_RETRIES = 3;

	/** The runs of a call that fail before the one that succeeds. */
	static final int FAILURES = 2;

	/** The runs each call must have: its failures and its success, no more. */
	static final int RUNS = FAILURES + 1;

	private static volatile Recorder current;

	/** Runs of calls no recorder expected. */
	private static final LongAdder strays = new LongAdder();

	private RetriedCalls() {
	}

	/** From now on, the runs of calls {@code firstCall} to {@code firstCall + count - 1} are counted. */
	static Recorder expect(long firstCall, int count) {
		Recorder recorder = new Recorder(firstCall, count);
		current = recorder;
		return recorder;
	}

	/**
	 * One run of a call, from its system's handler: counted, then it fails while it is one of the
	 * call's first {@link #FAILURES} runs, else it succeeds and reports to {@link CallLog}.
	 * @param attempt which run the system says this is, 1 for the first, or 0 if it tells none:
	 * then the harness's own count decides
	 * @param dueAtEpochMicros when the call was first due; its success is compared with that plus
	 * two backoffs, the earliest it can come
	 * @throws PlannedFailure on a run that is to fail
	 */
	static void run(long callNumber, int attempt, long dueAtEpochMicros) {
		Recorder recorder = current;
		int counted = (recorder != null) ? recorder.counted(callNumber, attempt) : 0;
		if (counted == 0) {
			strays.increment();
		}
		int run = (attempt > 0) ? attempt : counted;
		if (run <= FAILURES) {
			throw new PlannedFailure(callNumber, run);
		}
		CallLog.ran(callNumber, dueAtEpochMicros + FAILURES * BACKOFF_MILLIS * 1_000);
	}

	static long strays() {
		return strays.sum();
	}

	/**
	 * The failure a run is to have. Without a stack trace: it is thrown 20,000 times in a full
	 * pass, and where it was thrown says nothing.
	 */
	static final class PlannedFailure extends RuntimeException {

		private static final long serialVersionUID = 1L;

		PlannedFailure(long callNumber, int run) {
			super("run " + run + " of call " + callNumber + " fails, as row F1 wants", null, false, false);
		}

	}

	/** The runs of one range of calls. */
	static final class Recorder {

		private final long firstCall;

		private final AtomicIntegerArray runs;

		private final LongAdder attemptsAmiss = new LongAdder();

		private final AtomicReference<String> firstAttemptAmiss = new AtomicReference<>();

		Recorder(long firstCall, int count) {
			this.firstCall = firstCall;
			this.runs = new AtomicIntegerArray(count);
		}

		/** @return the call's runs so far, this one included; 0 for a call this recorder does not expect */
		private int counted(long callNumber, int attempt) {
			long index = callNumber - this.firstCall;
			if (index < 0 || index >= this.runs.length()) {
				return 0;
			}
			int counted = this.runs.incrementAndGet((int) index);
			if (attempt > 0 && attempt != counted) {
				// The system's count of the call's runs and ours differ: the call decides by the
				// system's, so this is what its check would see wrong.
				this.attemptsAmiss.increment();
				this.firstAttemptAmiss.compareAndSet(null,
						"call " + callNumber + " was told attempt " + attempt + " on its run " + counted);
			}
			return counted;
		}

		/** How many calls ran how many times, such as {@code {3=10000}}. */
		Map<Integer, Integer> runsPerCall() {
			Map<Integer, Integer> calls = new TreeMap<>();
			for (int i = 0; i < this.runs.length(); i++) {
				calls.merge(this.runs.get(i), 1, Integer::sum);
			}
			return calls;
		}

		/** The first calls that did not run {@link #RUNS} times, and how often they did. */
		String examples(int most) {
			StringBuilder text = new StringBuilder();
			int found = 0;
			for (int i = 0; i < this.runs.length() && found < most; i++) {
				if (this.runs.get(i) != RUNS) {
					text.append((found == 0) ? "" : ", ")
						.append(String.format(Locale.ROOT, "call %d ran %d times", this.firstCall + i,
								this.runs.get(i)));
					found++;
				}
			}
			return text.toString();
		}

		/**
		 * @return {@code null} if every call ran {@link #RUNS} times and the system's attempt
		 * numbers matched the harness's count, else what was wrong
		 */
		String problems() {
			StringBuilder text = new StringBuilder();
			Map<Integer, Integer> runs = runsPerCall();
			int wrong = this.runs.length() - runs.getOrDefault(RUNS, 0);
			if (wrong > 0) {
				text.append(String.format(Locale.ROOT, "%,d of %,d calls did not run %d times (runs: calls %s; %s)",
						wrong, this.runs.length(), RUNS, runs, examples(5)));
			}
			long amiss = this.attemptsAmiss.sum();
			if (amiss > 0) {
				text.append((text.length() > 0) ? "; " : "")
					.append(String.format(Locale.ROOT, "%,d runs were told an attempt number other than the harness "
							+ "counted (%s)", amiss, this.firstAttemptAmiss.get()));
			}
			return (text.length() > 0) ? text.toString() : null;
		}

	}

}
