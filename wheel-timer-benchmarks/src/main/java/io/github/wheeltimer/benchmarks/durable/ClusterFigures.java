package io.github.wheeltimer.benchmarks.durable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;

/**
 * The figures of a {@link ClusterBenchmark} row, each computed from the instances' run files
 * ({@link RunLog}) and the database, and each with the text of its cell: the table shows them as
 * they are, and the log with what they are made of.
 */
final class ClusterFigures {

	private ClusterFigures() {
	}

	/** Call numbers: blocks of {@code size} from each first number. */
	record Ranges(long[] firsts, int size) {

		List<RunLog.Call> calls(RunLog.Truth truth) {
			List<RunLog.Call> calls = new ArrayList<>();
			for (long first : this.firsts) {
				calls.addAll(truth.range(first, first + this.size - 1));
			}
			return calls;
		}

	}

	/** What happened to a set of calls. */
	record Tally(int made, int ran, int twice, int missing, long lastRun) {

		static Tally of(List<RunLog.Call> calls) {
			int ran = 0;
			int twice = 0;
			long lastRun = Long.MIN_VALUE;
			for (RunLog.Call call : calls) {
				if (call.ran()) {
					ran++;
					lastRun = Math.max(lastRun, call.first().startMicros);
				}
				if (call.runs.size() > 1) {
					twice++;
				}
			}
			return new Tally(calls.size(), ran, twice, calls.size() - ran, lastRun);
		}

		/**
		 * Lateness of the run that did each call's work (a call cut by a kill counts by its second
		 * run): p50 / p99 / max, how many were over 1 s late.
		 */
		String lateness(List<RunLog.Call> calls) {
			long[] late = calls.stream().filter(RunLog.Call::ran).mapToLong(RunLog.Call::latenessMicros).sorted().toArray();
			if (late.length == 0) {
				return "nothing ran";
			}
			long overOneSecond = Arrays.stream(late).filter((l) -> l > 1_000_000).count();
			long early = Arrays.stream(late).filter((l) -> l < 0).count();
			String text = String.format(Locale.ROOT, "p50 %s / p99 %s / max %s ms over %,d calls; %,d over 1 s late",
					CallLog.Lateness.ms(percentile(late, 0.50)), CallLog.Lateness.ms(percentile(late, 0.99)),
					CallLog.Lateness.ms(late[late.length - 1] / 1e3), calls.size(), overOneSecond);
			if (early > 0) {
				text += ", " + early + " early";
			}
			if (this.missing > 0) {
				text += ", **" + this.missing + " never ran**";
			}
			return text;
		}

		private static double percentile(long[] sorted, double fraction) {
			int rank = (int) Math.ceil(fraction * sorted.length);
			return sorted[Math.max(0, rank - 1)] / 1e3;
		}

	}

	/** K1, K2, K9. */
	record Throughput(Ranges range, int calls, double perSecond, double madePerSecond, double tail, double statements,
			double commits, ServerCpu.Used cpu, int twice, int missing) {

		String text() {
			String text = String.format(Locale.ROOT, "%,.0f calls/s (%,d calls, made at %,.0f/s; the last ran %.1f s after "
					+ "its due time)", this.perSecond, this.calls, this.madePerSecond, this.tail);
			return text + problems(this.twice, this.missing);
		}

	}

	/**
	 * K3, and its share of K2 and K9.
	 * @param lateness of each call's first run, against the due instant
	 * @param writeSeconds how long the harness took to write the calls, of the lead it had
	 */
	record Burst(Ranges range, int count, double lastAfterDue, double perSecond, Map<String, Integer> split,
			CallLog.Lateness lateness, double writeSeconds, boolean writtenLate, double statements, double commits,
			ServerCpu.Used cpu, int twice, int missing) {

		String text() {
			String text = String.format(Locale.ROOT, "%,.0f calls/s, the last %.2f s after the due instant",
					this.perSecond, this.lastAfterDue);
			if (this.split.size() > 1) {
				text += " (" + String.join(" / ", this.split.entrySet()
					.stream()
					.map((e) -> String.format(Locale.ROOT, "%s %,d", e.getKey(), e.getValue()))
					.toList()) + ")";
			}
			CallLog.Lateness late = this.lateness;
			text += String.format(Locale.ROOT, "; lateness p50 %s / p99 %s / max %s ms, %s",
					CallLog.Lateness.ms(late.p50Ms()), CallLog.Lateness.ms(late.p99Ms()),
					CallLog.Lateness.ms(late.maxMs()), (late.early() == 0) ? "0 early"
							: String.format(Locale.ROOT, "**%,d early** (earliest %.1f ms)", late.early(),
									late.earliestMs()));
			if (this.writtenLate) {
				text += ", written after the due instant";
			}
			return text + problems(this.twice, this.missing);
		}

	}

