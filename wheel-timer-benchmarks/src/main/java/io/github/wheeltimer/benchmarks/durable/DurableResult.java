package io.github.wheeltimer.benchmarks.durable;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import io.github.wheeltimer.benchmarks.durable.CountingDataSource.Counts;

/** One system's figures; a step that failed leaves its fields, and those of the steps after it, unset. */
final class DurableResult {

	/** Why the system stopped short, if it did. */
	String failure;

	Timing scheduleAlone;

	Timing scheduleInTransaction;

	Timing wholeTransaction;

	CallLog.Lateness lateness;

	double throughput = Double.NaN;

	String burstText;

	double burstStatements = Double.NaN;

	double burstCommits = Double.NaN;

	double spreadStatements = Double.NaN;

	double spreadCommits = Double.NaN;

	double idlePerSecond = Double.NaN;

	/** D6: the database server's CPU time over the D2 calls, and over the D3 calls' run. */
	ServerCpu.Used pacedCpu;

	ServerCpu.Used drainCpu;

	/** D6 paced, on PostgreSQL: the updates of the system's table over the D2 calls; {@code null} elsewhere. */
	Updates pacedUpdates;

	/** D7: the paced and idle rows on an empty table, then on top of many waiting calls. */
	Waiting waiting;

	/** F1: its cell, and what it is made of. */
	String retriedText;

	double retriedStatements = Double.NaN;

	double retriedCommits = Double.NaN;

	ServerCpu.Used retriedCpu;

	/** CPU that work other than this run used meanwhile, in cores. */
	double otherCores = Double.NaN;

	/** A one-row autocommit insert before and after the system's turn, in µs. */
	double commitBefore = Double.NaN;

	double commitAfter = Double.NaN;

	/**
	 * What one paced step measured: D2's lateness, D4's paced statements, D6's paced CPU, and on
	 * PostgreSQL the updates of the system's table.
	 */
	record Paced(CallLog.Lateness lateness, double statements, double commits, ServerCpu.Used cpu, Updates updates) {
	}

	/**
	 * The updates of a system's calls table over a step, from PostgreSQL's statistics
	 * ({@code pg_stat_user_tables}), and the rows the system's claim (db-scheduler: its pick) took
	 * meanwhile, from the statements' own counts.
	 *
	 * @param updates {@code n_tup_upd}'s rise
	 * @param hot {@code n_tup_hot_upd}'s: updates that wrote no index entry
	 * @param claimed rows the claim (pick) statements changed or returned
	 * @param calls the step's calls
	 */
	record Updates(long updates, long hot, long claimed, int calls) {

		String text() {
			return String.format(Locale.ROOT, "updates: %,d, of which HOT: %,d (%.0f %%); rows claimed: %,d of %,d calls",
					this.updates, this.hot, (this.updates > 0) ? 100.0 * this.hot / this.updates : 0.0, this.claimed,
					this.calls);
		}

	}

	/**
	 * D7: the same paced and idle rows twice in one system's turn, on the table as the pass found it
	 * (empty with {@code --rows D7}) and on top of {@code waiting} calls due 30 to 60 days ahead.
	 */
	static final class Waiting {

		long waiting;

		/** The system's rows before the waiting calls were written (left by earlier steps). */
		long rowsBefore;

		/** The paced runs on the empty table; {@link #emptyPaced} is the median's. */
		List<Paced> emptyRuns = List.of();

		Paced emptyPaced;

		/** The paced runs on the waiting calls; {@link #fullPaced} is the median's. */
		List<Paced> fullRuns = List.of();

		double emptyIdle = Double.NaN;

		Paced fullPaced;

		double fullIdle = Double.NaN;

		/** The database server's CPU time over each idle span, ms per second. */
		double emptyIdleCpu = Double.NaN;

		double fullIdleCpu = Double.NaN;

		/** Writing the waiting calls, and the VACUUM ANALYZE (or ANALYZE TABLE) and checkpoint after. */
		double insertSeconds = Double.NaN;

		double settleSeconds = Double.NaN;

		/** Table, indexes and both, in bytes, on top of the waiting calls. */
		long tableBytes = -1;

		long indexBytes = -1;

		long totalBytes = -1;

		/** Each index's bytes, one a line. */
		String indexes;

		/** The plans, as the database printed them, with a heading per statement. */
		String plans;

	}

	/** A typical mean and the p99 of some rounds of durations, with the statements they took. */
	record Timing(double meanMicros, double p99Micros, double statementsPerCall, double commitsPerCall) {

		/** The median of the rounds' means, and the p99 of every call. */
		static Timing of(long[][] rounds, Counts counts, int calls) {
			double[] means = Arrays.stream(rounds)
				.mapToDouble((round) -> Arrays.stream(round).average().orElse(Double.NaN))
				.sorted()
				.toArray();
			double median = means[means.length / 2] / 1e3;
			long[] all = Arrays.stream(rounds).flatMapToLong(Arrays::stream).sorted().toArray();
			double p99 = all[Math.max(0, (int) Math.ceil(0.99 * all.length) - 1)] / 1e3;
			return new Timing(median, p99, counts.statements() / (double) calls, counts.commits() / (double) calls);
		}

		String micros() {
			return String.format(Locale.ROOT, "%s µs", number(this.meanMicros));
		}

		String text() {
			return String.format(Locale.ROOT, "%s µs (p99 %s)", number(this.meanMicros), number(this.p99Micros));
		}

		private static String number(double micros) {
			return String.format(Locale.ROOT, (micros >= 100) ? "%,.0f" : "%.1f", micros);
		}

	}

}
