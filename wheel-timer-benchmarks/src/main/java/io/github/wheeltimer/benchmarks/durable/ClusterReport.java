package io.github.wheeltimer.benchmarks.durable;

import java.time.Duration;
import java.time.LocalDate;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Stream;

import com.github.kagkarlsson.scheduler.SchedulerBuilder;
import io.github.wheeltimer.benchmarks.durable.ClusterFigures.Burst;
import io.github.wheeltimer.benchmarks.durable.ClusterFigures.Restart;
import io.github.wheeltimer.benchmarks.durable.ClusterOptions.Config;
import io.github.wheeltimer.benchmarks.durable.ClusterOptions.Scope;
import io.github.wheeltimer.benchmarks.durable.ClusterOptions.Size;

/**
 * The text of a {@link ClusterBenchmark} pass: its title, the table with a column per system, the
 * notes on how each figure was taken and on the machine meanwhile, and the targets; with
 * what a system's column says where it has no measured figure. Markdown, as BENCHMARKS.md quotes
 * it.
 */
final class ClusterReport {

	/**
	 * What K8's settings promise (lease 10 s, heartbeat 2 s, poll 2 s). A made-up name is a
	 * stranger: its instance takes nobody's calls over before it has been connected for a lease.
	 * A configured one finds its predecessor's row at its start, and takes its calls at the first
	 * poll that sees that row's heartbeat older than half the lease, once it has itself reached the
	 * database for two heartbeat intervals.
	 */
	private static final String RESTART_EXPECTED = "K8, the restart's startup, then a lease of its own (10 s) and up "
			+ "to a poll (2 s); K8b, the restart's first poll that finds the dead instance's heartbeat older than half "
			+ "the lease (5 s) once the restart has reached the database for two heartbeat intervals (4.1 s): its "
			+ "startup, then 4.1 s and up to a poll";

	/**
	 * db-scheduler's own defaults, read from its builder: heartbeat 5 min, dead after 6 missed. It
	 * looks for dead executions every 2 heartbeats, so an execution picked just before a kill is
	 * found between 6 and 8 heartbeats later.
	 */
	private static final Duration DB_SCHEDULER_HEARTBEAT = SchedulerBuilder.DEFAULT_HEARTBEAT_INTERVAL;

	private static final int DB_SCHEDULER_MISSED = SchedulerBuilder.DEFAULT_MISSED_HEARTBEATS_LIMIT;

	private ClusterReport() {
	}

	/**
	 * What the system's column says where it measured nothing: db-scheduler's recovery at its
	 * default heartbeat, computed; and, for the systems other than ours at its defaults, why K8
	 * has no figure.
	 */
	static void explainUnmeasured(Config config, ClusterResult result) {
		if (!config.system().equals("ours")) {
			result.computedRecovery = String.format(Locale.ROOT, " (with a 2 s heartbeat; at its default "
					+ "heartbeat: **%d–%d min, computed**)",
					DB_SCHEDULER_HEARTBEAT.multipliedBy(DB_SCHEDULER_MISSED).toMinutes(),
					DB_SCHEDULER_HEARTBEAT.multipliedBy(DB_SCHEDULER_MISSED + 2).toMinutes());
		}
		if (!config.id().equals(ClusterOptions.RESTARTED)) {
			result.restartNote = config.system().equals("ours") ? "not measured: at the defaults only"
					: "no such notion: a scheduler restarted under its name finds its previous run's picked "
							+ "executions only as dead ones, as in K4";
		}
	}

	/** The run's database is in the title: a table of one is not to be read as the other's. */
	static String header(Size size, Scope scope, String version, String settings) {
		return String.format(Locale.ROOT,
				"## Durable calls on a cluster, with kills, on %s, %s pass%s%n%n%s, %s %s, %d cores, %s; %s "
						+ "(%s), one database per system; each instance a JVM of its own (-Xmx512m), killed with "
						+ "SIGKILL%n%n",
				version, size.name().toLowerCase(Locale.ROOT), (scope == Scope.RESTART) ? ", K8 alone" : "",
				LocalDate.now(), System.getProperty("java.vm.name"), System.getProperty("java.runtime.version"),
				Runtime.getRuntime().availableProcessors(), System.getProperty("os.name"), version, settings);
	}

