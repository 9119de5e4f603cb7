package io.github.wheeltimer.benchmarks;

import java.util.concurrent.TimeUnit;

import io.github.wheeltimer.annotation.DelayedCallObserver;
import io.github.wheeltimer.observation.ObservingCallObserver;
import io.micrometer.observation.ObservationRegistry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.slf4j.MDC;

/**
 * What a delayed call's caller pays to capture its context, apart from the rest of the call (row
 * A1 has the whole call, whose noise hides a few nanoseconds): {@code none} is the observer of an
 * application without Micrometer, {@code observing} the one with an observation registry, MDC and
 * context-propagation, called from a thread with an empty context, as a call outside any request
 * is; {@code observing-in-request} from a thread with an MDC entry and a current observation.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = { ForkedJvm.HEAP_MIN, ForkedJvm.HEAP_MAX, ForkedJvm.YOUNG, ForkedJvm.GC })
public class ContextCaptureBenchmark {

	@Param({ "none", "observing", "observing-in-request" })
	public String observer;

	private DelayedCallObserver capturing;

	@Setup
	public void setUp() {
		ObservationRegistry registry = ObservationRegistry.create();
		// A handler, as an application with metrics or tracing has: without one the registry is a no-op.
		registry.observationConfig().observationHandler((context) -> true);
		this.capturing = this.observer.equals("none") ? DelayedCallObserver.NONE
				: new ObservingCallObserver(registry, null, true, true, () -> null);
		if (this.observer.equals("observing-in-request")) {
			MDC.put("user", "alice");
			io.micrometer.observation.Observation.start("request", registry).openScope();
		}
	}

	@Benchmark
	public Object capture() {
		return this.capturing.capture();
	}

}
