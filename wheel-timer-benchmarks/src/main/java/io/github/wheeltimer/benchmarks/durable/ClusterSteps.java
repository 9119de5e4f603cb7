package io.github.wheeltimer.benchmarks.durable;

import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.github.wheeltimer.benchmarks.durable.ClusterFigures.Burst;
import io.github.wheeltimer.benchmarks.durable.ClusterFigures.Crashes;
import io.github.wheeltimer.benchmarks.durable.ClusterFigures.Ranges;
import io.github.wheeltimer.benchmarks.durable.ClusterFigures.Recovery;
import io.github.wheeltimer.benchmarks.durable.ClusterFigures.Restart;
import io.github.wheeltimer.benchmarks.durable.ClusterFigures.Stranded;
import io.github.wheeltimer.benchmarks.durable.ClusterFigures.Tally;
import io.github.wheeltimer.benchmarks.durable.ClusterFigures.Throughput;
import io.github.wheeltimer.benchmarks.durable.ClusterOptions.Config;
import io.github.wheeltimer.benchmarks.durable.ClusterOptions.Scope;
import io.github.wheeltimer.benchmarks.durable.ClusterOptions.Size;
import io.github.wheeltimer.durable.jdbc.DurableDialect;
import io.github.wheeltimer.durable.jdbc.DurableDialects;

/**
 * The steps of a {@link ClusterBenchmark} pass, run on one system after the other: the loads its
 * instances are told to make, the kills, and the waits for their calls to run, each system's
 * figures going into its {@link ClusterResult} and what they are made of to the log. The
 * instances are {@link ClusterInstances}', the harness's SQL {@link ClusterSql}'s; call numbers
 * run on across systems, so that no two calls of the run share one.
 */
final class ClusterSteps {

	/** Numbers reserved for each instance's share of a load: no two calls of the run share one. */
	private static final int BLOCK = 1_000_000;

	/** Caller threads per instance for K1. */
	static final int THREADS = 4;

	/** K4-K6: calls per second each instance makes. */
	static final double PACED_RATE = 100;

	/**
	 * K4-K6: each run's work, so that calls are in flight at a kill (at 100 calls/s per instance,
	 * a few per instance).
	 */
	static final long WORK_MILLIS = 50;

	/** How long past the last due time waits go on before the calls left count as never run. */
	private static final Duration GRACE = Duration.ofSeconds(20);

	/** K8: blank, so that the engine makes a name up, as for an application that does not set one. */
	private static final List<String> GENERATED_NAME = List.of("wheel-timer.durable.instance-name=",
			"work=" + WORK_MILLIS);

	/** K8b: one name for every start, as a StatefulSet's pod or a systemd unit has. */
	private static final List<String> CONFIGURED_NAME = List.of("wheel-timer.durable.instance-name=worker-0",
			"work=" + WORK_MILLIS);

	private final Size size;

	private final Scope scope;

	private final Database server;

	/** K9: the server's processes, read before and after a step. */
	private final ServerCpu serverCpu;

	/** How our tables take ids and instants on this run's database. */
	private final DurableDialect dialect;

	private Config config;

	private String database;

	private ClusterSql sql;

	private ClusterInstances instances;

	private long nextCall = 1;

	ClusterSteps(Size size, Scope scope, Database server, ServerCpu serverCpu) {
		this.size = size;
		this.scope = scope;
		this.server = server;
		this.serverCpu = serverCpu;
		this.dialect = DurableDialects.forPlatform(server.id());
	}

	/**
	 * Gives the system a fresh database, the harness's pool on it and an emptied directory under
	 * {@code root} for its instances' logs and run files.
	 */
	void begin(Config config, Path root) throws Exception {
		this.config = config;
		this.sql = null;
		this.instances = null;
		this.database = "cluster_" + config.id().replace('-', '_');
		String url = this.server.createDatabase(this.database);
		this.sql = new ClusterSql(config, url, this.dialect);
		this.instances = new ClusterInstances(config.system(), url, root.resolve(config.id()));
		this.sql.createTables();
	}

