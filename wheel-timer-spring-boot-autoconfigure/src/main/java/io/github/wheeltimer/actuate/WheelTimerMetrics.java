package io.github.wheeltimer.actuate;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.WheelSnapshot;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Micrometer meters for {@link HashedWheelTimer}s, each tagged {@code name} with the timer's bean
 * name:
 * <ul>
 * <li>{@code wheel.timer.pending} (gauge): timeouts that have neither fired nor been cancelled;</li>
 * <li>{@code wheel.timer.scheduled} (function counter): timeouts accepted;</li>
 * <li>{@code wheel.timer.timeouts} (function counter, tag {@code outcome}): timeouts that ended,
 * by how: {@code completed}, {@code failed}, {@code withdrawn} (fired, then given up before
 * their work ran), {@code cancelled} or {@code unprocessed} (left when the timer stopped). A
 * {@code @DelayedExecution} call counts as its method's run ended, not as its hand-off to the
 * executor. Summed over the outcomes, they are the timeouts that ended, so
 * {@code scheduled - timeouts} is those pending or running;</li>
 * <li>{@code wheel.timer.rejected} (function counter): calls refused, never scheduled;</li>
 * <li>{@code wheel.timer.moves} (function counter): timeouts moved down from an upper level of the
 * wheel to a finer one, each move counted once. A timeout within level 0's turn never moves; a
 * further one moves at most once per level it crosses, so against {@code wheel.timer.scheduled}
 * this is the work that far timeouts cost the worker;</li>
 * <li>{@code wheel.timer.lateness} (function timer): how late each fired timeout was handed to run
 * relative to its deadline, as a count and a total, so a rate gives the mean;</li>
 * <li>{@code wheel.timer.tick.lag} (time gauge): how far behind the worker is now.</li>
 * </ul>
 * Every meter reads the timer's own counters when the registry polls it: nothing is recorded on the
 * path that schedules, cancels or fires a timeout. {@code wheel.timer.moves} reads a
 * {@link HashedWheelTimer#snapshot() snapshot}, which never blocks the worker either.
 */
public class WheelTimerMetrics implements MeterBinder {

	private final Map<String, HashedWheelTimer> timers;

	/**
	 * Creates the binder.
	 * @param timers the timers, by bean name
	 */
	public WheelTimerMetrics(Map<String, HashedWheelTimer> timers) {
		this.timers = Map.copyOf(timers);
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		this.timers.forEach((name, timer) -> bindTo(registry, name, timer));
	}

	private void bindTo(MeterRegistry registry, String name, HashedWheelTimer timer) {
		Tags tags = Tags.of("name", name);
		Gauge.builder("wheel.timer.pending", timer, HashedWheelTimer::pendingTimeouts)
			.tags(tags)
			.baseUnit("timeouts")
			.description("Timeouts that have neither fired nor been cancelled")
			.register(registry);
		counter(registry, "wheel.timer.scheduled", tags, timer, WheelSnapshot.Counters::scheduled)
			.description("Timeouts accepted")
			.register(registry);
		// One meter per outcome of a scheduled timeout, so that summing over the tag means something.
		outcome(registry, tags, timer, "completed", WheelSnapshot.Counters::completed);
		outcome(registry, tags, timer, "failed", WheelSnapshot.Counters::failed);
		outcome(registry, tags, timer, "withdrawn", WheelSnapshot.Counters::withdrawn);
		outcome(registry, tags, timer, "cancelled", WheelSnapshot.Counters::cancelled);
		outcome(registry, tags, timer, "unprocessed", WheelSnapshot.Counters::unprocessed);
		counter(registry, "wheel.timer.rejected", tags, timer, WheelSnapshot.Counters::rejected)
			.baseUnit("calls")
			.description("Calls refused because the timer was stopped or full; they were never scheduled")
			.register(registry);
		// One meter, not one per level: how many levels there are depends on the tick and the wheel
		// size, the topmost hold delays of months or years and would add series that stay at zero,
		// and the total is what compares with scheduled. The endpoint shows the moves level by level.
		FunctionCounter.builder("wheel.timer.moves", timer, HashedWheelTimer::moves)
			.tags(tags)
			.baseUnit("timeouts")
			.description("Timeouts moved down from an upper level of the wheel to a finer one")
			.register(registry);
		FunctionTimer
			.builder("wheel.timer.lateness", timer, (t) -> t.counters().fired(),
					(t) -> t.counters().lateness().toNanos(), TimeUnit.NANOSECONDS)
			.tags(tags)
			.description("How late fired timeouts were handed to run, relative to their deadline")
			.register(registry);
		TimeGauge.builder("wheel.timer.tick.lag", timer, TimeUnit.NANOSECONDS, (t) -> t.tickLag().toNanos())
			.tags(tags)
			.description("How far behind the timer's worker thread is")
			.register(registry);
	}

	private static void outcome(MeterRegistry registry, Tags tags, HashedWheelTimer timer, String outcome,
			ToLongFunction<WheelSnapshot.Counters> count) {
		counter(registry, "wheel.timer.timeouts", tags, timer, count).tag("outcome", outcome)
			.description("Timeouts that ended, by outcome: completed, failed, withdrawn, cancelled or unprocessed")
			.register(registry);
	}

	private static FunctionCounter.Builder<HashedWheelTimer> counter(MeterRegistry registry, String name, Tags tags,
			HashedWheelTimer timer, ToLongFunction<WheelSnapshot.Counters> count) {
		return FunctionCounter.builder(name, timer, (t) -> count.applyAsLong(t.counters())).tags(tags).baseUnit("timeouts");
	}

}
