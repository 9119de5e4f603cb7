package io.github.wheeltimer.benchmarks.durable;

import java.time.LocalDate;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import io.github.wheeltimer.benchmarks.durable.DurableOptions.Size;

/**
 * The text of a {@link DurableBenchmark} pass: its title, the table of the rows it shows with a
 * column per system, and the notes on how each figure was taken and on the machine meanwhile.
 * Markdown, as BENCHMARKS.md quotes it.
 */
final class DurableReport {

	private DurableReport() {
	}

	/**
	 * The run's database is in the title: a table of one is not to be read as the other's; and so
	 * are the rows of a pass of some rows only, measured without the steps before them.
	 */
	static String header(Size size, Set<String> rows, String version, String settings) {
		String some = rows.equals(DurableOptions.ROWS.keySet()) ? "" : ", rows " + String.join(", ", rows) + " only";
		return String.format(Locale.ROOT,
				"## Durable delayed calls on %s, %s pass%s%n%n%s, %s %s, %d cores, %s; %s (%s), one database per "
						+ "system%n%n",
				version, size.name().toLowerCase(Locale.ROOT), some, LocalDate.now(),
				System.getProperty("java.vm.name"),
				System.getProperty("java.runtime.version"), Runtime.getRuntime().availableProcessors(),
				System.getProperty("os.name"), version, settings);
	}

	static String table(Map<String, DurableResult> results, Size size, Set<String> shown, int retriedCalls) {
		StringBuilder table = new StringBuilder("| row | what |");
		results.keySet().forEach((label) -> table.append(' ').append(label).append(" |"));
		table.append("\n|---|---|").append("---|".repeat(results.size())).append('\n');
		row(table, shown, "D1", "schedule one call, alone (autocommit): µs per call", results,
				(r) -> r.scheduleAlone.text());
		row(table, shown, "D1t", "schedule one call in a transaction: µs for the call (for the whole transaction)",
				results, (r) -> r.scheduleInTransaction.micros() + " (" + r.wholeTransaction.micros() + ")");
		row(table, shown, "D2",
				String.format(Locale.ROOT, "lateness, %,d calls paced over %d s, delays 0.5–20 s", size.lateness,
						size.latenessPacing.toSeconds()),
				results, (r) -> r.lateness.text());
		row(table, shown, "D3",
				String.format(Locale.ROOT, "throughput, %,d calls overdue when an instance starts", size.burst),
				results, (r) -> r.burstText);
		row(table, shown, "D4", "statements per call: schedule + run + finish (+ commits)", results,
				(r) -> String.format(Locale.ROOT, "%.2f (+%.2f) paced; %.2f (+%.2f) burst", r.spreadStatements,
						r.spreadCommits, r.burstStatements, r.burstCommits));
		row(table, shown, "D4s", "of which scheduling one call, alone / in a transaction (+ commits)", results,
				(r) -> String.format(Locale.ROOT, "%.2f / %.2f (+%.2f)", r.scheduleAlone.statementsPerCall(),
						r.scheduleInTransaction.statementsPerCall(), r.scheduleInTransaction.commitsPerCall()));
		row(table, shown, "D5",
				String.format(Locale.ROOT, "idle statements per second (over %d s)", size.idle.toSeconds()),
				results, (r) -> String.format(Locale.ROOT, "%.2f", r.idlePerSecond));
		row(table, shown, "D6", "database CPU per 1,000 calls: paced (D2) / backlog drain (D3)", results,
				(r) -> r.pacedCpu.text() + " / " + r.drainCpu.text());
		row(table, shown, "F1",
				String.format(Locale.ROOT, "retries, %,d calls that fail twice, then succeed, after a fixed %d ms "
						+ "backoff", retriedCalls, RetriedCalls.BACKOFF_MILLIS),
				results, (r) -> r.retriedText);
		return table.toString();
	}