	/** Stops the system's instances still running, and closes the harness's pool. */
	void end() {
		if (this.instances != null) {
			this.instances.close();
		}
		if (this.sql != null) {
			this.sql.close();
		}
	}

	/** CPU seconds of the system's instances, which the machine's other work leaves out. */
	double childCpuSeconds() {
		return (this.instances != null) ? this.instances.childCpuSeconds() : 0;
	}

	/** Runs the system's steps; one that throws leaves its own figures and later ones unset. */
	void measure(ClusterResult result) throws Exception {
		boolean restarts = this.config.id().equals(ClusterOptions.RESTARTED);
		if (this.scope == Scope.ALL) {
			ClusterChild a = kills(result);
			if (restarts) {
				// K8 wants the database to itself: a survivor would take the dead instance's calls over.
				this.instances.stop(a);
			}
		}
		if (restarts) {
			result.restartsGenerated = restarts("g", GENERATED_NAME);
			result.restartsNamed = restarts("n", CONFIGURED_NAME);
		}
	}

	/** K1 to K7; returns a, still running. */
	private ClusterChild kills(ClusterResult result) throws Exception {
		ClusterChild a = this.instances.start("a", this.config.options());
		settle();
		result.throughput1 = throughput(List.of(a));
		settle();
		result.burst1 = burst(List.of(a));
		ClusterChild b = this.instances.start("b", this.config.options());
		settle();
		result.throughput2 = throughput(List.of(a, b));
		settle();
		result.burst2 = burst(List.of(a, b));
		result.falseDeaths = falseDeaths(List.of(a, b), List.of(result.throughput1.range(), result.throughput2.range(),
				result.burst1.range(), result.burst2.range()));
		if (!this.config.killOptions().equals(this.config.options())) {
			this.instances.stop(a);
			this.instances.stop(b);
			a = this.instances.start("a", this.config.killOptions());
			b = this.instances.start("b", this.config.killOptions());
		}
		a.send("work " + WORK_MILLIS);
		b.send("work " + WORK_MILLIS);
		settle();
		result.recovery = killOnce(a, b);
		settle();
		result.crashes = crashes(a);
		return a;
	}

	private boolean ours() {
		return this.config.system().equals("ours");
	}

	/** K1 and K2. */
	private Throughput throughput(List<ClusterChild> instances) throws Exception {
		long[] before = ClusterInstances.counts(instances);
		ServerCpu.Mark cpu = this.serverCpu.mark();
		long[] firsts = new long[instances.size()];
		for (int i = 0; i < instances.size(); i++) {
			firsts[i] = take(BLOCK);
			instances.get(i).send(String.format(Locale.ROOT, "load %d %d %d 0 %d ONE_SECOND", firsts[i], BLOCK, THREADS,
					this.size.loadMillis));
		}
		System.err.printf("  throughput, %d instance(s): %d callers each, flat out for %.0f s%n", instances.size(),
				THREADS, this.size.loadMillis / 1e3);
		for (ClusterChild instance : instances) {
			instance.await("@loaded", Duration.ofMillis(this.size.loadMillis).plusMinutes(2));
		}
		Ranges range = new Ranges(firsts, BLOCK);
		this.instances.awaitRuns(range,
				CallLog.nowMicros() + Delay.ONE_SECOND.micros() + micros(this.config.look()) + micros(GRACE));
		long[] counts = ClusterInstances.minus(ClusterInstances.counts(instances), before);
		List<RunLog.Call> calls = range.calls(this.instances.truth());
		Tally tally = Tally.of(calls);
		ServerCpu.Used used = cpu.usedFor(tally.made());
		long firstMade = calls.stream().mapToLong((c) -> c.madeMicros).filter((m) -> m != Long.MIN_VALUE).min().orElse(0);
		long lastMade = calls.stream().mapToLong((c) -> c.madeMicros).max().orElse(0);
		long firstDue = calls.stream().mapToLong(RunLog.Call::due).min().orElse(0);
		long lastDue = calls.stream().mapToLong(RunLog.Call::due).max().orElse(0);
		Throughput throughput = new Throughput(range, tally.made(), tally.made() / seconds(tally.lastRun() - firstDue),
				tally.made() / seconds(lastMade - firstMade), seconds(tally.lastRun() - lastDue),
				counts[0] / (double) tally.made(), counts[1] / (double) tally.made(), used, tally.twice(), tally.missing());
		System.err.printf("  throughput: %s; %.2f statements per call (+%.2f commits); database CPU per 1,000 calls "
				+ "%s%n", throughput.text(), throughput.statements(), throughput.commits(), throughput.cpu().text());
		return throughput;
	}

