package io.github.wheeltimer.benchmarks.durable;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * What a {@link ClusterBenchmark} pass was asked for on its command line: {@code --quick},
 * {@code --only restart}, {@code --systems} and {@code --database}; and the systems it knows, each
 * with the settings its instances run with.
 *
 * @param size how much of each step
 * @param scope every row, or K8 alone
 * @param configs the systems, in the order of their columns
 * @param databaseId {@link Database#POSTGRESQL} or MariaDB's
 */
record ClusterOptions(Size size, Scope scope, List<Config> configs, String databaseId) {

	/** K8: the one system that has it, at its defaults. */
	static final String RESTARTED = "ours";

	private static final List<String> SHORT_LEASE = List.of("wheel-timer.durable.lease=3s",
			"wheel-timer.durable.heartbeat-interval=1s", "wheel-timer.durable.poll-interval=1s");

	static final List<Config> CONFIGS = List.of(
			new Config("ours", "ours (defaults)", "ours", List.of(), List.of(), Duration.ofSeconds(2),
					Duration.ofSeconds(40),
					"lease 10 s less up to a heartbeat (2 s), plus up to a poll (2 s): 8–12 s"),
			new Config("ours-short", "ours (lease 3 s, heartbeat 1 s, poll 1 s)", "ours", SHORT_LEASE, SHORT_LEASE,
					Duration.ofSeconds(1), Duration.ofSeconds(30), "lease 3 s less up to 1 s, plus up to 1 s: 2–4 s"),
			new Config("defaults", "db-scheduler (defaults)", "db-scheduler", List.of(), List.of("heartbeat=2s"),
					Duration.ofSeconds(10), Duration.ofSeconds(60), null),
			new Config("tuned", "db-scheduler (tuned)", "db-scheduler", List.of("poll=100ms", "lock-and-fetch=true"),
					List.of("poll=100ms", "lock-and-fetch=true", "heartbeat=2s"), Duration.ofMillis(100),
					Duration.ofSeconds(50), null));

	/**

	/** Reads the command line; an unknown system or {@code --only} is refused before any database starts. */
	static ClusterOptions parse(String[] args) {
		List<String> arguments = Arrays.asList(args);
		Size size = arguments.contains("--quick") ? Size.QUICK : Size.FULL;
		Scope scope = scopeArgument(args);
		List<Config> configs = configsArgument(args, scope);
		return new ClusterOptions(size, scope, configs, Database.argument(args));
	}

	private static Scope scopeArgument(String[] args) {
		for (int i = 0; i < args.length - 1; i++) {
			if (args[i].equals("--only")) {
				if (!args[i + 1].equals("restart")) {
					throw new IllegalArgumentException("Unknown --only " + args[i + 1] + ", expected restart");
				}
				return Scope.RESTART;
			}
		}
		return Scope.ALL;
	}

	private static List<Config> configsArgument(String[] args, Scope scope) {
		for (int i = 0; i < args.length - 1; i++) {
			if (args[i].equals("--systems")) {
				List<String> ids = List.of(args[i + 1].split(","));
				List<Config> chosen = CONFIGS.stream().filter((config) -> ids.contains(config.id)).toList();
				if (chosen.size() != ids.size()) {
					throw new IllegalArgumentException("Unknown system in " + ids + ", expected some of "
							+ CONFIGS.stream().map(Config::id).toList());
				}
				return chosen;
			}
		}
		// The others have no K8 figures: a pass of K8 alone would only start their databases.
		return (scope == Scope.RESTART) ? CONFIGS.stream().filter((config) -> config.id.equals(RESTARTED)).toList()
				: CONFIGS;
	}

	/** How much of each step: FULL for the table (about 7 minutes), QUICK a smaller pass (about 4.5 minutes). */
	enum Size {

		FULL(6_000, 20_000, Duration.ofSeconds(8), 6_000, 5, 2_000, 3),

		QUICK(3_000, 10_000, Duration.ofSeconds(6), 4_000, 3, 1_500, 1);

		final long loadMillis;

		final int burst;

		/**
		 * How far ahead of their due instant the burst's calls are written: long enough for the
		 * harness to write them all first, on 2 shared cores; within ours' horizon (10 s), as the
		 * burst's calls were with the 4 s of a burst of 10,000.
		 */
		final Duration burstLead;

		final long killWindowMillis;

		final int crashes;

		final long holdMillis;

		/** K8: kills, each restarted at once, per instance name setting. */
		final int restarts;

		Size(long loadMillis, int burst, Duration burstLead, long killWindowMillis, int crashes, long holdMillis,
				int restarts) {
			this.loadMillis = loadMillis;
			this.burst = burst;
			this.burstLead = burstLead;
			this.killWindowMillis = killWindowMillis;
			this.crashes = crashes;
			this.holdMillis = holdMillis;
			this.restarts = restarts;
		}

	}

	/** Which rows a pass measures: all of them, or ({@code --only restart}) K8 alone. */
	enum Scope {

		ALL, RESTART

	}

	/**
	 * One system's setup.
	 *
	 * @param id its name on the command line
	 * @param label its column
	 * @param system {@code ours} or {@code db-scheduler}
	 * @param options its instances' options for K1-K3
	 * @param killOptions its instances' options for K4-K6 (db-scheduler: a short heartbeat)
	 * @param look the longest a due call waits for the system to look for it (its poll)
	 * @param recoveryCap how long after a kill the harness waits for the dead instance's calls
	 * @param expected for ours, the release its settings promise
	 */
	record Config(String id, String label, String system, List<String> options, List<String> killOptions,
			Duration look, Duration recoveryCap, String expected) {
	}

}