	static String table(Map<String, ClusterResult> results, Size size, Scope scope) {
		StringBuilder table = new StringBuilder("| row | what |");
		results.keySet().forEach((label) -> table.append(' ').append(label).append(" |"));
		table.append("\n|---|---|").append("---|".repeat(results.size())).append('\n');
		if (scope == Scope.ALL) {
			kills(table, results, size);
		}
		row(table, "K8", String.format(Locale.ROOT, "restart: one instance alone, %.0f calls/s, delays 1/2/5 s, 50 ms "
				+ "of work, killed (SIGKILL) while holding calls and started again at once, with the instance name the "
				+ "engine makes up; when the restart released the dead one's calls, when the last of them due by then "
				+ "ran, and which calls ran twice", ClusterSteps.PACED_RATE), results,
				(r) -> (r.restartNote != null) ? r.restartNote : Restart.text(r.restartsGenerated));
		row(table, "K8b", "restart as K8, with `wheel-timer.durable.instance-name` the same for both runs", results,
				(r) -> (r.restartNote != null) ? r.restartNote : Restart.text(r.restartsNamed));
		if (scope == Scope.ALL) {
			row(table, "K9", "database CPU per 1,000 calls: K1 / K1b throughput (schedule, run, finish); K3 / K3b "
					+ "burst (run, finish)", results,
					(r) -> String.format(Locale.ROOT, "%s / %s; burst %s / %s", r.throughput1.cpu().text(),
							r.throughput2.cpu().text(), r.burst1.cpu().text(), r.burst2.cpu().text()));
		}
		return table.toString();
	}

	/** K1 to K7. */
	private static void kills(StringBuilder table, Map<String, ClusterResult> results, Size size) {
		String load = String.format(Locale.ROOT, "%d callers per instance flat out for %.0f s, delay 1 s",
				ClusterSteps.THREADS, size.loadMillis / 1e3);
		row(table, "K1", "throughput, 1 instance: calls/s, " + load, results, (r) -> r.throughput1.text());
		row(table, "K1b", "throughput, 2 instances", results, (r) -> r.throughput2.text());
		row(table, "K2", "statements per call, 1 instance / 2 instances (+ commits): K1's schedule + run + finish; "
				+ "K3's run + finish", results,
				(r) -> String.format(Locale.ROOT, "%.2f (+%.2f) / %.2f (+%.2f); burst %.2f / %.2f",
						r.throughput1.statements(), r.throughput1.commits(), r.throughput2.statements(),
						r.throughput2.commits(), r.burst1.statements(), r.burst2.statements()));
		row(table, "K3", String.format(Locale.ROOT, "burst: %,d calls due at one instant, 1 instance running; lateness "
				+ "of each call against that instant", size.burst), results, (r) -> r.burst1.text());
		row(table, "K3b", "burst, 2 instances running (calls run by each)", results, (r) -> r.burst2.text());
		row(table, "K4", "recovery: b killed (SIGKILL) while holding calls; when the database released them, and when "
				+ "the last of them due by then ran", results, (r) -> r.recovery.text() + r.computedRecovery);
		row(table, "K5", String.format(Locale.ROOT, "duplicates: %d × start b, %.1f s of calls, SIGKILL, while a makes "
				+ "calls (100/s each, 50 ms of work)", size.crashes, size.holdMillis / 1e3), results,
				(r) -> r.crashes.text());
		row(table, "K6", String.format(Locale.ROOT, "lateness across the kill of K4: %.0f calls/s on each of a and b "
				+ "for %.0f s, delays 1/2/5 s, 50 ms of work, b killed halfway", ClusterSteps.PACED_RATE,
				size.killWindowMillis / 1e3), results, (r) -> r.recovery.lateness());
		row(table, "K7", "false deaths with no kill (K1–K3): calls a live instance lost to another, or that ran twice",
				results, (r) -> r.falseDeaths);
	}

	private static void row(StringBuilder table, String id, String title, Map<String, ClusterResult> results,
			Function<ClusterResult, String> cell) {
		table.append("| ").append(id).append(" | ").append(title).append(" |");
		for (ClusterResult result : results.values()) {
			String text;
			try {
				text = cell.apply(result);
			}
			catch (RuntimeException ex) {
				text = (result.failure != null) ? "failed: " + result.failure : "–";
			}
			table.append(' ').append(String.valueOf(text).replace("|", "\\|")).append(" |");
		}
		table.append('\n');
	}

	static String footer(Size size, Scope scope, String database, Map<String, ClusterResult> results,
			double minutes) {
		StringBuilder footer = new StringBuilder(String.format("%n"));
		if (scope == Scope.ALL) {
			footer.append(kills(size, results)).append(DbSchedulerSystem.configurations(database)).append(' ');
		}
		footer.append(String.format(Locale.ROOT, "K8: the instance is killed %.0f s into its load, once it has a call "
				+ "in flight, and started again at once with the same settings; the restart is the next one killed. "
				+ "Ready: from the kill to the restart's answer that its application runs. The release is polled every "
				+ "50 ms from the kill on. Expected release: %s. The pass took %.1f minutes.%n%n"
				+ "The machine during each system's turn: CPU that other work used, in cores (near 0 for figures worth "
				+ "comparing), and a one-row autocommit insert before and after:", size.killWindowMillis / 2e3,
				RESTART_EXPECTED, minutes));
		results.forEach((label, result) -> footer.append(String.format(Locale.ROOT, " %s %.2f cores, %.0f/%.0f µs;",
				label, result.otherCores, result.commitBefore, result.commitAfter)));
		footer.setLength(footer.length() - 1);
		return footer.append(".\n").toString();
	}