	private static void row(StringBuilder table, Set<String> shown, String id, String title,
			Map<String, DurableResult> results, Function<DurableResult, String> cell) {
		if (!shown.contains(id)) {
			return;
		}
		table.append("| ").append(id).append(" | ").append(title).append(" |");
		for (DurableResult result : results.values()) {
			String text;
			try {
				text = cell.apply(result);
			}
			catch (RuntimeException ex) {
				text = null;
			}
			if (text == null) {
				// A system that failed before this row's step: its figures are unset, its texts null.
				text = (result.failure != null) ? "failed: " + result.failure : "–";
			}
			table.append(' ').append(text.replace("|", "\\|")).append(" |");
		}
		table.append('\n');
	}

	static String footer(Size size, String database, Map<String, DurableResult> results, boolean retries) {
		StringBuilder footer = new StringBuilder(String.format(Locale.ROOT,
				"%nD1: %,d calls of each kind, alternating in %d rounds, after %,d unmeasured, due in an hour; "
						+ "the median of the rounds' means. D2: lateness against the due time read before each "
						+ "call; \"early\" ran before it. D4 paced: everything sent while the D2 calls were "
						+ "scheduled, waited (polling included) and ran, over their number; burst: the D3 calls' "
						+ "scheduling and their run. A batch counts as one statement; commits are counted apart. "
						+ "D6: the database server's own CPU time, user and system, over a step, per 1,000 of its "
						+ "calls; its processes found by id, never by name (PostgreSQL: the postmaster, every "
						+ "backend and background worker, and those that ended during the step; MariaDB: mariadbd). "
						+ "Paced: the span of D4 paced; backlog drain: from the instance's start to the last D3 "
						+ "call's run, their writing (in D4 burst) left out. The kernel counts in 10 ms ticks: a "
						+ "figure is good to %d ticks over its step, %s ms per 1,000 calls over D2's %,d calls and "
						+ "%s over D3's %,d; the seconds in all beside it say how much it rests on. %s",
				size.schedule, DurableSteps.ROUNDS, size.scheduleWarmUp, ServerCpu.ERROR_TICKS,
				ServerCpu.Used.errorPerThousandCalls(size.lateness), size.lateness,
				ServerCpu.Used.errorPerThousandCalls(size.burst), size.burst,
				DbSchedulerSystem.configurations(database)));
		if (retries) {
			footer.append(String.format(Locale.ROOT, "%n%nR1: each call first due %d ms after it was written, one "
					+ "after the other through the running instance; its first two runs throw, its third returns. "
					+ "Ours: @Retryable(maxRetries = %d, delay = %d) (Spring's) on the durable method, with no "
					+ "@EnableResilientMethods; db-scheduler: MaxRetriesFailureHandler(%d, OnFailureRetryLater(%d "
					+ "ms)). Statements, commits and database CPU from the first write until %d ms after the last "
					+ "success (the last rows' deletes in); the time from the first write to the last success, at "
					+ "least the writing, %d ms and two backoffs; threads blocked: the most threads seen at once "
					+ "whose stack sleeps (Thread.sleep) under Spring's retry code or the system's own, looked at "
					+ "every %d ms. Checked: each call ran %d times, ours was told the attempt the harness counted, "
					+ "no row was left.",
					RetriedCalls.FIRST_DELAY_MILLIS, RetriedCalls.MAX_RETRIES, RetriedCalls.BACKOFF_MILLIS,
					RetriedCalls.MAX_RETRIES, RetriedCalls.BACKOFF_MILLIS, DurableSteps.FINISHED.toMillis(),
					RetriedCalls.FIRST_DELAY_MILLIS, BackoffThreads.PERIOD_MILLIS, RetriedCalls.RUNS));
		}
		footer.append(String.format(Locale.ROOT, "%n%nThe machine during each system's turn: CPU that other work "
				+ "used, in cores (near 0 for figures worth comparing), and what a one-row autocommit insert took "
				+ "before and after (the disk's flush):"));
		results.forEach((label, result) -> footer.append(String.format(Locale.ROOT, " %s %.2f cores, %.0f/%.0f µs;",
				label, result.otherCores, result.commitBefore, result.commitAfter)));
		footer.setLength(footer.length() - 1);
		return footer.append(".\n").toString();
	}

}