	/** K4, K6. */
	record Recovery(int held, int heldStarted, double released, int dueByRelease, double lastOverdue, int lost,
			String lateness) {

		String text() {
			if (this.held == 0) {
				return "b held no call when killed";
			}
			String text = String.format(Locale.ROOT, "b held %d calls (%d started): released %s s after the kill",
					this.held, this.heldStarted, Double.isNaN(this.released) ? "never (within the wait)"
							: String.format(Locale.ROOT, "%.1f", this.released));
			if (this.dueByRelease > 0) {
				text += String.format(Locale.ROOT, "; the %d due by then ran by %.1f s", this.dueByRelease,
						this.lastOverdue);
			}
			if (this.lost > 0) {
				text += ", **" + this.lost + " never ran**";
			}
			return text;
		}

	}

	/** K5. */
	record Crashes(int kills, int calls, int held, int heldStarted, int twice, int byDesign, int returned,
			int notStarted, int missing, long survivorFenced) {

		/**
		 * Sorts the calls that ran twice: by design if the instance their first run was on was
		 * killed after that run started (a call in flight runs again), a duplicate of a call that
		 * had not started otherwise; each of those is logged.
		 * @param killedAt when the instance a run was on was killed, {@link Long#MIN_VALUE} if it was not
		 */
		static Crashes of(int kills, List<RunLog.Call> calls, int held, int heldStarted, long survivorFenced,
				ToLongFunction<RunLog.Run> killedAt) {
			int twice = 0;
			int byDesign = 0;
			int returned = 0;
			int notStarted = 0;
			for (RunLog.Call call : calls) {
				if (call.runs.size() < 2) {
					continue;
				}
				twice++;
				RunLog.Run first = call.first();
				long killedAtMicros = killedAt.applyAsLong(first);
				if (killedAtMicros != Long.MIN_VALUE && killedAtMicros > first.startMicros) {
					byDesign++;
					if (first.ended() && first.endMicros < killedAtMicros) {
						returned++;
					}
				}
				else {
					notStarted++;
					System.err.printf("  call %d ran twice and its first run (on %s) was not cut by a kill%n",
							call.number, first.instance);
				}
			}
			Tally tally = Tally.of(calls);
			return new Crashes(kills, tally.made, held, heldStarted, twice, byDesign, returned, notStarted,
					tally.missing, survivorFenced);
		}

		String text() {
			String text = String.format(Locale.ROOT,
					"%d of %,d calls ran twice: %d cut by a kill after their first run started%s, %s that had not "
							+ "started; the killed instances held %d calls, %d started",
					this.twice, this.calls, this.byDesign,
					(this.returned > 0) ? " (" + this.returned + " after their method returned)" : "",
					(this.notStarted > 0) ? "**" + this.notStarted + "**" : "0", this.held, this.heldStarted);
			if (this.missing > 0) {
				text += ", **" + this.missing + " never ran**";
			}
			if (this.survivorFenced > 0) {
				text += ", **the survivor lost " + this.survivorFenced + " calls to a false death**";
			}
			return text;
		}

	}

	/**
	 * What became of the calls a killed instance held (K4, K8): how many had started there; of
	 * their runs after the kill, how many were due by the release and when the last of those
	 * started; and how many never ran after the kill.
	 */
	record Stranded(int started, int dueByRelease, long lastOverdue, int lost) {

		/**
		 * @param held call number to whether its run had started on the dead instance
		 * @param released when the database released them, {@link Long#MIN_VALUE} if it did not
		 */
		static Stranded of(Map<Long, Boolean> held, List<RunLog.Call> calls, long kill, long released) {
			Map<Long, RunLog.Call> byNumber = new HashMap<>();
			calls.forEach((call) -> byNumber.put(call.number, call));
			int started = 0;
			int dueByRelease = 0;
			int lost = 0;
			long lastOverdue = Long.MIN_VALUE;
			long releasedAt = (released != Long.MIN_VALUE) ? released : Long.MAX_VALUE;
			for (Map.Entry<Long, Boolean> entry : held.entrySet()) {
				RunLog.Call call = byNumber.get(entry.getKey());
				if (entry.getValue()) {
					started++;
				}
				RunLog.Run after = (call != null) ? call.runs.stream()
					.filter((run) -> run.startMicros >= kill)
					.findFirst()
					.orElse(null) : null;
				if (after == null) {
					lost++;
					continue;
				}
				if (after.dueMicros <= releasedAt) {
					dueByRelease++;
					lastOverdue = Math.max(lastOverdue, after.startMicros);
				}
			}
			return new Stranded(started, dueByRelease, lastOverdue, lost);
		}

	}

