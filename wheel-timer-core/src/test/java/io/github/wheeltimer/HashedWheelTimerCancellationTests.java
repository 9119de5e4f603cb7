package io.github.wheeltimer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class HashedWheelTimerCancellationTests {

	private final ManualTicker ticker = new ManualTicker();

	private final HashedWheelTimer timer = HashedWheelTimer.builder()
		.tickDuration(Duration.ofMillis(100))
		.ticksPerWheel(64)
		.ticker(this.ticker)
		.build();

	private final AtomicInteger runs = new AtomicInteger();

	@AfterEach
	void stopTimer() {
		this.timer.stop();
	}

	@Test
	void cancelledTimeoutNeverRuns() {
		Timeout timeout = this.timer.newTimeout((t) -> this.runs.incrementAndGet(), Duration.ofMillis(300));
		assertThat(timeout.cancel()).isTrue();
		assertThat(timeout.isCancelled()).isTrue();
		assertThat(timeout.isExpired()).isFalse();
		assertThat(this.timer.pendingTimeouts()).isZero();
		this.ticker.advanceInSteps(Duration.ofSeconds(1), Duration.ofMillis(100));
		assertThat(this.runs).hasValue(0);
		assertThat(this.timer.snapshot().counters().cancelled()).isOne();
	}

	@Test
	void cancelIsIdempotentAndLosesToExpiry() {
		Timeout cancelled = this.timer.newTimeout((t) -> this.runs.incrementAndGet(), Duration.ofMillis(300));
		Timeout expired = this.timer.newTimeout((t) -> this.runs.incrementAndGet(), Duration.ofMillis(50));
		assertThat(cancelled.cancel()).isTrue();
		assertThat(cancelled.cancel()).isFalse();
		this.ticker.advance(Duration.ofMillis(100));
		this.ticker.awaitIdle();
		assertThat(expired.isExpired()).isTrue();
		assertThat(expired.cancel()).isFalse();
		assertThat(expired.isCancelled()).isFalse();
		assertThat(this.runs).hasValue(1);
		WheelSnapshot.Counters counters = this.timer.snapshot().counters();
		assertThat(counters.cancelled()).isOne();
		assertThat(counters.completed()).isOne();
	}

	@Test
	void cancelledTimeoutLeavesItsBucketWithoutWaitingForItsTick() {
		Timeout timeout = this.timer.newTimeout((t) -> this.runs.incrementAndGet(), Duration.ofMinutes(10));
		this.ticker.awaitIdle();
		assertThat(timeoutsInTheWheel()).isOne();
		timeout.cancel();
		this.ticker.awaitIdle();
		assertThat(timeoutsInTheWheel()).isZero();
		// Nothing pending: the worker sleeps without limit, or, if the schedule and the cancel
		// both woke it in the same tick, to the end of that tick first.
		Duration sleep = this.ticker.idleSleepRemaining();
		assertThat(sleep == null || sleep.compareTo(Duration.ofMillis(100)) <= 0).as("sleep %s", sleep).isTrue();
	}

	@Test
	void onABusyWheelACancelReachesTheBucketsAtTheNextTickBoundary() {
		// A timeout due in every tick keeps the worker on short sleeps to the next boundary, which
		// a cancel does not interrupt: the worker picks it up at that boundary.
		for (int i = 0; i < 20; i++) {
			this.timer.newTimeout((t) -> { }, Duration.ofMillis(50 + 100L * i));
		}
		Timeout far = this.timer.newTimeout((t) -> this.runs.incrementAndGet(), Duration.ofMinutes(10));
		this.ticker.advance(Duration.ofMillis(100));
		this.ticker.awaitIdle();
		assertThat(this.ticker.idleSleepRemaining()).isEqualTo(Duration.ofMillis(100));
		assertThat(timeoutsInTheWheel()).isEqualTo(20);
		far.cancel();
		this.ticker.awaitIdle();
		assertThat(timeoutsInTheWheel()).as("before the boundary").isEqualTo(20);
		this.ticker.advance(Duration.ofMillis(100));
		this.ticker.awaitIdle();
		assertThat(timeoutsInTheWheel()).isEqualTo(18);
		assertThat(this.timer.pendingTimeouts()).isEqualTo(18);
	}

	@Test
	void timeoutCancelledBeforeTheWorkerSawItIsDropped() {
		List<Timeout> timeouts = new ArrayList<>();
		// Delays from 1 ms: a zero delay at time 0, a tick boundary, would be overdue on arrival, and
		// the worker may run it before the cancel below (rightly so).
		for (int i = 0; i < 5_000; i++) {
			timeouts.add(this.timer.newTimeout((t) -> this.runs.incrementAndGet(), Duration.ofMillis(1 + i % 700)));
		}
		timeouts.forEach(Timeout::cancel);
		this.ticker.advanceInSteps(Duration.ofSeconds(1), Duration.ofMillis(100));
		assertThat(this.runs).hasValue(0);
		assertThat(this.timer.pendingTimeouts()).isZero();
		assertThat(this.timer.snapshot().buckets()).isEmpty();
		assertThat(this.timer.snapshot().counters().cancelled()).isEqualTo(5_000);
	}

	/**
	 * Cancels from two threads race the worker expiring the same timeouts (netty#14959 counted such a
	 * timeout twice). Each must end exactly one way, and the counters must say the same.
	 */
	@RepeatedTest(5)
	void cancelRacingExpiryEndsEachTimeoutExactlyOnce() throws Exception {
		int count = 20_000;
		AtomicIntegerArray ran = new AtomicIntegerArray(count);
		List<Timeout> timeouts = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			timeouts.add(this.timer.newTimeout(new CountingTask(i, ran), Duration.ofMillis(150)));
		}
		this.ticker.awaitIdle();
		AtomicIntegerArray cancelWins = new AtomicIntegerArray(count);
		CountDownLatch go = new CountDownLatch(1);
		List<Thread> cancellers = new ArrayList<>();
		for (int c = 0; c < 2; c++) {
			List<Timeout> shuffled = new ArrayList<>(timeouts);
			Collections.shuffle(shuffled);
			Thread canceller = new Thread(() -> {
				Latches.awaitQuietly(go);
				for (Timeout timeout : shuffled) {
					if (timeout.cancel()) {
						cancelWins.incrementAndGet(((CountingTask) timeout.task()).index());
					}
				}
			});
			canceller.start();
			cancellers.add(canceller);
		}
		go.countDown();
		this.ticker.advance(Duration.ofMillis(200));
		for (Thread canceller : cancellers) {
			canceller.join();
		}
		this.ticker.awaitIdle();
		int ranTotal = 0;
		int cancelledTotal = 0;
		for (int i = 0; i < count; i++) {
			assertThat(ran.get(i) + cancelWins.get(i)).as("outcomes of timeout %d", i).isOne();
			ranTotal += ran.get(i);
			cancelledTotal += cancelWins.get(i);
			assertThat(timeouts.get(i).isExpired()).isEqualTo(ran.get(i) == 1);
			assertThat(timeouts.get(i).isCancelled()).isEqualTo(cancelWins.get(i) == 1);
		}
		WheelSnapshot snapshot = this.timer.snapshot();
		assertThat(snapshot.pendingTimeouts()).isZero();
		assertThat(this.timer.pendingTimeouts()).isZero();
		assertThat(snapshot.counters().completed()).isEqualTo(ranTotal);
		assertThat(snapshot.counters().cancelled()).isEqualTo(cancelledTotal);
		assertThat(snapshot.counters().scheduled()).isEqualTo(count);
		assertThat(snapshot.buckets()).isEmpty();
	}

	private record CountingTask(int index, AtomicIntegerArray runs) implements TimerTask {

		@Override
		public void run(Timeout timeout) {
			this.runs.incrementAndGet(this.index);
		}

	}

	private long timeoutsInTheWheel() {
		return this.timer.snapshot().levels().stream().mapToLong(WheelSnapshot.Level::timeouts).sum();
	}

}
