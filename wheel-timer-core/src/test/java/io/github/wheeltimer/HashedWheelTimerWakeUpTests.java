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
		this.timer.newTimeout((t) -> this.runs.incrementAndGet(), Duration.ofMillis(200));
		this.ticker.awaitIdle();
		assertThat(this.ticker.idleSleepRemaining()).isEqualTo(Duration.ofMillis(201));
		int parks = this.ticker.parkCount();
		this.ticker.advance(Duration.ofMillis(200));
		this.ticker.awaitIdle();
		assertThat(this.ticker.parkCount()).as("wake-ups in 200 empty ticks").isEqualTo(parks);
		this.ticker.advance(Duration.ofMillis(1));
		this.ticker.awaitIdle();
		assertThat(this.runs).hasValue(1);
		assertThat(this.ticker.parkCount()).isEqualTo(parks + 1);
	}

	@Test
	void workerSleepsStraightToATimeoutSeveralRevolutionsAway() {
		this.timer.newTimeout((t) -> this.runs.incrementAndGet(), Duration.ofSeconds(60));
		this.ticker.awaitIdle();
		assertThat(this.ticker.idleSleepRemaining()).isEqualTo(Duration.ofMillis(60_001));
	}

	@Test
	void theSearchForTheNextDueTickWrapsPastTheEndOfTheWheel() {
		this.timer.start();
		this.ticker.awaitIdle();
		this.ticker.advance(Duration.ofMillis(500));
		this.timer.newTimeout((t) -> this.runs.incrementAndGet(), Duration.ofMillis(20));
		this.timer.newTimeout((t) -> this.runs.incrementAndGet(), Duration.ofMillis(5_000));
		this.ticker.advance(Duration.ofMillis(1));
		this.ticker.awaitIdle();
		// Hand at bucket 501; the 20ms timeout sits past the end, in bucket (500 + 20) % 512 = 8.
		assertThat(this.timer.snapshot().buckets()).extracting(WheelSnapshot.Bucket::index).containsExactly(8, 380);
		assertThat(this.ticker.idleSleepRemaining()).isEqualTo(Duration.ofMillis(20));
		this.ticker.advance(Duration.ofMillis(20));
		this.ticker.awaitIdle();
		assertThat(this.runs).hasValue(1);
		assertThat(this.ticker.idleSleepRemaining()).isEqualTo(Duration.ofMillis(5_001 - 21));
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
		assertThat(large.snapshot().buckets()).containsExactly(new WheelSnapshot.Bucket(900_000, 1, 0, 0));
		assertThat(this.ticker.idleSleepRemaining()).isEqualTo(Duration.ofMillis(900_001));
		this.ticker.advance(Duration.ofMillis(900_001));
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
		// Woken and re-planned: straight to tick 50's end, or (if this was its second wake-up in the
		// tick) to the end of the current tick first.
		assertThat(this.ticker.idleSleepRemaining()).isIn(Duration.ofMillis(51), Duration.ofMillis(1));
		this.ticker.advanceInSteps(Duration.ofMillis(50), Duration.ofMillis(1));
		assertThat(this.runs).hasValue(0);
		this.ticker.advance(Duration.ofMillis(1));
		this.ticker.awaitIdle();
		assertThat(this.runs).hasValue(1);
		assertThat(this.ticker.idleSleepRemaining()).isEqualTo(Duration.ofMillis(10_001 - 51));
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
		// Two signalled wake-ups in one tick, then an unarmed sleep to the boundary.
		assertThat(this.ticker.parkCount() - parks).isLessThanOrEqualTo(3);
		this.ticker.advance(Duration.ofMillis(1));
		this.ticker.awaitIdle();
		assertThat(this.timer.snapshot().buckets()).isEmpty();
		assertThat(this.timer.snapshot().counters().cancelled()).isEqualTo(1_000);
		assertThat(this.ticker.idleSleepRemaining()).isNull();
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
		assertThat(this.timer.snapshot().counters().expired()).isEqualTo(burst);
	}

}
