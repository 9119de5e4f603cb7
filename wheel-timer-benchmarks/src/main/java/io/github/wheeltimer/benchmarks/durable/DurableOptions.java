package io.github.wheeltimer.benchmarks.durable;

import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a {@link DurableBenchmark} pass was asked for on its command line: {@code --quick},
 * {@code --systems}, {@code --rows}, {@code --retried-calls}, {@code --waiting} and
 * {@code --database}; and what each size and each row mean in steps, so that a pass runs only the
 * steps of the rows it shows.
 *
 * @param size how much of each step
 * @param systems the systems, in the order of their columns
 * @param rows the rows to show, in the table's order
 * @param retriedCalls F1's calls
 * @param waiting D7's calls waiting far in the future
 * @param databaseId {@link Database#POSTGRESQL} or MariaDB's
 */
record DurableOptions(Size size, List<String> systems, Set<String> rows, int retriedCalls, long waiting,
		String databaseId) {

	static final List<String> ALL_SYSTEMS = List.of("ours", "defaults", "tuned");

	/** The rows, in the table's order, and the steps that measure each. */
	static final Map<String, Set<Step>> ROWS = rowSteps();

	/**
	 * The rows of a pass without {@code --rows}: all but D7, whose millions of waiting calls take
	 * longer to write than the rest of the pass takes; it runs only when named.
	 */
	static final Set<String> DEFAULT_ROWS = defaultRows();

	/** Reads the command line; an unknown row is refused before any database starts. */
	static DurableOptions parse(String[] args) {
		List<String> arguments = Arrays.asList(args);
		Size size = arguments.contains("--quick") ? Size.QUICK : Size.FULL;
		List<String> systems = systemsArgument(args);
		Set<String> rows = rowsArgument(args);
		String calls = argument(args, "--retried-calls");
		int retriedCalls = (calls != null) ? Integer.parseInt(calls) : size.retried;
		String waitingCalls = argument(args, "--waiting");
		long waiting = (waitingCalls != null) ? Long.parseLong(waitingCalls.replace("_", "").replace(",", ""))
				: size.waiting;
		return new DurableOptions(size, systems, rows, retriedCalls, waiting, Database.argument(args));
	}

	/** The steps this pass runs, for the rows it was asked for. */
	Set<Step> steps() {
		Set<Step> steps = EnumSet.noneOf(Step.class);
		this.rows.forEach((row) -> steps.addAll(ROWS.get(row)));
		return steps;
	}

	private static List<String> systemsArgument(String[] args) {
		String systems = argument(args, "--systems");
		return (systems != null) ? List.of(systems.split(",")) : ALL_SYSTEMS;
	}

	/**
	 * The rows of {@code --rows}, such as {@code F1} or {@code D2,D3}, in the table's order; all
	 * but D7 without it.
	 */
	private static Set<String> rowsArgument(String[] args) {
		String rows = argument(args, "--rows");
		if (rows == null) {
			return DEFAULT_ROWS;
		}
		Set<String> asked = new LinkedHashSet<>();
		for (String row : rows.split(",")) {
			String id = ROWS.keySet()
				.stream()
				.filter((known) -> known.equalsIgnoreCase(row.strip()))
				.findFirst()
				.orElseThrow(() -> new IllegalArgumentException(
						"Unknown row " + row + ", expected some of " + ROWS.keySet()));
			asked.add(id);
		}
		Set<String> ordered = new LinkedHashSet<>(ROWS.keySet());
		ordered.retainAll(asked);
		return ordered;
	}

	/** The value that follows {@code name}, or {@code null} if it is not given. */
	private static String argument(String[] args, String name) {
		for (int i = 0; i < args.length - 1; i++) {
			if (args[i].equals(name)) {
				return args[i + 1];
			}
		}
		return null;
	}

	private static Map<String, Set<Step>> rowSteps() {
		Map<String, Set<Step>> rows = new LinkedHashMap<>();
		rows.put("D1", EnumSet.of(Step.SCHEDULE));
		rows.put("D1t", EnumSet.of(Step.SCHEDULE));
		rows.put("D2", EnumSet.of(Step.LATENESS));
		rows.put("D3", EnumSet.of(Step.BURST));
		rows.put("D4", EnumSet.of(Step.BURST, Step.LATENESS));
		rows.put("D4s", EnumSet.of(Step.SCHEDULE));
		rows.put("D5", EnumSet.of(Step.IDLE));
		rows.put("D6", EnumSet.of(Step.BURST, Step.LATENESS));
		rows.put("F1", EnumSet.of(Step.RETRIES));
		rows.put("D7", EnumSet.of(Step.WAITING));
		return rows;
	}

	private static Set<String> defaultRows() {
		Set<String> rows = new LinkedHashSet<>(ROWS.keySet());
		rows.remove("D7");
		return rows;
	}

	/** How much of each step: FULL for the table, QUICK to see that everything works. */
	enum Size {

		FULL(10_000, Duration.ofSeconds(20), 2_000, Duration.ofSeconds(10), 500, 2_000, 10_000, 10_000_000),

		QUICK(2_000, Duration.ofSeconds(5), 500, Duration.ofSeconds(5), 200, 500, 2_000, 1_000_000);

		final int burst;

		final Duration idle;

		final int lateness;

		final Duration latenessPacing;

		final int scheduleWarmUp;

		final int schedule;

		/** F1's calls, unless {@code --retried-calls} says otherwise. */
		final int retried;

		/** D7's waiting calls, unless {@code --waiting} says otherwise. */
		final long waiting;

		Size(int burst, Duration idle, int lateness, Duration latenessPacing, int scheduleWarmUp, int schedule,
				int retried, long waiting) {
			this.burst = burst;
			this.idle = idle;
			this.lateness = lateness;
			this.latenessPacing = latenessPacing;
			this.scheduleWarmUp = scheduleWarmUp;
			this.schedule = schedule;
			this.retried = retried;
			this.waiting = waiting;
		}

	}

	/** What a pass does for its rows, in this order. */
	enum Step {

		/** D3, and half of D4 and D6. */
		BURST,

		/** D5. */
		IDLE,

		/** D2, and half of D4 and D6. */
		LATENESS,

		/** D1, D1t, D4s. */
		SCHEDULE,

		/** F1. */
		RETRIES,

		/** D7: D2, D4 paced, D5 and D6 paced on an empty table, then on top of many calls waiting far ahead. */
		WAITING

	}

}