	/** K3: {@code N} calls due at one instant, written while the instances run. */
	private Burst burst(List<ClusterChild> instances) throws Exception {
		int count = this.size.burst;
		long first = take(count);
		long[] before = ClusterInstances.counts(instances);
		long writing = CallLog.nowMicros();
		long due = writing + micros(this.size.burstLead);
		System.err.printf("  burst: writing %,d calls due in %.0f s%n", count, this.size.burstLead.toMillis() / 1e3);
		if (ours()) {
			this.sql.writeOursBurst(first, count, due);
		}
		else {
			this.sql.writeDbSchedulerBurst(first, count, due);
		}
		long written = CallLog.nowMicros();
		// The run and finish of the calls, as K2's burst figure: the harness's own writing left out.
		ServerCpu.Mark cpu = this.serverCpu.mark();
		this.instances.truth().expect(first, count, due);
		Ranges range = new Ranges(new long[] { first }, count);
		this.instances.awaitRuns(range, due + micros(this.config.look()) + micros(GRACE) + 60_000_000L);
		long[] counts = ClusterInstances.minus(ClusterInstances.counts(instances), before);
		ServerCpu.Used used = cpu.usedFor(count);
		List<RunLog.Call> calls = range.calls(this.instances.truth());
		Tally tally = Tally.of(calls);
		Map<String, Integer> split = new LinkedHashMap<>();
		instances.forEach((instance) -> split.put(instance.name, 0));
		calls.stream().filter(RunLog.Call::ran).forEach((call) -> split.merge(call.first().instance, 1, Integer::sum));
		// By each call's first run: the one that would be early, and with no kill the only one.
		long[] late = calls.stream()
			.filter(RunLog.Call::ran)
			.mapToLong((call) -> call.first().startMicros - call.due())
			.toArray();
		Burst burst = new Burst(range, count, seconds(tally.lastRun() - due), tally.ran() / seconds(tally.lastRun() - due),
				split, CallLog.Lateness.of(late, tally.missing(), tally.twice()), seconds(written - writing), written > due,
				counts[0] / (double) count, counts[1] / (double) count, used, tally.twice(), tally.missing());
		System.err.printf("  burst: %s; written in %.2f s; %.2f statements per call to run it (+%.2f commits); "
				+ "database CPU per 1,000 calls %s%n", burst.text(), burst.writeSeconds(), burst.statements(),
				burst.commits(), burst.cpu().text());
		return burst;
	}

	/** K7: what the live instances lost to each other, and calls that ran twice, with no kill. */
	private String falseDeaths(List<ClusterChild> instances, List<Ranges> ranges) {
		int twice = 0;
		for (Ranges range : ranges) {
			twice += Tally.of(range.calls(this.instances.truth())).twice();
		}
		if (!ours()) {
			return (twice == 0) ? "none: no call ran twice" : twice + " calls ran twice";
		}
		long takenOver = 0;
		long fenced = 0;
		for (ClusterChild instance : instances) {
			long[] counts = instance.counts();
			// statements commits scheduled claimed started ran failed fenced takenOver handedBack
			fenced += counts[7];
			takenOver += counts[8];
		}
		String text = String.format(Locale.ROOT, "%s: %d taken over, %d fenced, %d ran twice",
				(takenOver + fenced + twice == 0) ? "none" : "**some**", takenOver, fenced, twice);
		System.err.printf("  false deaths: %s%n", text);
		return text;
	}

