package io.github.wheeltimer.benchmarks;

import java.time.Duration;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * A fresh timer (100 ms tick, 512 buckets) for every iteration, so that what one iteration
 * scheduled does not weigh on the next; and one task, adapted once, for every schedule.
 */
@State(Scope.Benchmark)
public abstract class FreshTimerPerIteration {

	protected Peer.PeerTimer timer;

	protected Object task;

	/** The peer under measurement: the subclass's {@code @Param}. */
	protected abstract String peer();

	@Setup(Level.Iteration)
	public void startTimer() {
		this.timer = Peer.ofLabel(peer()).create(Duration.ofMillis(100), 512);
		this.task = this.timer.task(() -> {
		});
	}

	@TearDown(Level.Iteration)
	public void stopTimer() {
		this.timer.close();
		this.timer = null;
	}

}
