package io.github.wheeltimer;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The worker wakes only when there is something to do: never while idle, and across empty ticks
 * straight to the next tick that has a timeout.
 */
class HashedWheelTimerWakeUpTests {

	private final ManualTicker ticker = new ManualTicker();

	private final HashedWheelTimer timer = HashedWheelTimer.builder()
		.tickDuration(Duration.ofMillis(1))
		.ticksPerWheel(512)
		.ticker(this.ticker)
		.build();

	private final AtomicInteger runs = new AtomicInteger();

	@AfterEach
	void stopTimer() {
		this.timer.stop();
	}

	@Test
	void idleWorkerParksWithoutATimeLimitAndStaysParkedAsTimePasses() {
		this.timer.start();
		this.ticker.awaitIdle();
		assertThat(this.ticker.idleSleepRemaining()).isNull();
		int parks = this.ticker.parkCount();
		this.ticker.advance(Duration.ofHours(1));
		this.ticker.awaitIdle();
		assertThat(this.ticker.parkCount()).as("wake-ups during an idle hour").isEqualTo(parks);
	}

	@Test
	void workerGoesBackToAnUnlimitedSleepOnceEverythingHasFired() {
		this.timer.newTimeout((t) -> this.runs.incrementAndGet(), Duration.ofMillis(3));
		this.ticker.advance(Duration.ofMillis(4));
		this.ticker.awaitIdle();
		assertThat(this.runs).hasValue(1);
		assertThat(this.ticker.idleSleepRemaining()).isNull();
	}

	@Test
	void workerSleepsAcrossEmptyTicksToTheTickOfTheNextTimeout() {
		// The deadline, 200ms, is the end of tick 199: the worker sleeps straight to it.
		this.timer.newTimeout((t) -> this.runs.incrementAndGet(), Duration.ofMillis(200));
		this.ticker.awaitIdle();
		assertThat(this.ticker.idleSleepRemaining()).isEqualTo(Duration.ofMillis(200));
		int parks = this.ticker.parkCount();
		this.ticker.advance(Duration.ofMillis(199));
		this.ticker.awaitIdle();
		assertThat(this.ticker.parkCount()).as("wake-ups in 199 empty ticks").isEqualTo(parks);
		assertThat(this.runs).as("before the deadline").hasValue(0);
		this.ticker.advance(Duration.ofMillis(1));
		this.ticker.awaitIdle();
		assertThat(this.runs).hasValue(1);
		assertThat(this.ticker.parkCount()).isEqualTo(parks + 1);
	}

	@Test
	void workerSleepsStraightToATimeoutSeveralRevolutionsAway() {
		this.timer.newTimeout((t) -> this.runs.incrementAndGet(), Duration.ofSeconds(60));
		this.ticker.awaitIdle();
		// 60s is a tick boundary: the worker wakes at the deadline itself, not a tick after it.
		assertThat(this.ticker.idleSleepRemaining()).isEqualTo(Duration.ofSeconds(60));
	}

	@Test
	void aTimeoutInTheNextTurnWakesTheWorkerAtItsOwnTickNotWhenItMovesDown() {
		this.timer.start();
		this.ticker.awaitIdle();
		this.ticker.advance(Duration.ofMillis(500));
		// The later one first: the earlier then wakes the worker by its deadline. (The other way
		// round, a second timeout into the queue the worker has just emptied could look like the
		// start of a stream, which it would come back for halfway to its wake-up.)
		this.timer.newTimeout((t) -> this.runs.incrementAndGet(), Duration.ofMillis(5_000));
		this.timer.newTimeout((t) -> this.runs.incrementAndGet(), Duration.ofMillis(20));
		this.ticker.advance(Duration.ofMillis(1));
		this.ticker.awaitIdle();
		// Hand at tick 501; the 20ms timeout's deadline, 520ms, ends tick 519, in the next turn of
		// 512 ticks: it waits in level 1's slot 1 (and 5,500ms ends tick 5,499: slot 10). The worker
		// sleeps to tick 519 and moves slot 1 down on its way, at tick 512, with no wake-up there.
		assertThat(this.timer.snapshot().buckets()).isEmpty();
		assertThat(this.timer.snapshot().levels().get(1).occupied()).extracting(WheelSnapshot.Slot::index)
			.containsExactly(1, 10);
		assertThat(this.ticker.idleSleepRemaining()).isEqualTo(Duration.ofMillis(520 - 501));
		this.ticker.advance(Duration.ofMillis(18));
		this.ticker.awaitIdle();
		assertThat(this.runs).as("before the deadline").hasValue(0);
		this.ticker.advance(Duration.ofMillis(1));
		this.ticker.awaitIdle();
		assertThat(this.runs).hasValue(1);
		assertThat(this.ticker.idleSleepRemaining()).isEqualTo(Duration.ofMillis(5_500 - 520));
	}

	@Test
	void aLargeSparseWheelSleepsStraightToItsOnlyTimeout() {
		HashedWheelTimer large = HashedWheelTimer.builder()
			.tickDuration(Duration.ofMillis(1))
			.ticksPerWheel(1 << 20)
			.ticker(this.ticker)
			.build();
		large.newTimeout((t) -> this.runs.incrementAndGet(), Duration.ofSeconds(900));
		this.ticker.awaitIdle();
		// 900s is the end of tick 899,999.
		assertThat(large.snapshot().buckets()).containsExactly(new WheelSnapshot.Slot(899_999, 1, Duration.ofSeconds(900)));
		assertThat(this.ticker.idleSleepRemaining()).isEqualTo(Duration.ofSeconds(900));
		this.ticker.advance(Duration.ofMillis(899_999));
		this.ticker.awaitIdle();
		assertThat(this.runs).as("before the deadline").hasValue(0);
		this.ticker.advance(Duration.ofMillis(1));
		this.ticker.awaitIdle();
		assertThat(this.runs).hasValue(1);
		assertThat(large.snapshot().buckets()).isEmpty();
		large.stop();
	}