	/** K4 and K6: both instances make paced calls; halfway, b is killed. */
	private Recovery killOnce(ClusterChild a, ClusterChild b) throws Exception {
		long firstA = take(BLOCK);
		long firstB = take(BLOCK);
		String load = " %d 1 %s %d ONE_SECOND,TWO_SECONDS,FIVE_SECONDS";
		a.send(String.format(Locale.ROOT, "load %d" + load, firstA, BLOCK, PACED_RATE, this.size.killWindowMillis));
		b.send(String.format(Locale.ROOT, "load %d" + load, firstB, BLOCK, PACED_RATE, this.size.killWindowMillis));
		System.err.printf("  kill: %.0f calls/s on each instance for %.0f s, %s killed halfway%n", PACED_RATE,
				this.size.killWindowMillis / 1e3, b.name);
		Thread.sleep(this.size.killWindowMillis / 2);
		this.sql.awaitHolding(b);
		long kill = this.instances.kill(b);
		Map<Long, Boolean> held = held(b);
		long released = this.sql.awaitReleased(b, kill + micros(this.config.recoveryCap()));
		a.await("@loaded", Duration.ofMillis(this.size.killWindowMillis).plusMinutes(1));
		Ranges range = new Ranges(new long[] { firstA, firstB }, BLOCK);
		Map<Long, Long> killed = new HashMap<>();
		held.keySet().forEach((number) -> killed.put(number, kill));
		this.instances.awaitRuns(range, killed, Math.max(CallLog.nowMicros() + Delay.FIVE_SECONDS.micros(),
				kill + micros(this.config.recoveryCap())) + micros(this.config.look()) + micros(GRACE));
		List<RunLog.Call> calls = range.calls(this.instances.truth());
		Stranded stranded = Stranded.of(held, calls, kill, released);
		Recovery recovery = new Recovery(held.size(), stranded.started(), sinceKill(released, kill),
				stranded.dueByRelease(), sinceKill(stranded.lastOverdue(), kill), stranded.lost(),
				Tally.of(calls).lateness(calls));
		System.err.printf("  kill: %s%n  kill: lateness %s%n", recovery.text(), recovery.lateness());
		return recovery;
	}

	/** K5: b is started, makes calls, and is killed, again and again, while a makes calls throughout. */
	private Crashes crashes(ClusterChild a) throws Exception {
		String load = "load %d %d 1 %s 600000 ONE_SECOND,TWO_SECONDS";
		long firstA = take(BLOCK);
		List<Long> firsts = new ArrayList<>(List.of(firstA));
		a.send(String.format(Locale.ROOT, load, firstA, BLOCK, PACED_RATE));
		int held = 0;
		int heldStarted = 0;
		Map<Long, Long> killed = new HashMap<>();
		long lastKill = 0;
		for (int cycle = 0; cycle < this.size.crashes; cycle++) {
			ClusterChild b = this.instances.start("b", this.config.killOptions());
			b.send("work " + WORK_MILLIS);
			long first = take(BLOCK);
			firsts.add(first);
			b.send(String.format(Locale.ROOT, load, first, BLOCK, PACED_RATE));
			Thread.sleep(this.size.holdMillis);
			this.sql.awaitHolding(b);
			long kill = this.instances.kill(b);
			lastKill = kill;
			Map<Long, Boolean> stranded = held(b);
			stranded.keySet().forEach((number) -> killed.put(number, kill));
			held += stranded.size();
			heldStarted += (int) stranded.values().stream().filter((s) -> s).count();
			System.err.printf("  crash %d: %s held %d calls, %d of them started%n", cycle + 1, b.name, stranded.size(),
					stranded.values().stream().filter((s) -> s).count());
		}
		a.send("halt");
		a.await("@loaded", Duration.ofMinutes(1));
		long survivorFenced = ours() ? a.counts()[7] : 0;
		Ranges range = new Ranges(firsts.stream().mapToLong(Long::longValue).toArray(), BLOCK);
		this.instances.awaitRuns(range, killed, Math.max(CallLog.nowMicros() + Delay.TWO_SECONDS.micros(),
				lastKill + micros(this.config.recoveryCap())) + micros(this.config.look()) + micros(GRACE));
		List<RunLog.Call> calls = range.calls(this.instances.truth());
		Crashes crashes = Crashes.of(this.size.crashes, calls, held, heldStarted, survivorFenced,
				this.instances::killedAt);
		System.err.printf("  crashes: %s%n", crashes.text());
		return crashes;
	}

