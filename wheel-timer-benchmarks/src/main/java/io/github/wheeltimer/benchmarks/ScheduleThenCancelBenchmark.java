package io.github.wheeltimer.benchmarks;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * Row C2: a timeout scheduled and cancelled at once, as an I/O timeout is when the response comes
 * in time. Whether the heap stays flat meanwhile is {@link HeapFlatness}'s part of the row.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = { ForkedJvm.HEAP_MIN, ForkedJvm.HEAP_MAX, ForkedJvm.YOUNG, ForkedJvm.GC })
public class ScheduleThenCancelBenchmark extends FreshTimerPerIteration {

	static final long THIRTY_SECONDS = TimeUnit.SECONDS.toNanos(30);

	@Param({ "ours", "netty", "jdk-stpe", "jdk-stpe-roc", "kafka" })
	public String peer;

	@Override
	protected String peer() {
		return this.peer;
	}

	@Benchmark
	public void scheduleThenCancel() {
		this.timer.cancel(this.timer.schedule(this.task, THIRTY_SECONDS));
	}

}
