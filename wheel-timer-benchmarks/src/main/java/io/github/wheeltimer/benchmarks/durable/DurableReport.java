package io.github.wheeltimer.benchmarks.durable;

import java.time.LocalDate;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

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
		String some = rows.equals(DurableOptions.DEFAULT_ROWS) ? "" : ", rows " + String.join(", ", rows) + " only";
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
		if (results.values().stream().anyMatch((r) -> r.pacedUpdates != null)) {
			row(table, shown, "D6", "D6, updates", "updates of the system's table over D6 paced (PostgreSQL's "
					+ "statistics; HOT ones wrote no index entry), and the rows its claim took", results,
					(r) -> r.pacedUpdates.text());
		}
		row(table, shown, "F1",
				String.format(Locale.ROOT, "retries, %,d calls that fail twice, then succeed, after a fixed %d ms "
						+ "backoff", retriedCalls, RetriedCalls.BACKOFF_MILLIS),
				results, (r) -> r.retriedText);
		waitingRows(table, shown, results, size);
		return table.toString();
	}

	/**
	 * D7's rows: each figure on the table as the pass found it, then on top of the waiting calls,
	 * and the second over the first.
	 */
	private static void waitingRows(StringBuilder table, Set<String> shown, Map<String, DurableResult> results,
			Size size) {
		long waiting = results.values()
			.stream()
			.filter((r) -> r.waiting != null)
			.mapToLong((r) -> r.waiting.waiting)
			.findFirst()
			.orElse(0);
		String on = String.format(Locale.ROOT, "empty → %,d waiting (ratio)", waiting);
		row(table, shown, "D7", "D7: D2", String.format(Locale.ROOT,
				"lateness p50 / p99, %,d calls paced over %d s, %s", size.lateness, size.latenessPacing.toSeconds(), on),
				results, (r) -> String.format(Locale.ROOT, "p50 %s → %s ms (%s); p99 %s → %s ms (%s)%s",
						CallLog.Lateness.ms(r.waiting.emptyPaced.lateness().p50Ms()),
						CallLog.Lateness.ms(r.waiting.fullPaced.lateness().p50Ms()),
						ratio(r.waiting.emptyPaced.lateness().p50Ms(), r.waiting.fullPaced.lateness().p50Ms()),
						CallLog.Lateness.ms(r.waiting.emptyPaced.lateness().p99Ms()),
						CallLog.Lateness.ms(r.waiting.fullPaced.lateness().p99Ms()),
						ratio(r.waiting.emptyPaced.lateness().p99Ms(), r.waiting.fullPaced.lateness().p99Ms()),
						missing(r.waiting.emptyPaced.lateness(), r.waiting.fullPaced.lateness())));
		row(table, shown, "D7", "D7: D4", "statements per call, paced (+ commits), " + on, results,
				(r) -> String.format(Locale.ROOT, "%.2f (+%.2f) → %.2f (+%.2f) (%s)", r.waiting.emptyPaced.statements(),
						r.waiting.emptyPaced.commits(), r.waiting.fullPaced.statements(), r.waiting.fullPaced.commits(),
						ratio(r.waiting.emptyPaced.statements(), r.waiting.fullPaced.statements())));
		row(table, shown, "D7", "D7: D5",
				String.format(Locale.ROOT, "idle statements per second (over %d s), %s",
						DurableSteps.WAITING_IDLE.toSeconds(), on),
				results, (r) -> String.format(Locale.ROOT, "%.2f → %.2f (%s)", r.waiting.emptyIdle, r.waiting.fullIdle,
						ratio(r.waiting.emptyIdle, r.waiting.fullIdle)));
		row(table, shown, "D7", "D7: D5 CPU", "database CPU while idle, ms per second, " + on, results,
				(r) -> String.format(Locale.ROOT, "%.1f → %.1f ms/s (%s)", r.waiting.emptyIdleCpu, r.waiting.fullIdleCpu,
						ratio(r.waiting.emptyIdleCpu, r.waiting.fullIdleCpu)));
		row(table, shown, "D7", "D7: D6", "database CPU per 1,000 calls, paced, " + on, results,
				(r) -> String.format(Locale.ROOT, "%s → %s (%s); each run: %s → %s", r.waiting.emptyPaced.cpu().text(),
						r.waiting.fullPaced.cpu().text(), ratio(r.waiting.emptyPaced.cpu().millisPerThousandCalls(),
								r.waiting.fullPaced.cpu().millisPerThousandCalls()),
						runs(r.waiting.emptyRuns), runs(r.waiting.fullRuns)));
		if (results.values().stream().anyMatch((r) -> r.waiting != null && r.waiting.fullPaced != null
				&& r.waiting.fullPaced.updates() != null)) {
			row(table, shown, "D7", "D7: updates", "updates of the system's table over D7's paced calls (PostgreSQL), "
					+ "empty / waiting", results,
					(r) -> r.waiting.emptyPaced.updates().text() + " / " + r.waiting.fullPaced.updates().text());
		}
		row(table, shown, "D7", "D7: size", "bytes per waiting call: table + indexes = in all; writing them, s",
				results,
				(r) -> String.format(Locale.ROOT, "%.0f + %.0f = %.0f B; written in %.0f s (then %.0f s to settle)%s",
						r.waiting.tableBytes / (double) r.waiting.waiting, r.waiting.indexBytes / (double) r.waiting.waiting,
						r.waiting.totalBytes / (double) r.waiting.waiting, r.waiting.insertSeconds,
						r.waiting.settleSeconds, (r.waiting.rowsBefore > 0)
								? String.format(Locale.ROOT, "; %,d rows were there before", r.waiting.rowsBefore) : ""));
	}

	/** The second over the first, such as {@code ×1.03}. */
	private static String ratio(double before, double after) {
		return (before > 0 && !Double.isNaN(after)) ? String.format(Locale.ROOT, "×%.2f", after / before) : "–";
	}

	private static String missing(CallLog.Lateness empty, CallLog.Lateness full) {
		return (empty.missing() + full.missing() + empty.twice() + full.twice() == 0) ? ""
				: String.format(Locale.ROOT, "; never ran %d → %d, twice %d → %d", empty.missing(), full.missing(),
						empty.twice(), full.twice());
	}

	/**
	 * D7's plans and index sizes, per system, after the table's notes: what a reader checks the
	 * figures against.
	 */
	static String waitingPlans(Map<String, DurableResult> results) {
		StringBuilder text = new StringBuilder();
		results.forEach((label, result) -> {
			if (result.waiting == null || result.waiting.plans == null) {
				return;
			}
			DurableResult.Waiting waiting = result.waiting;
			text.append(String.format(Locale.ROOT, "%n### D7, %s: plans on %,d waiting calls%n%n", label,
					waiting.waiting));
			text.append(String.format(Locale.ROOT,
					"Table %,d bytes, indexes %,d, in all %,d: %.1f + %.1f = %.1f bytes per waiting call. Each index:%n%n",
					waiting.tableBytes, waiting.indexBytes, waiting.totalBytes, waiting.tableBytes / (double) waiting.waiting,
					waiting.indexBytes / (double) waiting.waiting, waiting.totalBytes / (double) waiting.waiting));
			waiting.indexes.lines().forEach((line) -> text.append("- ").append(line).append('\n'));
			text.append('\n').append(waiting.plans);
		});
		return text.toString();
	}

	private static void row(StringBuilder table, Set<String> shown, String id, String title,
			Map<String, DurableResult> results, Function<DurableResult, String> cell) {
		row(table, shown, id, id, title, results, cell);
	}

	/** A row shown with {@code id}'s, under its own label. */
	private static void row(StringBuilder table, Set<String> shown, String id, String label, String title,
			Map<String, DurableResult> results, Function<DurableResult, String> cell) {
		if (!shown.contains(id)) {
			return;
		}
		table.append("| ").append(label).append(" | ").append(title).append(" |");
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

	static String footer(Size size, String database, Map<String, DurableResult> results, boolean retries,
			boolean waiting) {
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
		if (waiting) {
			footer.append(String.format(Locale.ROOT, "%n%nD7: in one system's turn, D5's idle span and D2's paced "
					+ "calls (D4 paced, D6 paced) on the table as the pass found it (empty when D7 runs alone), then "
					+ "again once the harness wrote the waiting calls straight into it by SQL (INSERT ... SELECT from "
					+ "a series, a million rows a statement at most, each due 30 to 60 days ahead at random, its "
					+ "columns copied from a call the system wrote itself) and settled it (%s). Ratios: waiting over "
					+ "empty. Bytes: on PostgreSQL pg_relation_size, pg_indexes_size and pg_total_relation_size (TOAST "
					+ "included) of the system's table; on MariaDB information_schema.TABLES after ANALYZE TABLE; "
					+ "over the waiting calls. Updates: n_tup_upd and n_tup_hot_upd of pg_stat_user_tables, read "
					+ "before the paced calls and %d s after (every backend's counts flushed); rows claimed: those the "
					+ "claim (db-scheduler: its pick) statements changed or returned. The plans of each system's "
					+ "polling and starting statements follow the notes.",
					database.equals(Database.MARIADB) ? "purge, ANALYZE TABLE, dirty pages flushed"
							: "VACUUM ANALYZE, CHECKPOINT",
					DurableSteps.STATS_FLUSHED.toSeconds()));
		}
		footer.append(String.format(Locale.ROOT, "%n%nThe machine during each system's turn: CPU that other work "
				+ "used, in cores (near 0 for figures worth comparing), and what a one-row autocommit insert took "
				+ "before and after (the disk's flush):"));
		results.forEach((label, result) -> footer.append(String.format(Locale.ROOT, " %s %.2f cores, %.0f/%.0f µs;",
				label, result.otherCores, result.commitBefore, result.commitAfter)));
		footer.setLength(footer.length() - 1);
		return footer.append(".\n").toString();
	}

	/** @return each paced run's database CPU per 1,000 calls, in the order they ran */
	private static String runs(List<DurableResult.Paced> runs) {
		return runs.stream()
			.map((run) -> String.format(Locale.ROOT, "%,.0f", run.cpu().millisPerThousandCalls()))
			.collect(Collectors.joining(", ", "", " ms"));
	}

}
