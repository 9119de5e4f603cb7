package io.github.wheeltimer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Netty 4.2's own tests of its {@code HashedWheelTimer}
 * ({@code common/src/test/java/io/netty/util/HashedWheelTimerTest.java}), one by one, run against
 * this timer: the behaviours they check, rewritten, not their code.
 *
 * <p>Netty's tests run on the real clock and wait with {@code Thread.sleep} or unbounded latches.
 * Here a test that must show that something did <em>not</em> happen, or that waits for the worker
 * to get somewhere, runs on a {@link ManualTicker} instead, whose {@code awaitIdle()} says when
 * everything due has been done; the few that are about the real clock stay on it, strict about
 * "never before the deadline" and generous (seconds) about "not much after". The timers are built
 * with Netty's settings where ours has them (tick, wheel size, limit, thread factory, executor);
 * none of Netty's tests uses a tick below our 1 ms minimum.
 */
class NettyParityTests {

	private static final Duration TICK = HashedWheelTimer.DEFAULT_TICK_DURATION;

	/** How much later than its deadline a timeout may fire on a busy machine's real clock. */
	private static final Duration GENEROUS_SLACK = Duration.ofSeconds(5);

	private final ManualTicker ticker = new ManualTicker();

	private final long start = this.ticker.nanoTime();

	private final List<HashedWheelTimer> timers = new ArrayList<>();

	private final AtomicInteger runs = new AtomicInteger();

	private final TimerTask counting = (timeout) -> this.runs.incrementAndGet();

	@AfterEach
	void stopTimers() {
		this.timers.forEach(HashedWheelTimer::stop);
	}

	private HashedWheelTimer stoppedAfterTheTest(HashedWheelTimer timer) {
		this.timers.add(timer);
		return timer;
	}

	/** Netty's {@code new HashedWheelTimer()} (100 ms tick, 512 buckets), on the manual clock. */
	private HashedWheelTimer manualTimer() {
		return stoppedAfterTheTest(HashedWheelTimer.builder().ticker(this.ticker).build());
	}

	/** Manual-clock time since the test began. */
	private Duration sinceStart() {
		return Duration.ofNanos(this.ticker.nanoTime() - this.start);
	}

	private void advanceAndSettle(Duration duration) {
		this.ticker.advance(duration);
		this.ticker.awaitIdle();
	}

	// Netty: testScheduleTimeoutShouldNotRunBeforeDelay
	@Test
	void timeoutDoesNotRunBeforeItsDelayHasPassed() {
		// Netty waits 3 s of real time and checks that a 10 s timeout has not run. The manual clock
		// goes all the way to 1 ns before the deadline, then checks that the timeout runs at it.
		HashedWheelTimer timer = manualTimer();
		Timeout timeout = timer.newTimeout(this.counting, 10, TimeUnit.SECONDS);
		this.ticker.advanceInSteps(Duration.ofMillis(9_900), TICK);
		advanceAndSettle(TICK.minusNanos(1));
		assertThat(this.runs).hasValue(0);
		assertThat(timeout.isExpired()).as("expired 1ns before the deadline").isFalse();
		assertThat(timeout.remainingDelay()).isEqualTo(Duration.ofNanos(1));

		advanceAndSettle(Duration.ofNanos(1));
		assertThat(this.runs).hasValue(1);
		assertThat(timeout.isExpired()).isTrue();
	}

	// Netty: testScheduleTimeoutShouldRunAfterDelay
	@Test
	void timeoutRunsOnceItsDelayHasPassedOnTheRealClock() {
		HashedWheelTimer timer = stoppedAfterTheTest(new HashedWheelTimer());
		CompletableFuture<Long> ranAt = new CompletableFuture<>();
		long scheduledAt = System.nanoTime();
		Timeout timeout = timer.newTimeout((t) -> ranAt.complete(System.nanoTime()), 2, TimeUnit.SECONDS);
		// Netty allows 1 s past the 2 s delay; a loaded CI machine gets more.
		assertThat(ranAt).succeedsWithin(Duration.ofSeconds(2).plus(GENEROUS_SLACK));
		assertThat(Duration.ofNanos(ranAt.join() - scheduledAt)).as("never before the delay")
			.isGreaterThanOrEqualTo(Duration.ofSeconds(2));
		assertThat(timeout.isExpired()).isTrue();
	}

