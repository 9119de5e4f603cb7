package io.github.wheeltimer.annotation;

import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

import io.github.wheeltimer.Timeout;

/**
 * What a stopped timer left unprocessed, counted by what each timeout would have run: the
 * {@link DelayedExecution} method's description, or the task's class for plain
 * {@link io.github.wheeltimer.Timer} tasks.
 *
 * @param total the number of unprocessed timeouts
 * @param handedBack how many of them were durable calls, handed back to the database: they run at
 * the next start, or on another instance
 * @param byTask the number per method or task class, largest first
 */
public record UnprocessedCalls(int total, int handedBack, Map<String, Integer> byTask) {

	/**
	 * Creates a report.
	 * @param total the number of unprocessed timeouts
	 * @param handedBack how many of them were durable calls, handed back to the database
	 * @param byTask the number per method or task class
	 */
	public UnprocessedCalls {
		byTask = Collections.unmodifiableMap(new LinkedHashMap<>(byTask));
	}

	/**
	 * Counts the timeouts a stopped timer returned. (The futures of the delayed calls among them
	 * are already cancelled: the timer told each call it would never run before {@code stop()}
	 * returned.)
	 * @param unprocessed the timeouts returned by {@link io.github.wheeltimer.Timer#stop()}
	 * @return the report
	 */
	public static UnprocessedCalls of(Collection<? extends Timeout> unprocessed) {
		Map<String, Integer> counts = new HashMap<>();
		int handedBack = 0;
		for (Timeout timeout : unprocessed) {
			counts.merge(DelayedTask.describe(timeout), 1, Integer::sum);
			if (timeout.task() instanceof DelayedTask call && call.durable()) {
				handedBack++;
			}
		}
		Map<String, Integer> largestFirst = counts.entrySet()
			.stream()
			.sorted(Map.Entry.<String, Integer>comparingByValue()
				.reversed()
				.thenComparing(Map.Entry.comparingByKey()))
			.collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue, Integer::sum, LinkedHashMap::new));
		return new UnprocessedCalls(unprocessed.size(), handedBack, largestFirst);
	}

	/**
	 * Returns whether nothing was left.
	 * @return {@code true} if no timeout was unprocessed
	 */
	public boolean isEmpty() {
		return this.total == 0;
	}

	/**
	 * Returns the warning to log about a timer that stopped with this report, such as
	 * {@code Timer 'wheelTimer' stopped with 2 delayed calls that never ran (their futures are
	 * cancelled): OrderService.cancelIfUnpaid(String) x2}, or, for durable calls, {@code Timer
	 * 'wheelTimer' stopped with 2 durable calls handed back to the database, to run at the next
	 * start or on another instance: ...}.
	 * @param timerName the timer's bean name
	 * @return the message
	 */
	public String describe(String timerName) {
		int lost = this.total - this.handedBack;
		String neverRan = lost + ((lost == 1) ? " delayed call" : " delayed calls")
				+ " that never ran (their futures are cancelled)";
		String handedBack = this.handedBack + ((this.handedBack == 1) ? " durable call" : " durable calls")
				+ " handed back to the database, to run at the next start or on another instance";
		return "Timer '" + timerName + "' stopped with "
				+ ((this.handedBack == 0) ? neverRan : (lost == 0) ? handedBack : neverRan + " and " + handedBack)
				+ ": " + this;
	}

	/**
	 * Returns the counts as one line, such as {@code OrderService.cancelIfUnpaid(String) x2,
	 * ReminderService.remind(Order) x1}.
	 * @return the counts
	 */
	@Override
	public String toString() {
		return this.byTask.entrySet()
			.stream()
			.map((entry) -> entry.getKey() + " x" + entry.getValue())
			.collect(Collectors.joining(", "));
	}

}
