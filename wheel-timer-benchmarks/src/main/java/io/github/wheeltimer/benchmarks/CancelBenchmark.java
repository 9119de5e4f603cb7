package io.github.wheeltimer.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Row C1: cancelling timeouts of a timer that holds a million pending ones. Each invocation
 * cancels a batch of fresh timeouts scheduled, outside the measurement, just before it.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = { ForkedJvm.HEAP_MIN, ForkedJvm.HEAP_MAX, ForkedJvm.YOUNG, ForkedJvm.GC })
public class CancelBenchmark {

	static final int PENDING = 1_000_000;

	static final int BATCH = 1_000;

	/** No plain STPE: its cancelled tasks stay queued until due, so C1's heap would only grow. */
	@Param({ "ours", "netty", "jdk-stpe-roc", "kafka" })
	public String peer;

	private Peer.PeerTimer timer;

	private Object task;

	private final Object[] batch = new Object[BATCH];

	@Setup(Level.Iteration)
	public void startTimerWithAMillionPending() {
		this.timer = Peer.ofLabel(this.peer).create(Duration.ofMillis(100), 512);
		this.task = this.timer.task(() -> {
		});
		for (int i = 0; i < PENDING; i++) {
			this.timer.schedule(this.task, ScheduleBenchmark.ONE_HOUR);
		}
	}

	@TearDown(Level.Iteration)
	public void stopTimer() {
		this.timer.close();
		this.timer = null;
	}

	@Setup(Level.Invocation)
	public void scheduleABatch() {
		for (int i = 0; i < BATCH; i++) {
			this.batch[i] = this.timer.schedule(this.task, ScheduleBenchmark.ONE_HOUR);
		}
	}

	/** C1: ns per cancel, with a million pending. */
	@Benchmark
	@OperationsPerInvocation(BATCH)
	public void cancelWithAMillionPending() {
		for (Object timeout : this.batch) {
			this.timer.cancel(timeout);
		}
	}

}
