package io.github.wheeltimer.virtualtime;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.TimerTask;
import io.github.wheeltimer.WheelSnapshot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tasks that run on a task executor, and any other registered work, are done when an advance
 * returns, and what they schedule is included in it.
 */
class VirtualTickerTaskExecutorTests {

	private final VirtualTicker ticker = new VirtualTicker();

	private final ExecutorService executor = Executors.newFixedThreadPool(4);

	private final HashedWheelTimer timer = HashedWheelTimer.builder()
		.tickDuration(Duration.ofMillis(1))
		.taskExecutor(this.executor)
		.ticker(this.ticker)
		.build();

	@AfterEach
	void stopTimerAndExecutor() throws InterruptedException {
		this.timer.stop();
		this.executor.shutdownNow();
		assertThat(this.executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void tasksOnATaskExecutorHaveFinishedWhenAdvanceReturnsIncludingTheTimeoutsTheyScheduled() {
		this.ticker.awaitTasksOf(this.timer);
		List<Duration> runs = new CopyOnWriteArrayList<>();
		Set<String> threads = ConcurrentHashMap.newKeySet();
		for (int chain = 0; chain < 20; chain++) {
			this.timer.newTimeout(hops(5, runs, threads), Duration.ofSeconds(1));
		}

		this.ticker.advance(Duration.ofSeconds(6));

		assertThat(runs).hasSize(100);
		// Each hop runs at its deadline, a tick boundary, and the next counts its second from there.
		for (int hop = 1; hop <= 5; hop++) {
			assertThat(runs).as("hop %d", hop).filteredOn(Duration.ofSeconds(hop)::equals).hasSize(20);
		}
		assertThat(threads).allMatch((name) -> name.startsWith("pool-"));
		WheelSnapshot.Counters counters = this.timer.counters();
		assertThat(counters.running()).isZero();
		assertThat(counters.scheduled()).isEqualTo(100);
		assertThat(counters.completed()).isEqualTo(100);
	}

	@Test
	void advanceWaitsForRegisteredWorkUntilItReportsIdle() {
		AtomicInteger asked = new AtomicInteger();
		this.ticker.awaitAlso(() -> (asked.incrementAndGet() < 5) ? "warming up" : null);
		this.ticker.advance(Duration.ofSeconds(1));
		assertThat(asked).hasValueGreaterThanOrEqualTo(5);
		assertThat(this.ticker.elapsed()).isEqualTo(Duration.ofSeconds(1));
	}

	/**
	 * A run, started by the last timeout of the advance, ends by queueing its write for another
	 * thread just as the works are asked: the writer, asked first, is idle; the run, asked next,
	 * has handed over and is idle too. The write must still be waited for.
	 */
	@Test
	void advanceWaitsForWorkThatOneRegisteredWorkHandsToAnotherWhileTheyAreAsked() {
		AtomicInteger writesLeft = new AtomicInteger();
		AtomicBoolean running = new AtomicBoolean();
		this.ticker.awaitAlso(() -> (writesLeft.getAndUpdate((left) -> Math.max(0, left - 1)) > 0) ? "writing" : null);
		this.ticker.awaitAlso(() -> {
			if (running.compareAndSet(true, false)) {
				writesLeft.set(3);
			}
			return null;
		});
		HashedWheelTimer onItsWorker = HashedWheelTimer.builder()
			.tickDuration(Duration.ofMillis(1))
			.ticker(this.ticker)
			.build();
		try {
			onItsWorker.newTimeout((timeout) -> running.set(true), Duration.ofSeconds(1));
			this.ticker.advance(Duration.ofSeconds(1));
			assertThat(writesLeft).as("the write the run handed over, waited for").hasValue(0);
		}
		finally {
			onItsWorker.stop();
		}
	}

	/** A task that runs {@code left} times in all, one second apart, each time scheduled by the one before. */
	private static TimerTask hops(int left, List<Duration> runs, Set<String> threads) {
		return (timeout) -> {
			runs.add(((VirtualTicker) ((HashedWheelTimer) timeout.timer()).ticker()).elapsed());
			threads.add(Thread.currentThread().getName());
			if (left > 1) {
				timeout.timer().newTimeout(hops(left - 1, runs, threads), Duration.ofSeconds(1));
			}
		};
	}

}