	// Netty: testStopTimer
	@Test
	void stopReturnsNothingOnceEverythingRanAndOtherwiseTheTimeoutsThatDidNot() throws InterruptedException {
		HashedWheelTimer processed = stoppedAfterTheTest(new HashedWheelTimer());
		CountDownLatch ran = new CountDownLatch(3);
		for (int i = 0; i < 3; i++) {
			processed.newTimeout((t) -> ran.countDown(), 1, TimeUnit.MILLISECONDS);
		}
		assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(processed.stop()).isEmpty();

		// Netty sleeps a second of real time, so that the worker has moved the timeouts to the
		// wheel, and checks that stop() returns some. A second of manual time, and all five.
		HashedWheelTimer unprocessed = manualTimer();
		List<Timeout> timeouts = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			timeouts.add(unprocessed.newTimeout(this.counting, 5, TimeUnit.SECONDS));
		}
		this.ticker.advanceInSteps(Duration.ofSeconds(1), TICK);
		assertThat(unprocessed.snapshot().buckets()).singleElement()
			.satisfies((bucket) -> assertThat(bucket.timeouts()).isEqualTo(5));
		assertThat(unprocessed.stop()).containsExactlyInAnyOrderElementsOf(timeouts);
		assertThat(this.runs).hasValue(0);
	}

	// Netty: testTimerShouldThrowExceptionAfterShutdownForNewTimeouts
	@Test
	void stoppedTimerRefusesNewTimeouts() throws InterruptedException {
		HashedWheelTimer timer = stoppedAfterTheTest(new HashedWheelTimer());
		CountDownLatch ran = new CountDownLatch(3);
		for (int i = 0; i < 3; i++) {
			timer.newTimeout((t) -> ran.countDown(), 1, TimeUnit.MILLISECONDS);
		}
		assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
		timer.stop();

		assertThatIllegalStateException().isThrownBy(() -> timer.newTimeout(this.counting, 1, TimeUnit.MILLISECONDS))
			.withMessage("Cannot schedule a timeout: the timer has been stopped");
		assertThat(timer.snapshot().counters().rejected()).isOne();
	}

	// Netty: testTimerOverflowWheelLength
	@Test
	void timeoutsFireOnTimeWhileTheHandGoesRoundTheWheelMoreThanOnce() {
		// Netty re-arms a task every 100 ms on a 32-bucket wheel three times, and checks that stop()
		// then returns the re-armed one. Three ticks do not take the hand round a 3.2 s wheel:
		// forty do, and a timeout further away than one revolution rides along.
		HashedWheelTimer timer = stoppedAfterTheTest(HashedWheelTimer.builder()
			.threadFactory(Executors.defaultThreadFactory())
			.tickDuration(Duration.ofMillis(100))
			.ticksPerWheel(32)
			.ticker(this.ticker)
			.build());
		List<Duration> rearmedRuns = new CopyOnWriteArrayList<>();
		TimerTask rearming = new TimerTask() {

			@Override
			public void run(Timeout timeout) {
				rearmedRuns.add(sinceStart());
				timeout.timer().newTimeout(this, 100, TimeUnit.MILLISECONDS);
			}

		};
		timer.newTimeout(rearming, 100, TimeUnit.MILLISECONDS);
		List<Duration> farRuns = new CopyOnWriteArrayList<>();
		timer.newTimeout((t) -> farRuns.add(sinceStart()), 3_500, TimeUnit.MILLISECONDS);

		this.ticker.advanceInSteps(Duration.ofSeconds(4), TICK);

		assertThat(rearmedRuns).containsExactlyElementsOf(
				IntStream.rangeClosed(1, 40).mapToObj((i) -> Duration.ofMillis(100L * i)).toList());
		assertThat(farRuns).as("not 3.2 s early").containsExactly(Duration.ofMillis(3_500));
		assertThat(timer.snapshot().worker().name()).as("made by the given thread factory").startsWith("pool-");
		assertThat(timer.stop()).singleElement().satisfies((timeout) -> assertThat(timeout.task()).isSameAs(rearming));
	}

	// Netty: testExecutionOnTime
	@Test
	void manyTimeoutsFireAfterTheirDelayAndNotMuchLaterOnTheRealClock() throws InterruptedException {
		// Netty's bounds are [125 ms, 650 ms) for 100,000 timeouts of 125 ms on 200 ms ticks. The
		// lower bound is kept strictly (in nanoseconds, not truncated milliseconds); the upper one
		// gets seconds of slack for a loaded CI machine.
		long tickMillis = 200;
		long delayMillis = 125;
		int count = 100_000;
		HashedWheelTimer timer = stoppedAfterTheTest(new HashedWheelTimer(tickMillis, TimeUnit.MILLISECONDS));
		long[] elapsed = new long[count];
		CountDownLatch fired = new CountDownLatch(count);
		for (int i = 0; i < count; i++) {
			int index = i;
			long scheduledAt = System.nanoTime();
			timer.newTimeout((t) -> {
				elapsed[index] = System.nanoTime() - scheduledAt;
				fired.countDown();
			}, delayMillis, TimeUnit.MILLISECONDS);
		}
		assertThat(fired.await(30, TimeUnit.SECONDS)).as("all fired").isTrue();

		assertThat(Duration.ofNanos(LongStream.of(elapsed).min().orElseThrow())).as("earliest")
			.isGreaterThanOrEqualTo(Duration.ofMillis(delayMillis));
		assertThat(Duration.ofNanos(LongStream.of(elapsed).max().orElseThrow())).as("latest")
			.isLessThan(Duration.ofMillis(delayMillis + tickMillis).plus(GENEROUS_SLACK));
	}

	// Netty: testExecutionOnTaskExecutor
	@Test
	void aTimerWithATaskExecutorHandsEachDueTaskToIt() {
		AtomicInteger executions = new AtomicInteger();
		AtomicBoolean executing = new AtomicBoolean();
		Executor executor = (command) -> {
			executions.incrementAndGet();
			executing.set(true);
			try {
				command.run();
			}
			finally {
				executing.set(false);
			}
		};
		HashedWheelTimer timer = stoppedAfterTheTest(HashedWheelTimer.builder()
			.tickDuration(Duration.ofMillis(100))
			.ticksPerWheel(32)
			.maxPendingTimeouts(2)
			.taskExecutor(executor)
			.ticker(this.ticker)
			.build());
		CompletableFuture<Boolean> ranInsideTheExecutor = new CompletableFuture<>();
		timer.newTimeout((t) -> ranInsideTheExecutor.complete(executing.get()), 10, TimeUnit.MILLISECONDS);

		advanceAndSettle(TICK);

		assertThat(ranInsideTheExecutor).isCompletedWithValue(true);
		assertThat(executions).hasValue(1);
		assertThat(timer.snapshot().counters().completed()).isOne();
	}

	// Netty: testRejectedExecutionExceptionWhenTooManyTimeoutsAreAddedBackToBack
	@Test
	void timeoutBeyondMaxPendingTimeoutsIsRejected() {
		// The same exception type as Netty's: RejectedExecutionException.
		HashedWheelTimer timer = stoppedAfterTheTest(HashedWheelTimer.builder()
			.tickDuration(Duration.ofMillis(100))
			.ticksPerWheel(32)
			.maxPendingTimeouts(2)
			.ticker(this.ticker)
			.build());
		timer.newTimeout(this.counting, 5, TimeUnit.SECONDS);
		timer.newTimeout(this.counting, 5, TimeUnit.SECONDS);

		assertThatExceptionOfType(RejectedExecutionException.class)
			.isThrownBy(() -> timer.newTimeout(this.counting, 1, TimeUnit.MILLISECONDS))
			.withMessageContaining("maxPendingTimeouts = 2");
		assertThat(timer.pendingTimeouts()).isEqualTo(2);
	}

	// Netty: testNewTimeoutShouldStopThrowingRejectedExecutionExceptionWhenExistingTimeoutIsCancelled
	@Test
	void cancellingAPendingTimeoutFreesItsPlaceAtOnce() {
		// Netty frees the place when its worker removes the cancelled timeout, at the next tick, so
		// its test sleeps five ticks before scheduling again. Ours frees it in cancel() itself.
		HashedWheelTimer timer = stoppedAfterTheTest(HashedWheelTimer.builder()
			.tickDuration(Duration.ofMillis(100))
			.ticksPerWheel(32)
			.maxPendingTimeouts(2)
			.ticker(this.ticker)
			.build());
		timer.newTimeout(this.counting, 5, TimeUnit.SECONDS);
		Timeout toCancel = timer.newTimeout(this.counting, 5, TimeUnit.SECONDS);
		assertThatExceptionOfType(RejectedExecutionException.class)
			.isThrownBy(() -> timer.newTimeout(this.counting, 90, TimeUnit.MILLISECONDS));

		assertThat(toCancel.cancel()).isTrue();
		Timeout replacement = timer.newTimeout(this.counting, 90, TimeUnit.MILLISECONDS);

		advanceAndSettle(TICK);
		assertThat(replacement.isExpired()).isTrue();
		assertThat(this.runs).hasValue(1);
	}

	// Netty: testNewTimeoutShouldStopThrowingRejectedExecutionExceptionWhenExistingTimeoutIsExecuted
	@Test
	void aTimeoutThatRanFreesItsPlace() {
		HashedWheelTimer timer = stoppedAfterTheTest(HashedWheelTimer.builder()
			.tickDuration(Duration.ofMillis(25))
			.ticksPerWheel(4)
			.maxPendingTimeouts(2)
			.ticker(this.ticker)
			.build());
		timer.newTimeout(this.counting, 5, TimeUnit.SECONDS);
		Timeout first = timer.newTimeout(this.counting, 90, TimeUnit.MILLISECONDS);
		assertThatExceptionOfType(RejectedExecutionException.class)
			.isThrownBy(() -> timer.newTimeout(this.counting, 90, TimeUnit.MILLISECONDS));

		this.ticker.advanceInSteps(Duration.ofMillis(100), Duration.ofMillis(25));
		assertThat(first.isExpired()).isTrue();
		Timeout second = timer.newTimeout(this.counting, 90, TimeUnit.MILLISECONDS);

		this.ticker.advanceInSteps(Duration.ofMillis(100), Duration.ofMillis(25));
		assertThat(second.isExpired()).isTrue();
		assertThat(this.runs).hasValue(2);
		assertThat(timer.pendingTimeouts()).as("the 5 s one, round a 100 ms wheel many times").isOne();
	}

	// Netty: reportPendingTimeouts
	@Test
	void pendingTimeoutsCountsWhatHasNeitherRunNorBeenCancelled() {
		HashedWheelTimer timer = manualTimer();
		Timeout first = timer.newTimeout(this.counting, 100, TimeUnit.MINUTES);
		Timeout second = timer.newTimeout(this.counting, 100, TimeUnit.MINUTES);
		timer.newTimeout(this.counting, 90, TimeUnit.MILLISECONDS);
		assertThat(timer.pendingTimeouts()).isEqualTo(3);

		first.cancel();
		second.cancel();
		// Netty counts a cancelled timeout as pending until its worker removes it, at the next tick;
		// ours stops counting it in cancel() itself.
		assertThat(timer.pendingTimeouts()).isOne();

		advanceAndSettle(TICK);
		assertThat(this.runs).hasValue(1);
		assertThat(timer.pendingTimeouts()).isZero();
	}

	// Netty: testOverflow
	@Test
	void delayTooLongForNanosecondsNeverFiresAndCanBeCancelled() {
		// Netty waits a second of real time. Here a minute of manual time goes by with a task
		// re-armed every second, so that the worker passes every bucket, the far timeout's too,
		// and the manual clock itself wraps past Long.MAX_VALUE on the way.
		HashedWheelTimer timer = manualTimer();
		Timeout timeout = timer.newTimeout(this.counting, Long.MAX_VALUE, TimeUnit.MILLISECONDS);
		assertThat(timeout.remainingDelay()).as("saturated, not wrapped round to the past")
			.isGreaterThan(Duration.ofDays(365L * 290));
		AtomicInteger heartbeats = new AtomicInteger();
		timer.newTimeout(new TimerTask() {

			@Override
			public void run(Timeout heartbeat) {
				heartbeats.incrementAndGet();
				heartbeat.timer().newTimeout(this, 1, TimeUnit.SECONDS);
			}

		}, 1, TimeUnit.SECONDS);

		this.ticker.advanceInSteps(Duration.ofMinutes(1), Duration.ofSeconds(1));

		assertThat(heartbeats).hasValue(60);
		assertThat(this.runs).hasValue(0);
		assertThat(timeout.isExpired()).isFalse();
		assertThat(timeout.cancel()).isTrue();
		assertThat(timer.stop()).as("only the heartbeat").hasSize(1);
	}

	// Netty: testStopTimerCancelsPendingTasks
	@Test
	void stopCancelsEveryTimeoutItReturns() {
		// Netty's loop passes if stop() returns nothing at all; this one wants all five.
		HashedWheelTimer timer = manualTimer();
		List<Timeout> timeouts = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			timeouts.add(timer.newTimeout(this.counting, 5, TimeUnit.SECONDS));
		}
		this.ticker.advanceInSteps(Duration.ofSeconds(1), TICK);

		Set<Timeout> unprocessed = timer.stop();

		assertThat(unprocessed).containsExactlyInAnyOrderElementsOf(timeouts)
			.allSatisfy((timeout) -> {
				assertThat(timeout.isCancelled()).isTrue();
				assertThat(timeout.isExpired()).isFalse();
				assertThat(timeout.cancel()).as("already cancelled").isFalse();
			});
		this.ticker.advance(Duration.ofSeconds(10));
		assertThat(this.runs).hasValue(0);
	}

	// Netty: cancelWillCallCallback
	@Test
	void cancelTellsTheTaskOnceOnTheWorkerThreadAfterTheTimeoutLeftTheWheel() {
		// From netty PR #14571. On Netty's 4.2 branch the method lost its @Test in #15000, so it no
		// longer runs there; this port does.
		HashedWheelTimer timer = manualTimer();
		List<String> told = new CopyOnWriteArrayList<>();
		List<Long> timeoutsInTheWheelWhenTold = new CopyOnWriteArrayList<>();
		TimerTask task = new TimerTask() {

			@Override
			public void run(Timeout timeout) {
				told.add("run");
			}

			@Override
			public void cancelled(Timeout timeout) {
				told.add("cancelled on " + Thread.currentThread().getName());
				timeoutsInTheWheelWhenTold.add(
						timer.snapshot().levels().stream().mapToLong(WheelSnapshot.Level::timeouts).sum());
			}

		};
		Timeout timeout = timer.newTimeout(task, 90, TimeUnit.MILLISECONDS);
		assertThat(timer.pendingTimeouts()).isOne();
		this.ticker.awaitIdle();
		assertThat(timer.snapshot().buckets()).as("in the wheel before the cancel").hasSize(1);

		assertThat(timeout.cancel()).isTrue();
		// Netty's original (before #15000 moved it away) checks this once the callback came.
		assertThat(timer.pendingTimeouts()).isZero();

		// The worker takes cancellations in within about a tick: here, at the tick's end.
		advanceAndSettle(TICK);
		assertThat(told).singleElement().asString().startsWith("cancelled on wheel-timer-");
		assertThat(timeoutsInTheWheelWhenTold).containsExactly(0L);
		assertThat(timeout.cancel()).isFalse();
		this.ticker.advanceInSteps(Duration.ofSeconds(1), TICK);
		assertThat(told).as("once, and never run").hasSize(1);
	}

	// Netty: cancelWillCallCallback
	@Test
	void cancelledIsNotCalledForATimeoutThatRanNorForOneThatStopCancelled() {
		// The other half of the contract the original checks: only a caller's cancel is told so.
		HashedWheelTimer timer = manualTimer();
		Map<String, List<String>> told = new ConcurrentHashMap<>();
		Timeout ran = timer.newTimeout(recording("ran", told), 100, TimeUnit.MILLISECONDS);
		Timeout cancelled = timer.newTimeout(recording("cancelled", told), 5, TimeUnit.SECONDS);
		Timeout leftPending = timer.newTimeout(recording("left pending", told), 5, TimeUnit.SECONDS);
		advanceAndSettle(TICK);
		assertThat(ran.isExpired()).isTrue();

		assertThat(cancelled.cancel()).isTrue();
		Set<Timeout> unprocessed = timer.stop();

		// Told before stop() returned, whether or not the worker had taken the cancel in before it.
		assertThat(unprocessed).containsExactly(leftPending);
		assertThat(told).containsOnly(Map.entry("ran", List.of("run")), Map.entry("cancelled", List.of("cancelled")),
				Map.entry("left pending", List.of("unprocessed")));
	}

	// Netty: testPendingTimeoutsShouldBeCountedCorrectlyWhenTimeoutCancelledWithinGoalTick
	@Test
	void timeoutsCancelledWhileTheirTickIsBeingProcessedAreCountedOnce() throws InterruptedException {
		// netty#14959: cancels that land while the worker is firing the very bucket that holds them
		// were taken off the pending count twice, which let maxPendingTimeouts be exceeded. Netty's
		// first task sleeps a second on the worker; whichever of ours runs first holds the worker
		// until released (timeouts due in the same tick are not ordered), so the other ten are
		// still in the bucket being fired when they are cancelled.
		HashedWheelTimer timer = stoppedAfterTheTest(HashedWheelTimer.builder()
			.maxPendingTimeouts(11)
			.ticker(this.ticker)
			.build());
		CountDownLatch firstRunning = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		AtomicBoolean first = new AtomicBoolean(true);
		TimerTask task = (timeout) -> {
			this.runs.incrementAndGet();
			if (first.compareAndSet(true, false)) {
				firstRunning.countDown();
				Latches.awaitQuietly(release);
			}
		};
		List<Timeout> timeouts = new ArrayList<>();
		for (int i = 0; i < 11; i++) {
			timeouts.add(timer.newTimeout(task, 200, TimeUnit.MILLISECONDS));
		}
		try {
			this.ticker.advance(Duration.ofMillis(200));
			assertThat(firstRunning.await(10, TimeUnit.SECONDS)).as("the first task holds the worker").isTrue();

			long cancels = timeouts.stream().filter(Timeout::cancel).count();
			assertThat(cancels).as("all but the running one").isEqualTo(10);
			assertThat(timer.pendingTimeouts()).isZero();
		}
		finally {
			release.countDown();
		}
		this.ticker.awaitIdle();

		assertThat(this.runs).hasValue(1);
		assertThat(timer.pendingTimeouts()).isZero();
		assertThat(timer.snapshot().levels()).allSatisfy((level) -> assertThat(level.timeouts()).isZero());
		WheelSnapshot.Counters counters = timer.snapshot().counters();
		assertThat(counters.completed()).isOne();
		assertThat(counters.cancelled()).isEqualTo(10);
		// Each place was freed exactly once: eleven fit again, and not a twelfth.
		for (int i = 0; i < 11; i++) {
			timer.newTimeout(this.counting, 1, TimeUnit.SECONDS);
		}
		assertThatExceptionOfType(RejectedExecutionException.class)
			.isThrownBy(() -> timer.newTimeout(this.counting, 1, TimeUnit.SECONDS));
	}

	private static TimerTask recording(String name, Map<String, List<String>> told) {
		return new TimerTask() {

			@Override
			public void run(Timeout timeout) {
				told.computeIfAbsent(name, (key) -> new CopyOnWriteArrayList<>()).add("run");
			}

			@Override
			public void cancelled(Timeout timeout) {
				told.computeIfAbsent(name, (key) -> new CopyOnWriteArrayList<>()).add("cancelled");
			}

			@Override
			public void unprocessed(Timeout timeout) {
				told.computeIfAbsent(name, (key) -> new CopyOnWriteArrayList<>()).add("unprocessed");
			}

		};
	}

}
