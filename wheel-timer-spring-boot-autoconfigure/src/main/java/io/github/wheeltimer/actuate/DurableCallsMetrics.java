package io.github.wheeltimer.actuate;

import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

import io.github.wheeltimer.durable.engine.DurableEngine;
import io.github.wheeltimer.durable.run.CallCounts;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Meters of durable delayed calls, for this instance:
 * <ul>
 * <li>{@code wheel.timer.durable.scheduled}: calls written by this instance's callers;</li>
 * <li>{@code wheel.timer.durable.claimed}: calls its polls claimed from the database;</li>
 * <li>{@code wheel.timer.durable.calls} (tag {@code outcome}): how the calls it held ended:
 * {@code ran}, {@code failed}, {@code retried} (a run that threw, waiting for its {@code @Retryable}
 * retry), {@code fenced} (cancelled, replaced or taken over elsewhere by the time they fell due) or
 * {@code handed.back} (unstarted, at a stop or a refusal);</li>
 * <li>{@code wheel.timer.durable.taken.over}: calls of dead instances it released for everyone;</li>
 * <li>{@code wheel.timer.durable.cancelled}: calls its callers cancelled, wherever they waited;</li>
 * <li>{@code wheel.timer.durable.suspected.duplicates}: calls that started here after starting on
 * an instance whose lease then ran out, so possibly running twice: a sign that the lease is too
 * short for the pauses of your instances, or that one crashed;</li>
 * <li>{@code wheel.timer.durable.held} (gauge): calls on its wheels now;</li>
 * <li>{@code wheel.timer.durable.lateness} (timer): how late each call started after its due
 * time: a tick or so while an instance is alive, the downtime for calls that fell due while none
 * was.</li>
 * </ul>
 */
public class DurableCallsMetrics implements MeterBinder {

	private final DurableEngine durable;

	/**
	 * Creates the binder.
	 * @param durable this instance's durable calls
	 */
	public DurableCallsMetrics(DurableEngine durable) {
		this.durable = durable;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		counter(registry, "wheel.timer.durable.scheduled", CallCounts::scheduled)
			.description("Durable calls written by this instance's callers")
			.register(registry);
		counter(registry, "wheel.timer.durable.claimed", CallCounts::claimed)
			.description("Durable calls this instance claimed from the database")
			.register(registry);
		outcome(registry, "ran", CallCounts::ran);
		outcome(registry, "failed", CallCounts::failed);
		outcome(registry, "retried", CallCounts::retried);
		outcome(registry, "fenced", CallCounts::fenced);
		outcome(registry, "handed.back", CallCounts::handedBack);
		counter(registry, "wheel.timer.durable.taken.over", CallCounts::takenOver)
			.description("Durable calls of dead instances this instance released")
			.register(registry);
		counter(registry, "wheel.timer.durable.cancelled", CallCounts::cancelled)
			.description("Durable calls this instance's callers cancelled")
			.register(registry);
		counter(registry, "wheel.timer.durable.suspected.duplicates", CallCounts::suspectedDuplicates)
			.description("Durable calls started again after their instance's lease ran out while they ran")
			.register(registry);
		Gauge.builder("wheel.timer.durable.held", this.durable, DurableEngine::held)
			.baseUnit("calls")
			.description("Durable calls on this instance's wheels")
			.register(registry);
		Timer lateness = Timer.builder("wheel.timer.durable.lateness")
			.description("How late durable calls started after their due time")
			.register(registry);
		this.durable.setLatenessRecorder((nanos) -> lateness.record(nanos, TimeUnit.NANOSECONDS));
	}

	private void outcome(MeterRegistry registry, String outcome, ToLongFunction<CallCounts> count) {
		counter(registry, "wheel.timer.durable.calls", count).tag("outcome", outcome)
			.description("How the durable calls this instance held ended")
			.register(registry);
	}

	private FunctionCounter.Builder<DurableEngine> counter(MeterRegistry registry, String name,
			ToLongFunction<CallCounts> count) {
		return FunctionCounter.builder(name, this.durable, (durable) -> count.applyAsLong(durable.counts()))
			.baseUnit("calls");
	}

}