	/**
	 * K8: one kill and its restart; seconds from the kill.
	 * @param ready when the restart answered that it was ready (its JVM and application started)
	 * @param calls the calls the killed instance made since its start
	 * @param byDesign of those that ran twice, the ones whose first run the kill cut
	 * @param early runs that started before their call's due time
	 */
	record Restart(double ready, int held, int heldStarted, double released, int dueByRelease, double lastOverdue,
			int calls, int twice, int byDesign, int early, int lost) {

		/**
		 * One kill's figures, from the calls the killed instance made since its start: those that
		 * ran twice (by design if the kill cut their first run), runs early, and calls lost, held
		 * or not.
		 * @param held call number to whether its run had started on the killed instance
		 * @param killedAt when the instance a run was on was killed, {@link Long#MIN_VALUE} if it was not
		 */
		static Restart of(double ready, Map<Long, Boolean> held, Stranded stranded, double released,
				double lastOverdue, List<RunLog.Call> calls, ToLongFunction<RunLog.Run> killedAt) {
			int twice = 0;
			int byDesign = 0;
			int early = 0;
			int lost = stranded.lost;
			for (RunLog.Call call : calls) {
				early += (int) call.runs.stream().filter((run) -> run.startMicros < run.dueMicros).count();
				if (!call.ran() && !held.containsKey(call.number)) {
					lost++;
				}
				if (call.runs.size() > 1) {
					twice++;
					if (killedAt.applyAsLong(call.first()) > call.first().startMicros) {
						byDesign++;
					}
				}
			}
			return new Restart(ready, held.size(), stranded.started, released, stranded.dueByRelease, lastOverdue,
					calls.size(), twice, byDesign, early, lost);
		}

		/** The kills of one setting: each figure for every kill in turn. */
		static String text(List<Restart> restarts) {
			int calls = restarts.stream().mapToInt(Restart::calls).sum();
			int twice = restarts.stream().mapToInt(Restart::twice).sum();
			int byDesign = restarts.stream().mapToInt(Restart::byDesign).sum();
			int early = restarts.stream().mapToInt(Restart::early).sum();
			int lost = restarts.stream().mapToInt(Restart::lost).sum();
			String text = String.format(Locale.ROOT,
					"%s: held %s calls (%s started), restarted at once (ready %s s after the kill): released %s s "
							+ "after the kill; the %s due by then ran by %s s; %d of %,d calls ran twice: %d cut by %s "
							+ "after their first run started, %s that had not started; %s",
					(restarts.size() == 1) ? "1 kill" : restarts.size() + " kills",
					each(restarts, (r) -> Integer.toString(r.held)),
					each(restarts, (r) -> Integer.toString(r.heldStarted)), each(restarts, (r) -> tenths(r.ready)),
					each(restarts, (r) -> tenths(r.released)), each(restarts, (r) -> Integer.toString(r.dueByRelease)),
					each(restarts, (r) -> tenths(r.lastOverdue)),
					twice, calls, byDesign, (restarts.size() == 1) ? "the kill" : "a kill",
					(twice > byDesign) ? "**" + (twice - byDesign) + "**" : "0",
					(early > 0) ? "**" + early + " runs early**" : "0 early");
			if (restarts.stream().anyMatch((r) -> Double.isNaN(r.released))) {
				text += ", **not released within the wait**";
			}
			if (lost > 0) {
				text += ", **" + lost + " never ran**";
			}
			return text;
		}

		private static String each(List<Restart> restarts, Function<Restart, String> figure) {
			return restarts.stream().map(figure).collect(Collectors.joining(" / "));
		}

		private static String tenths(double seconds) {
			return Double.isNaN(seconds) ? "–" : String.format(Locale.ROOT, "%.1f", seconds);
		}

	}

	static String problems(int twice, int missing) {
		String text = "";
		if (twice > 0) {
			text += ", **" + twice + " ran twice**";
		}
		if (missing > 0) {
			text += ", **" + missing + " never ran**";
		}
		return text;
	}

}
