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
import org.openjdk.jmh.annotations.Threads;

/**
 * Rows S1 and S2: scheduling a timeout that will not fire during the measurement (one hour away),
 * from one thread and from two. Each iteration starts from a fresh timer, so the pending count
 * stays bounded by what one iteration schedules.
 */
@State(Scope.Benchmark)
@Fork(value = 1, jvmArgsAppend = { ForkedJvm.HEAP_MIN, ForkedJvm.HEAP_MAX, ForkedJvm.YOUNG, ForkedJvm.GC })
public class ScheduleBenchmark extends FreshTimerPerIteration {

	static final long ONE_HOUR = TimeUnit.HOURS.toNanos(1);

	@Param({ "ours", "netty", "jdk-stpe", "kafka" })
	public String peer;

	@Override
	protected String peer() {
		return this.peer;
	}

	/** S1: ns per schedule from one thread (with {@code -prof gc}: bytes per schedule). */
	@Benchmark
	@BenchmarkMode(Mode.AverageTime)
	@OutputTimeUnit(TimeUnit.NANOSECONDS)
	public Object scheduleFromOneThread() {
		return this.timer.schedule(this.task, ONE_HOUR);
	}

	/** S2: schedules per second, in total, from two threads at once. */
	@Benchmark
	@BenchmarkMode(Mode.Throughput)
	@OutputTimeUnit(TimeUnit.SECONDS)
	@Threads(2)
	public Object scheduleFromTwoThreads() {
		return this.timer.schedule(this.task, ONE_HOUR);
	}

}
