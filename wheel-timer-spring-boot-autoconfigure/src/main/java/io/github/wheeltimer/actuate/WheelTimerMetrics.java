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
 * <li>{@code wheel.timer.timeouts} (function counter, tag {@code outcome}): timeouts
 * {@code scheduled}, and how each one ended: {@code expired}, {@code failed}, {@code cancelled} or
 * {@code unprocessed} (left when the timer stopped); plus calls {@code rejected};</li>
 * <li>{@code wheel.timer.lateness} (function timer): how late each fired timeout was handed to run
 * relative to its deadline, as a count and a total, so a rate gives the mean;</li>
 * <li>{@code wheel.timer.tick.lag} (time gauge): how far behind the worker is now.</li>
 * </ul>
 * Every meter reads the timer's own counters when the registry polls it: nothing is recorded on the
 * path that schedules, cancels or fires a timeout.
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
		outcome(registry, tags, timer, "scheduled", WheelSnapshot.Counters::scheduled);
		outcome(registry, tags, timer, "expired", WheelSnapshot.Counters::expired);
		outcome(registry, tags, timer, "failed", WheelSnapshot.Counters::failed);
		outcome(registry, tags, timer, "cancelled", WheelSnapshot.Counters::cancelled);
		outcome(registry, tags, timer, "unprocessed", WheelSnapshot.Counters::unprocessed);
		outcome(registry, tags, timer, "rejected", WheelSnapshot.Counters::rejected);
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
		FunctionCounter.builder("wheel.timer.timeouts", timer, (t) -> count.applyAsLong(t.counters()))
			.tags(tags)
			.tag("outcome", outcome)
			.baseUnit("timeouts")
			.description("Timeouts by outcome: scheduled, then expired, failed, cancelled or unprocessed; and calls rejected")
			.register(registry);
	}

}