	@Test
	void anEarlierTimeoutWakesASleepingWorkerInTimeForIt() {
		this.timer.newTimeout((t) -> this.runs.incrementAndGet(), Duration.ofSeconds(10));
		this.ticker.awaitIdle();
		this.timer.newTimeout((t) -> this.runs.incrementAndGet(), Duration.ofMillis(50));
		this.ticker.awaitIdle();
		// Woken and re-planned: straight to the deadline, 50ms (the end of tick 49), or (if this was
		// its second wake-up in the tick) to the end of the current tick first.
		assertThat(this.ticker.idleSleepRemaining()).isIn(Duration.ofMillis(50), Duration.ofMillis(1));
		this.ticker.advanceInSteps(Duration.ofMillis(49), Duration.ofMillis(1));
		assertThat(this.runs).hasValue(0);
		this.ticker.advance(Duration.ofMillis(1));
		this.ticker.awaitIdle();
		assertThat(this.runs).hasValue(1);
		assertThat(this.ticker.idleSleepRemaining()).isEqualTo(Duration.ofMillis(10_000 - 50));
	}

	@Test
	void aStreamOfSchedulesWakesTheWorkerAtMostTwiceInATick() {
		this.timer.start();
		this.ticker.awaitIdle();
		int parks = this.ticker.parkCount();
		for (int i = 0; i < 1_000; i++) {
			this.timer.newTimeout((t) -> { }, Duration.ofMinutes(5)).cancel();
		}
		this.ticker.awaitIdle();
		// Two signalled wake-ups in one tick, then a sleep that rings for nothing new. If the
		// worker has taken the schedules as a stream, that sleep ends halfway rather than at the
		// boundary, and a cancel may still ring it once (a cancel is let go within a tick): one
		// more wake-up, after which the sleep ends at the boundary and rings for nothing.
		assertThat(this.ticker.parkCount() - parks).isLessThanOrEqualTo(4);
		this.ticker.advance(Duration.ofMillis(1));
		this.ticker.awaitIdle();
		assertThat(this.timer.snapshot().buckets()).isEmpty();
		assertThat(this.timer.snapshot().counters().cancelled()).isEqualTo(1_000);
		// A stream: the worker comes back once, within 16 ticks, to take what may have followed;
		// nothing did, so it sleeps without limit again.
		Duration sleep = this.ticker.idleSleepRemaining();
		if (sleep != null) {
			assertThat(sleep).isLessThanOrEqualTo(Duration.ofMillis(TimerWorker.MAX_QUEUED_TICKS));
			this.ticker.advance(sleep);
			this.ticker.awaitIdle();
		}
		assertThat(this.ticker.idleSleepRemaining()).isNull();
	}

	@Test
	void aStreamThatCancelsRingsTheWorkerOnceMoreInATickAndThenLetsItSleepToTheTicksEnd() {
		this.timer.start();
		this.ticker.awaitIdle();
		this.timer.newTimeout((t) -> { }, Duration.ofMinutes(5));
		this.ticker.awaitIdle();
		// The first new timeout into an empty queue rings the worker a second time in the tick: a
		// stream, for which the worker sleeps halfway to its wake-up, here the cap of 16 ticks.
		this.timer.newTimeout((t) -> { }, Duration.ofMinutes(5));
		this.ticker.awaitIdle();
		assertThat(this.ticker.idleSleepRemaining()).isEqualTo(Duration.ofMillis(TimerWorker.MAX_QUEUED_TICKS));
		int parks = this.ticker.parkCount();
		AtomicInteger told = new AtomicInteger();
		for (int burst = 0; burst < 10; burst++) {
			// The stream's far timeouts do not ring; one cancel among them does, while the
			// worker's sleep outlasts the tick. The worker wakes to take them all, at least 64: a
			// stream still.
			Timeout last = null;
			for (int i = 0; i < 100; i++) {
				last = this.timer.newTimeout(new CancelWatchingTask((t) -> told.incrementAndGet()), Duration.ofMinutes(5));
			}
			last.cancel();
			this.ticker.awaitIdle();
		}
		// The first burst's cancel rings a third time in the tick: the worker sleeps to the tick's
		// end, and no later burst rings it. A worker that went back to the stream's long sleep was
		// rung by every burst's cancel.
		assertThat(this.ticker.parkCount() - parks).isEqualTo(1);
		assertThat(this.ticker.idleSleepRemaining()).isEqualTo(Duration.ofMillis(1));
		assertThat(told).hasValue(1);
		// At the tick's end it takes the other bursts, and lets their cancelled timeouts go.
		this.ticker.advance(Duration.ofMillis(1));
		this.ticker.awaitIdle();
		assertThat(told).hasValue(10);
		assertThat(this.timer.snapshot().counters().cancelled()).isEqualTo(10);
		assertThat(this.timer.snapshot().pendingTimeouts()).isEqualTo(2 + 10 * 99);
	}

	@Test
	void aBurstIsFiredOnItsTickWithNoCapOnHowManyMoveToTheWheelPerTick() {
		// Netty moves at most 100,000 new timeouts into buckets per tick and fires the rest late.
		int burst = 300_000;
		for (int i = 0; i < burst; i++) {
			this.timer.newTimeout((t) -> this.runs.incrementAndGet(), Duration.ofMillis(5));
		}
		this.ticker.advance(Duration.ofMillis(6));
		this.ticker.awaitIdle();
		assertThat(this.runs).hasValue(burst);
		assertThat(this.timer.snapshot().counters().completed()).isEqualTo(burst);
	}

}
