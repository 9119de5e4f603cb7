package io.github.wheeltimer.virtualtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.WheelSnapshot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Timeouts scheduled from several threads at once all run, each once; advances from several
 * threads take turns.
 */
class VirtualTickerConcurrencyTests {

	private static final long NOT_RUN = -1;

	private final VirtualTicker ticker = new VirtualTicker();

	private final HashedWheelTimer timer = HashedWheelTimer.builder()
		.tickDuration(Duration.ofMillis(10))
		.ticker(this.ticker)
		.build();

	private final ExecutorService threads = Executors.newFixedThreadPool(4);

	@AfterEach
	void stopTimerAndThreads() throws InterruptedException {
		this.timer.stop();
		this.threads.shutdownNow();
		assertThat(this.threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void timeoutsScheduledFromSeveralThreadsAtOnceEachRunOnceAtTheFirstTickBoundaryNotBeforeTheirDeadline()
			throws Exception {
		int producers = 4;
		int perProducer = 2_500;
		int count = producers * perProducer;
		AtomicLongArray ranAt = new AtomicLongArray(count);
		for (int i = 0; i < count; i++) {
			ranAt.set(i, NOT_RUN);
		}
		CountDownLatch start = new CountDownLatch(1);
		List<Future<?>> scheduling = new ArrayList<>();
		for (int producer = 0; producer < producers; producer++) {
			int first = producer * perProducer;
			scheduling.add(this.threads.submit(() -> {
				start.await();
				for (int id = first; id < first + perProducer; id++) {
					int self = id;
					this.timer.newTimeout((timeout) -> {
						// Nothing else writes it: a second run would find it set.
						if (!ranAt.compareAndSet(self, NOT_RUN, this.ticker.nanoTime())) {
							ranAt.set(self, Long.MIN_VALUE);
						}
					}, delayOf(self));
				}
				return null;
			}));
		}
		start.countDown();
		for (Future<?> future : scheduling) {
			future.get(30, TimeUnit.SECONDS);
		}

		this.ticker.advance(Duration.ofMinutes(11));

		long tickNanos = Duration.ofMillis(10).toNanos();
		int onBoundary = 0;
		for (int id = 0; id < count; id++) {
			// A zero delay is due just after now: it runs at the end of the tick that starts there.
			long deadline = Math.max(1, delayOf(id).toNanos());
			// On a boundary: at it. Inside a tick: at the end of that tick.
			boolean exact = deadline % tickNanos == 0;
			onBoundary += exact ? 1 : 0;
			assertThat(ranAt.get(id)).as("timeout %d, due at %s", id, delayOf(id))
				.isEqualTo(exact ? deadline : (deadline / tickNanos + 1) * tickNanos);
		}
		assertThat(onBoundary).as("deadlines on a tick boundary, of %d", count).isBetween(1, count - 1);
		WheelSnapshot.Counters counters = this.timer.counters();
		assertThat(counters.scheduled()).isEqualTo(count);
		assertThat(counters.completed()).isEqualTo(count);
		assertThat(counters.running()).isZero();
		assertThat(counters.failed()).isZero();
		assertThat(this.timer.pendingTimeouts()).isZero();
	}

	@Test
	void advancesFromTwoThreadsTakeTurns() throws Exception {
		List<Duration> runs = new CopyOnWriteArrayList<>();
		this.timer.newTimeout((timeout) -> {
			runs.add(this.ticker.elapsed());
			timeout.timer().newTimeout(timeout.task(), Duration.ofMinutes(1));
		}, Duration.ofMinutes(1));
		CountDownLatch start = new CountDownLatch(1);
		List<Future<?>> advances = new ArrayList<>();
		for (int i = 0; i < 2; i++) {
			advances.add(this.threads.submit(() -> {
				start.await();
				this.ticker.advance(Duration.ofMinutes(10));
				return null;
			}));
		}
		start.countDown();
		for (Future<?> advance : advances) {
			advance.get(30, TimeUnit.SECONDS);
		}

		assertThat(this.ticker.elapsed()).isEqualTo(Duration.ofMinutes(20));
		assertThat(runs).hasSize(20).isSorted().doesNotHaveDuplicates();
		for (int i = 0; i < runs.size(); i++) {
			assertThat(runs.get(i)).isEqualTo(Duration.ofMinutes(i + 1));
		}
	}

	/** Spread over ten minutes, many sharing a tick. */
	private static Duration delayOf(int id) {
		return Duration.ofMillis((id * 7_919L) % 600_000);
	}

	/**
	 * The clock never moves under a worker that is still running: a thread that schedules while
	 * an advance goes on wakes the worker, and the advance waits for it to park again. So each
	 * timeout still runs exactly at the first tick boundary at or after its deadline.
	 */
	@Test
	void timeoutsScheduledFromAnotherThreadWhileAnAdvanceGoesOnRunOnTheirOwnTick() throws Exception {
		long tickNanos = Duration.ofMillis(10).toNanos();
		int count = 2_000;
		AtomicLongArray deadline = new AtomicLongArray(count);
		AtomicLongArray ranAt = new AtomicLongArray(count);
		for (int i = 0; i < count; i++) {
			ranAt.set(i, NOT_RUN);
			deadline.set(i, NOT_RUN);
		}
		// Something due every tick, so that the advance has many steps to race with.
		for (int i = 1; i <= 1_000; i++) {
			this.timer.newTimeout((timeout) -> {
			}, Duration.ofMillis(10L * i));
		}
		Future<?> scheduling = this.threads.submit(() -> {
			for (int i = 0; i < count; i++) {
				int id = i;
				long delay = (37L * i) % 2_000 * 1_000_000L + (i % 3);
				long before = this.ticker.nanoTime();
				this.timer.newTimeout((timeout) -> ranAt.set(id, this.ticker.nanoTime()), delay, TimeUnit.NANOSECONDS);
				if (this.ticker.nanoTime() == before) {
					// The clock did not move during the call: the timer read this same time.
					deadline.set(id, before + Math.max(1, delay));
				}
				Thread.yield();
			}
			return null;
		});
		while (!scheduling.isDone()) {
			this.ticker.advance(Duration.ofMillis(50));
		}
		scheduling.get(30, TimeUnit.SECONDS);
		// Past the last filler (10 s) and the last scheduled timeout (2 s after it was scheduled).
		this.ticker.advance(Duration.ofSeconds(11));

		int exact = 0;
		for (int id = 0; id < count; id++) {
			assertThat(ranAt.get(id)).as("timeout %d ran", id).isNotEqualTo(NOT_RUN);
			if (deadline.get(id) != NOT_RUN) {
				long due = deadline.get(id);
				long boundary = ((due + tickNanos - 1) / tickNanos) * tickNanos;
				assertThat(ranAt.get(id)).as("timeout %d, due at %d ns", id, due).isEqualTo(boundary);
				exact++;
			}
		}
		assertThat(exact).as("timeouts whose deadline is known").isGreaterThan(count / 2);
		assertThat(this.timer.counters().completed()).isEqualTo(1_000 + count);
	}

}