	/** The notes on K1 to K7, and K9. */
	private static String kills(Size size, Map<String, ClusterResult> results) {
		double longestWrite = results.values()
			.stream()
			.flatMap((r) -> Stream.of(r.burst1, r.burst2))
			.filter(Objects::nonNull)
			.mapToDouble(Burst::writeSeconds)
			.max()
			.orElse(Double.NaN);
		return String.format(Locale.ROOT,
				"K1: calls made over the time from the first one's due time to the last run. K2: everything the "
						+ "instances sent during K1, polling and heartbeats included, over the calls; a batch counts "
						+ "once. K3: from the due instant to the last run; lateness: each call's first run against "
						+ "the due instant, \"early\" ran before it. The harness wrote the calls %.0f s ahead, twice "
						+ "the lead of the bursts half this size before them, time enough to write them all (at most "
						+ "%.1f s in this pass); not counted in K2 or K9. K9: the database server's own CPU time, user and "
						+ "system, over a step, per 1,000 of its calls: over K1 (K2's span) and from the end of the "
						+ "burst's writing to its last run (its run and finish, as K2's burst figure); its processes "
						+ "found by id, never by name (PostgreSQL: the postmaster, every backend and background "
						+ "worker, and those that ended during the step; MariaDB: mariadbd). The kernel counts in "
						+ "10 ms ticks: a figure is good to %d ticks over its step, %s ms per 1,000 calls over K3's "
						+ "%,d calls; the seconds in all beside it say how much it rests on. K4-K6: db-scheduler with "
						+ "a 2 s heartbeat (dead after 12 s, looked for "
						+ "every 4 s); at its default heartbeat of %d min and %d missed heartbeats, an execution picked "
						+ "just before a kill is found dead 30 to 40 minutes later (marked computed). K6: lateness of the "
						+ "run that did each call's work (a call cut by the kill counts by its second run). Ours' "
						+ "expected release in K4: %s (defaults), %s (short lease). ",
				size.burstLead.toMillis() / 1e3, longestWrite, ServerCpu.ERROR_TICKS,
				ServerCpu.Used.errorPerThousandCalls(size.burst), size.burst, DB_SCHEDULER_HEARTBEAT.toMinutes(),
				DB_SCHEDULER_MISSED, ClusterOptions.CONFIGS.get(0).expected(),
				ClusterOptions.CONFIGS.get(1).expected());
	}

	/** The targets, as far as this run's systems allow. */
	static String targets(Map<String, ClusterResult> results) {
		ClusterResult ours = results.get(ClusterOptions.CONFIGS.get(0).label());
		ClusterResult tuned = results.get(ClusterOptions.CONFIGS.get(3).label());
		StringBuilder text = new StringBuilder();
		if (ours != null && ours.recovery != null) {
			double defaultsMinutes = DB_SCHEDULER_HEARTBEAT.multipliedBy(DB_SCHEDULER_MISSED).toSeconds() / 60.0;
			double oursSeconds = Double.isNaN(ours.recovery.lastOverdue()) ? ours.recovery.released()
					: Math.max(ours.recovery.released(), ours.recovery.lastOverdue());
			text.append(String.format(Locale.ROOT,
					"| recovery an order of magnitude faster than db-scheduler's defaults | %.1f s against at least "
							+ "%.0f min (computed) | %s (%.0fx) |%n",
					oursSeconds, defaultsMinutes, (oursSeconds * 10 <= defaultsMinutes * 60) ? "met" : "**not met**",
					defaultsMinutes * 60 / oursSeconds));
		}
		if (ours != null && ours.crashes != null) {
			text.append(String.format(Locale.ROOT,
					"| zero duplicates of calls that had not started | %d of %,d calls over %d kills | %s |%n",
					ours.crashes.notStarted(), ours.crashes.calls(), ours.crashes.kills(),
					(ours.crashes.notStarted() == 0) ? "met" : "**not met**"));
		}
		if (ours != null && tuned != null && ours.throughput1 != null && tuned.throughput1 != null) {
			double one = ours.throughput1.perSecond() / tuned.throughput1.perSecond();
			double two = (ours.throughput2 != null && tuned.throughput2 != null)
					? ours.throughput2.perSecond() / tuned.throughput2.perSecond() : Double.NaN;
			text.append(String.format(Locale.ROOT,
					"| throughput within 2x of db-scheduler's best mode (tuned) | K1 %.2fx with 1 instance, %.2fx with 2 "
							+ "| %s |%n",
					one, two, (one >= 0.5 && (Double.isNaN(two) || two >= 0.5)) ? "met" : "**not met**"));
		}
		return text.isEmpty() ? "" : "\n| target | ours | verdict |\n|---|---|---|\n" + text;
	}

}