	/**
	 * K8: one instance alone on the database makes calls as in K4 and, once it has a call in
	 * flight, is killed and started again at once with the same options; the restart is the next
	 * one killed. The release is watched from the kill on, while the restart starts: a restart
	 * that knows its predecessor may take its calls before it answers that it is ready.
	 */
	private List<Restart> restarts(String role, List<String> options) throws Exception {
		List<Restart> restarts = new ArrayList<>();
		ClusterChild instance = this.instances.start(role, options);
		for (int cycle = 0; cycle < this.size.restarts; cycle++) {
			settle();
			long first = take(BLOCK);
			instance.send(String.format(Locale.ROOT, "load %d %d 1 %s 600000 ONE_SECOND,TWO_SECONDS,FIVE_SECONDS",
					first, BLOCK, PACED_RATE));
			Thread.sleep(this.size.killWindowMillis / 2);
			this.sql.awaitHolding(instance);
			String name = this.sql.instanceName(instance);
			long kill = this.instances.kill(instance);
			Map<Long, Boolean> held = held(instance);
			ClusterChild dead = instance;
			long deadline = kill + micros(this.config.recoveryCap());
			CompletableFuture<Long> released = CompletableFuture.supplyAsync(() -> {
				try {
					return this.sql.awaitReleased(dead, deadline);
				}
				catch (Exception ex) {
					throw new CompletionException(ex);
				}
			});
			instance = this.instances.start(role, options);
			long ready = CallLog.nowMicros();
			long releasedAt = released.join();
			Ranges range = new Ranges(new long[] { first }, BLOCK);
			Map<Long, Long> killed = new HashMap<>();
			held.keySet().forEach((number) -> killed.put(number, kill));
			this.instances.awaitRuns(range, killed, Math.max(CallLog.nowMicros() + Delay.FIVE_SECONDS.micros(), deadline)
					+ micros(this.config.look()) + micros(GRACE));
			List<RunLog.Call> calls = range.calls(this.instances.truth());
			Stranded stranded = Stranded.of(held, calls, kill, releasedAt);
			Restart restart = Restart.of(seconds(ready - kill), held, stranded, sinceKill(releasedAt, kill),
					sinceKill(stranded.lastOverdue(), kill), calls, this.instances::killedAt);
			System.err.printf("  restart %d: %s (instance '%s') killed, %s took over %d calls: %s%n", cycle + 1,
					dead.name, name, instance.name, instance.counts()[8], Restart.text(List.of(restart)));
			restarts.add(restart);
		}
		this.instances.stop(instance);
		return restarts;
	}

	private static double sinceKill(long micros, long kill) {
		return (micros != Long.MIN_VALUE) ? seconds(micros - kill) : Double.NaN;
	}
	/**
	 * What the killed instance held, from the database: call number, and whether its run had
	 * started there (from its run file).
	 */
	private Map<Long, Boolean> held(ClusterChild dead) throws SQLException {
		Map<Long, Boolean> held = new LinkedHashMap<>();
		this.sql.heldCalls(dead).forEach((number) -> held.put(number, false));
		RunLog.Truth truth = this.instances.truth();
		truth.refresh();
		List<RunLog.Call> calls = new ArrayList<>();
		for (long number : held.keySet()) {
			calls.addAll(truth.range(number, number));
		}
		for (RunLog.Call call : calls) {
			if (call.runs.stream().anyMatch((run) -> run.instance.equals(dead.name))) {
				held.put(call.number, true);
			}
		}
		return held;
	}

	private void settle() throws SQLException {
		this.server.settle(this.database);
	}

	private long take(int count) {
		long first = this.nextCall;
		this.nextCall += count;
		return first;
	}

	private static long micros(Duration duration) {
		return duration.toNanos() / 1_000;
	}

	private static double seconds(long micros) {
		return micros / 1e6;
	}

}
