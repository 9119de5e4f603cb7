package io.github.wheeltimer.benchmarks.durable;

import java.util.Arrays;
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
