package io.github.wheeltimer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
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
	void aWorkerParkedUntilAFarTimeoutIsWokenToAnswer() throws Exception {
		Timeout far = this.timer.newTimeout(NOTHING, Duration.ofMinutes(30));
		this.ticker.awaitIdle();
		assertThat(this.ticker.idleSleepRemaining()).isGreaterThan(Duration.ofMinutes(29));

		// The clock does not move: only the query's signal can wake the worker.
		assertThat(this.timer.nextTimeouts(1, Duration.ofSeconds(10))).containsExactly(far);
	}

	@Test
	void isEmptyBeforeTheWorkerStartsAndAfterTheTimerStops() throws Exception {
		// Answered at once, without waiting: there is no worker to walk a wheel.
		assertThat(this.timer.nextTimeouts(5, Duration.ZERO)).isEmpty();
		this.timer.newTimeout(NOTHING, Duration.ofMinutes(1));
		this.timer.stop();
		assertThat(this.timer.nextTimeouts(5, Duration.ZERO)).isEmpty();
	}

	@Test
	void refusesANegativeLimit() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.timer.nextTimeouts(-1, Duration.ZERO))
			.withMessage("limit must be zero or more, was -1");
	}

	@Test
	void aWorkerThatDoesNotAnswerInTimeIsATimeout() throws Exception {
		BlockingTask blocking = new BlockingTask();
		// A task on the worker thread: the worker cannot answer until it returns.
		this.timer.newTimeout(blocking, TICK);
		this.timer.newTimeout(NOTHING, Duration.ofMinutes(5));
		this.ticker.awaitIdle();
		this.ticker.advance(TICK.multipliedBy(2));
		try {
			blocking.awaitRunning();
			assertThatExceptionOfType(TimeoutException.class)
				.isThrownBy(() -> this.timer.nextTimeouts(5, Duration.ofMillis(50)));
		}
		finally {
			blocking.release();
		}
	}

	@Test
	void aTaskRunningOnTheWorkerThreadGetsItsAnswerThere() {
		CompletableFuture<List<Timeout>> seenByTask = new CompletableFuture<>();
		this.timer.newTimeout((timeout) -> seenByTask.complete(this.timer.nextTimeouts(5, Duration.ZERO)), TICK);
		Timeout later = this.timer.newTimeout(NOTHING, Duration.ofMinutes(5));
		this.ticker.awaitIdle();
		this.ticker.advanceInSteps(TICK.multipliedBy(2), TICK);

		assertThat(seenByTask).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(List.of(later));
	}

	@Test
	void questionsAskedTogetherEachGetTheirOwnLength() {
		List<Timeout> pending = new ArrayList<>();
		for (int i = 1; i <= 6; i++) {
			pending.add(this.timer.newTimeout(NOTHING, TICK.multipliedBy(4 * i)));
		}
		this.ticker.awaitIdle();
		List<CompletableFuture<List<Timeout>>> answers = List.of(this.timer.askWorkerForSoonest(2),
				this.timer.askWorkerForSoonest(5), this.timer.askWorkerForSoonest(1));
		// The worker may answer the first before the others are asked, and then sleep to the tick's end.
		answerAsked(answers);

		assertThat(answers.get(0).join()).containsExactlyElementsOf(pending.subList(0, 2));
		assertThat(answers.get(1).join()).containsExactlyElementsOf(pending.subList(0, 5));
		assertThat(answers.get(2).join()).containsExactlyElementsOf(pending.subList(0, 1));
	}

	@Test
	void everyQueryIsAnsweredWhenManyThreadsAskWhileTheTimerStops() throws Exception {
		HashedWheelTimer realClock = HashedWheelTimer.builder().tickDuration(Duration.ofMillis(1)).build();
		for (int i = 0; i < 1_000; i++) {
			realClock.newTimeout(NOTHING, Duration.ofSeconds(1 + i));
		}
		int threads = 4;
		CountDownLatch start = new CountDownLatch(1);
		List<CompletableFuture<List<Integer>>> askers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			askers.add(CompletableFuture.supplyAsync(() -> {
				Latches.awaitQuietly(start);
				List<Integer> sizes = new ArrayList<>();
				try {
					for (int n = 0; n < 2_000; n++) {
						sizes.add(realClock.nextTimeouts(3, Duration.ofSeconds(10)).size());
					}
				}
				catch (Exception ex) {
					throw new CompletionException(ex);
				}
				return sizes;
			}, (runnable) -> new Thread(runnable).start()));
		}
		start.countDown();
		realClock.stop();

		for (CompletableFuture<List<Integer>> asker : askers) {
			// Every question answered: before the stop (the three soonest) or after it (nothing left).
			assertThat(asker.get(60, TimeUnit.SECONDS)).hasSize(2_000).allSatisfy((size) -> assertThat(size).isIn(0, 3));
		}
	}

	private List<Timeout> nextTimeouts(int limit) {
		CompletableFuture<List<Timeout>> answer = this.timer.askWorkerForSoonest(limit);
		answerAsked(List.of(answer));
		return answer.join();
	}

	/**
	 * Lets the tick end if the worker is not woken to answer them all: after two signals within one
	 * tick it sleeps to the tick's end instead (see the timer's wake-up rules).
	 */
	private void answerAsked(List<CompletableFuture<List<Timeout>>> answers) {
		this.ticker.awaitIdle();
		if (!answers.stream().allMatch(CompletableFuture::isDone)) {
			this.ticker.advance(TICK);
		}
		CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).orTimeout(10, TimeUnit.SECONDS).join();
	}

}
