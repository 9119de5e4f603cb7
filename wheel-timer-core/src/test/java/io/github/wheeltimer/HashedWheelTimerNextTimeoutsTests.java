package io.github.wheeltimer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class HashedWheelTimerNextTimeoutsTests {

	private static final Duration TICK = Duration.ofMillis(100);

	private static final TimerTask NOTHING = (timeout) -> { };

	private final ManualTicker ticker = new ManualTicker();

	private final HashedWheelTimer timer = HashedWheelTimer.builder()
		.tickDuration(TICK)
		.ticksPerWheel(16)
		.ticker(this.ticker)
		.build();

	@AfterEach
	void stopTimer() {
		this.timer.stop();
	}

	@Test
	void listsThePendingTimeoutsSoonestFirstAcrossRevolutionsAndBuckets() {
		// A 16-bucket wheel: +7 and +23 ticks share a bucket, one revolution apart.
		Timeout twentyThreeTicks = this.timer.newTimeout(NOTHING, TICK.multipliedBy(23));
		Timeout sevenTicks = this.timer.newTimeout(NOTHING, TICK.multipliedBy(7));
		Timeout fiveTicks = this.timer.newTimeout(NOTHING, TICK.multipliedBy(5));
		this.timer.newTimeout(NOTHING, TICK.multipliedBy(6)).cancel();
		Timeout anHour = this.timer.newTimeout(NOTHING, Duration.ofHours(1));
		this.ticker.awaitIdle();

		assertThat(nextTimeouts(10)).containsExactly(fiveTicks, sevenTicks, twentyThreeTicks, anHour);
		assertThat(nextTimeouts(2)).containsExactly(fiveTicks, sevenTicks);
		assertThat(nextTimeouts(0)).isEmpty();
	}

	@Test
	void keepsTheSoonestWhenTheLimitIsSmallerThanABucket() {
		List<Timeout> sameBucket = new ArrayList<>();
		for (int revolution = 5; revolution >= 0; revolution--) {
			sameBucket.add(0, this.timer.newTimeout(NOTHING, TICK.multipliedBy(8 + 16L * revolution)));
		}
		this.ticker.awaitIdle();

		assertThat(nextTimeouts(3)).containsExactlyElementsOf(sameBucket.subList(0, 3));
	}

	@Test
	void theAnswerFollowsTheHandAsTimeoutsFire() {
		Timeout first = this.timer.newTimeout(NOTHING, TICK);
		Timeout second = this.timer.newTimeout(NOTHING, TICK.multipliedBy(20));
		this.ticker.awaitIdle();
		this.ticker.advanceInSteps(TICK.multipliedBy(2), TICK);

		assertThat(first.isExpired()).isTrue();
		assertThat(nextTimeouts(5)).containsExactly(second);
		assertThat(second.remainingDelay()).isEqualTo(TICK.multipliedBy(18));
	}

	@Test
	void aWorkerParkedUntilAFarTimeoutIsWokenToAnswer() {
		Timeout far = this.timer.newTimeout(NOTHING, Duration.ofMinutes(30));
		this.ticker.awaitIdle();
		assertThat(this.ticker.idleSleepRemaining()).isGreaterThan(Duration.ofMinutes(29));

		// The clock does not move: only the query's signal can wake the worker.
		assertThat(this.timer.nextTimeouts(1).orTimeout(10, TimeUnit.SECONDS).join()).containsExactly(far);
	}

	@Test
	void isEmptyBeforeTheWorkerStartsAndAfterTheTimerStops() {
		// Answered at once: no worker ever runs to walk a wheel, so none is asked.
		assertThat(this.timer.nextTimeouts(5)).isCompletedWithValue(List.of());
		this.timer.newTimeout(NOTHING, Duration.ofMinutes(1));
		this.timer.stop();
		assertThat(this.timer.nextTimeouts(5)).isCompletedWithValue(List.of());
	}

	@Test
	void refusesANegativeLimit() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.timer.nextTimeouts(-1))
			.withMessage("limit must be zero or more, was -1");
	}

	@Test
	void everyQueryIsAnsweredWhenManyThreadsAskWhileTheTimerStops() throws Exception {
		HashedWheelTimer realClock = HashedWheelTimer.builder().tickDuration(Duration.ofMillis(1)).build();
		for (int i = 0; i < 1_000; i++) {
			realClock.newTimeout(NOTHING, Duration.ofSeconds(1 + i));
		}
		int threads = 4;
		CountDownLatch start = new CountDownLatch(1);
		List<CompletableFuture<List<CompletableFuture<List<Timeout>>>>> askers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			askers.add(CompletableFuture.supplyAsync(() -> {
				Latches.awaitQuietly(start);
				List<CompletableFuture<List<Timeout>>> answers = new ArrayList<>();
				for (int n = 0; n < 2_000; n++) {
					answers.add(realClock.nextTimeouts(3));
				}
				return answers;
			}, (runnable) -> new Thread(runnable).start()));
		}
		start.countDown();
		realClock.stop();

		for (CompletableFuture<List<CompletableFuture<List<Timeout>>>> asker : askers) {
			for (CompletableFuture<List<Timeout>> answer : asker.get(30, TimeUnit.SECONDS)) {
				// Answered before the stop (the three soonest), or after it (nothing is left).
				assertThat(answer.get(10, TimeUnit.SECONDS)).hasSizeBetween(0, 3);
			}
		}
	}

	/**
	 * Asks, and lets the tick end if the worker is not woken to answer: after two signals within
	 * one tick it sleeps to the tick's end instead (see the timer's wake-up rules).
	 */
	private List<Timeout> nextTimeouts(int limit) {
		CompletableFuture<List<Timeout>> answer = this.timer.nextTimeouts(limit);
		this.ticker.awaitIdle();
		if (!answer.isDone()) {
			this.ticker.advance(TICK);
		}
		return answer.orTimeout(10, TimeUnit.SECONDS).join();
	}

}
