package io.github.wheeltimer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When timeouts fire, on virtual time: never before the deadline, on the tick that holds it.
 */
class HashedWheelTimerSchedulingTests {

	private static final Duration TICK = Duration.ofMillis(100);

	private final ManualTicker ticker = new ManualTicker();

	private final List<HashedWheelTimer> timers = new ArrayList<>();

	/** Ticker time (elapsed since the test started) at which each task ran. */
	private final List<Long> firedAt = new CopyOnWriteArrayList<>();

	private final long start = this.ticker.nanoTime();

	@AfterEach
	void stopTimers() {
		this.timers.forEach(HashedWheelTimer::stop);
	}

	private HashedWheelTimer timer(int ticksPerWheel) {
		HashedWheelTimer timer = HashedWheelTimer.builder()
			.tickDuration(TICK)
			.ticksPerWheel(ticksPerWheel)
			.ticker(this.ticker)
			.build();
		this.timers.add(timer);
		return timer;
	}

	private TimerTask recordFiring() {
		return (timeout) -> this.firedAt.add(this.ticker.nanoTime() - this.start);
	}

	private void advanceTo(Duration sinceStart) {
		long now = this.ticker.nanoTime() - this.start;
		this.ticker.advance(Duration.ofNanos(sinceStart.toNanos() - now));
		this.ticker.awaitIdle();
	}

	@Test
	void workerStartsOnTheFirstTimeout() {
		HashedWheelTimer timer = timer(512);
		assertThat(timer.snapshot().state()).isEqualTo(WheelSnapshot.State.INIT);
		assertThat(timer.snapshot().worker()).isEqualTo(new WheelSnapshot.Worker(null, false, null));
		timer.newTimeout(recordFiring(), Duration.ofSeconds(1));
		this.ticker.awaitIdle();
		WheelSnapshot snapshot = timer.snapshot();
		assertThat(snapshot.state()).isEqualTo(WheelSnapshot.State.STARTED);
		assertThat(snapshot.worker().name()).startsWith("wheel-timer-");
		assertThat(snapshot.worker().alive()).isTrue();
	}

	@Test
	void startStartsTheWorkerWithoutATimeout() {
		HashedWheelTimer timer = timer(512);
		timer.start();
		timer.start();
		this.ticker.awaitIdle();
		assertThat(timer.snapshot().state()).isEqualTo(WheelSnapshot.State.STARTED);
		assertThat(timer.snapshot().worker().alive()).isTrue();
	}

	@Test
	void timeoutNeverFiresBeforeItsDeadlineAndFiresAtTheEndOfItsTick() {
		HashedWheelTimer timer = timer(512);
		timer.newTimeout(recordFiring(), 250, TimeUnit.MILLISECONDS);
		advanceTo(Duration.ofMillis(250).minusNanos(1));
		assertThat(this.firedAt).isEmpty();
		advanceTo(Duration.ofMillis(250));
		assertThat(this.firedAt).as("the deadline lies inside tick 2, which ends at 300ms").isEmpty();
		advanceTo(Duration.ofMillis(300).minusNanos(1));
		assertThat(this.firedAt).isEmpty();
		advanceTo(Duration.ofMillis(300));
		assertThat(this.firedAt).containsExactly(Duration.ofMillis(300).toNanos());
		assertThat(timer.pendingTimeouts()).isZero();
	}

	@Test
	void aDeadlineOnATickBoundaryFiresAtThatBoundaryNotATickLater() {
		HashedWheelTimer timer = timer(512);
		// 200ms ends tick 1, which holds it; 1ns later begins tick 2, which ends at 300ms.
		timer.newTimeout(recordFiring(), TICK.multipliedBy(2));
		timer.newTimeout(recordFiring(), TICK.multipliedBy(2).plusNanos(1));
		this.ticker.awaitIdle();
		assertThat(timer.snapshot().buckets()).containsExactly(new WheelSnapshot.Slot(1, 1, Duration.ofMillis(200)),
				new WheelSnapshot.Slot(2, 1, Duration.ofMillis(300)));
		advanceTo(Duration.ofMillis(200).minusNanos(1));
		assertThat(this.firedAt).as("never before the deadline").isEmpty();
		advanceTo(Duration.ofMillis(200));
		assertThat(this.firedAt).as("at the deadline, not a tick after it")
			.containsExactly(Duration.ofMillis(200).toNanos());
		advanceTo(Duration.ofMillis(300).minusNanos(1));
		assertThat(this.firedAt).as("1ns past a boundary waits for the next one")
			.containsExactly(Duration.ofMillis(200).toNanos());
		advanceTo(Duration.ofMillis(300));
		assertThat(this.firedAt).containsExactly(Duration.ofMillis(200).toNanos(), Duration.ofMillis(300).toNanos());
		assertThat(timer.pendingTimeouts()).isZero();
	}

	@Test
	void aZeroDelayOnATickBoundaryFiresAtTheEndOfTheTickThatStartsThereNotAtOnce() {
		HashedWheelTimer timer = timer(512);
		timer.start();
		advanceTo(Duration.ofMillis(200));
		// A task re-arming itself with no delay, on a clock that stops on boundaries, must let
		// time move: firing it in the same pass would fire it for ever.
		timer.newTimeout(recordFiring(), 0, TimeUnit.SECONDS);
		this.ticker.awaitIdle();
		assertThat(this.firedAt).isEmpty();
		advanceTo(Duration.ofMillis(300).minusNanos(1));
		assertThat(this.firedAt).isEmpty();
		advanceTo(Duration.ofMillis(300));
		assertThat(this.firedAt).containsExactly(Duration.ofMillis(300).toNanos());
	}

	@Test
	void zeroAndNegativeDelaysFireOnTheNextTick() {
		HashedWheelTimer timer = timer(512);
		timer.start();
		advanceTo(Duration.ofMillis(150));
		timer.newTimeout(recordFiring(), 0, TimeUnit.SECONDS);
		timer.newTimeout(recordFiring(), -5, TimeUnit.SECONDS);
		timer.newTimeout(recordFiring(), Duration.ofDays(-3));
		timer.newTimeout(recordFiring(), 0, TimeUnit.SECONDS).cancel();
		advanceTo(Duration.ofMillis(200).minusNanos(1));
		assertThat(this.firedAt).isEmpty();
		advanceTo(Duration.ofMillis(200));
		assertThat(this.firedAt).hasSize(3).allMatch((at) -> at == Duration.ofMillis(200).toNanos());
	}

	@Test
	void hugeDelaysNeverOverflowIntoFiringNow() {
		HashedWheelTimer timer = timer(8);
		Timeout maxNanos = timer.newTimeout(recordFiring(), Long.MAX_VALUE, TimeUnit.NANOSECONDS);
		Timeout maxDays = timer.newTimeout(recordFiring(), Long.MAX_VALUE, TimeUnit.DAYS);
		Timeout hugeDuration = timer.newTimeout(recordFiring(), Duration.ofSeconds(Long.MAX_VALUE));
		advanceTo(Duration.ofMillis(100));
		advanceTo(Duration.ofDays(1000));
		advanceTo(Duration.ofDays(1000).plus(TICK));
		assertThat(this.firedAt).isEmpty();
		assertThat(timer.pendingTimeouts()).isEqualTo(3);
		assertThat(maxNanos.remainingDelay()).isGreaterThan(Duration.ofDays(365 * 200));
		assertThat(maxDays.isExpired()).isFalse();
		assertThat(hugeDuration.toString()).contains("PENDING");
	}

	@Test
	void seedExampleEightBucketsAtTickTwo() {
		// 001: on an 8-bucket wheel whose hand is at bucket 2, a task 3 ticks away lands in bucket 5
		// with 0 rounds, and one 10 ticks away in bucket (2 + 10) % 8 = 4 with 1 round.
		// Ours: the article takes deadline / tick, ours puts a boundary deadline in the tick ending
		// there (ticks 4 and 11); and rounds are gone: tick 11 is in the next turn of 8 ticks, so it
		// waits in level 1's slot 1 until the hand reaches that turn, then moves to bucket 3.
		HashedWheelTimer timer = timer(8);
		timer.start();
		advanceTo(Duration.ofMillis(200));
		assertThat(timer.snapshot().tick()).isEqualTo(2);
		assertThat(timer.snapshot().hand()).isEqualTo(2);
		timer.newTimeout(recordFiring(), TICK.multipliedBy(3));
		timer.newTimeout(recordFiring(), TICK.multipliedBy(10));
		this.ticker.awaitIdle();
		assertThat(timer.snapshot().buckets()).containsExactly(new WheelSnapshot.Slot(4, 1, Duration.ofMillis(300)));
		assertThat(timer.snapshot().levels().get(1).occupied())
			.containsExactly(new WheelSnapshot.Slot(1, 1, Duration.ofMillis(1000)));
		advanceTo(Duration.ofMillis(500).minusNanos(1));
		assertThat(this.firedAt).isEmpty();
		advanceTo(Duration.ofMillis(500));
		assertThat(this.firedAt).containsExactly(Duration.ofMillis(500).toNanos());
		assertThat(timer.snapshot().buckets()).isEmpty();
		advanceTo(Duration.ofMillis(1200).minusNanos(1));
		assertThat(this.firedAt).hasSize(1);
		assertThat(timer.snapshot().levels().get(1).occupied()).as("moves are lazy: no wake-up of their own")
			.containsExactly(new WheelSnapshot.Slot(1, 1, Duration.ofNanos(1)));
		advanceTo(Duration.ofMillis(1200));
		assertThat(this.firedAt).containsExactly(Duration.ofMillis(500).toNanos(), Duration.ofMillis(1200).toNanos());
		assertThat(timer.snapshot().levels()).allSatisfy((level) -> assertThat(level.timeouts()).isZero());
		assertThat(timer.snapshot().moves()).as("down from level 1 on the way to tick 11").isOne();
	}

	@Test
	void everyTimeoutFiresOnTheTickThatHoldsItsDeadline() {
		HashedWheelTimer timer = timer(16);
		Random random = new Random(42);
		ConcurrentHashMap<Timeout, Long> deadlines = new ConcurrentHashMap<>();
		ConcurrentHashMap<Timeout, Long> fired = new ConcurrentHashMap<>();
		for (int i = 0; i < 2_000; i++) {
			long delay = random.nextInt(5_000_000) * 1_000L;
			Timeout timeout = timer.newTimeout((t) -> fired.put(t, this.ticker.nanoTime() - this.start), delay,
					TimeUnit.NANOSECONDS);
			deadlines.put(timeout, delay);
		}
		// And deadlines on boundaries, each the end of the tick that holds it.
		for (int ticks = 1; ticks <= 50; ticks++) {
			long delay = TICK.toNanos() * ticks;
			deadlines.put(timer.newTimeout((t) -> fired.put(t, this.ticker.nanoTime() - this.start), delay,
					TimeUnit.NANOSECONDS), delay);
		}
		this.ticker.advanceInSteps(Duration.ofMillis(5_200), Duration.ofMillis(25));
		assertThat(fired).hasSameSizeAs(deadlines);
		deadlines.forEach((timeout, deadline) -> {
			// The first boundary at or after the deadline: (k * tick, (k + 1) * tick] is tick k.
			long tickEnd = (Math.floorDiv(deadline - 1, TICK.toNanos()) + 1) * TICK.toNanos();
			assertThat(fired.get(timeout)).as("%s", timeout).isGreaterThanOrEqualTo(deadline).isEqualTo(tickEnd);
		});
	}

	@Test
	void timeoutsManyRevolutionsAwayFireOnTime() {
		HashedWheelTimer timer = timer(8);
		timer.newTimeout(recordFiring(), Duration.ofMillis(10_050));
		this.ticker.advanceInSteps(Duration.ofMillis(10_000), TICK);
		assertThat(this.firedAt).isEmpty();
		// Tick 100 is in turn 12 of 8 ticks; it waited in level 1's slot 12 % 64 from the start.
		assertThat(timer.snapshot().levels().get(1).occupied())
			.containsExactly(new WheelSnapshot.Slot(12, 1, Duration.ofMillis(100)));
		advanceTo(Duration.ofMillis(10_100));
		assertThat(this.firedAt).containsExactly(Duration.ofMillis(10_100).toNanos());
		assertThat(timer.snapshot().moves()).isOne();
		assertThat(timer.moves()).isOne();
	}

	@Test
	void aLongJumpOfTheClockFiresEverythingDueOnce() {
		HashedWheelTimer timer = timer(8);
		AtomicLong runs = new AtomicLong();
		for (int seconds = 1; seconds <= 50; seconds++) {
			timer.newTimeout((t) -> runs.incrementAndGet(), Duration.ofSeconds(seconds));
		}
		Timeout later = timer.newTimeout((t) -> runs.addAndGet(1_000), Duration.ofHours(2));
		advanceTo(Duration.ofHours(1));
		assertThat(runs).hasValue(50);
		assertThat(later.isExpired()).isFalse();
		assertThat(timer.pendingTimeouts()).isOne();
		advanceTo(Duration.ofHours(3));
		assertThat(runs).hasValue(1_050);
	}

	@Test
	void durationAndTimeUnitOverloadsAgree() {
		HashedWheelTimer timer = timer(512);
		timer.newTimeout(recordFiring(), Duration.ofMillis(1_500));
		timer.newTimeout(recordFiring(), 1_500, TimeUnit.MILLISECONDS);
		timer.newTimeout(recordFiring(), 1_500_000, TimeUnit.MICROSECONDS);
		advanceTo(Duration.ofMillis(1_600));
		assertThat(this.firedAt).hasSize(3).containsOnly(Duration.ofMillis(1_600).toNanos());
	}

	@Test
	void timeoutDescribesItselfAndItsRemainingDelay() {
		HashedWheelTimer timer = timer(512);
		TimerTask task = new TimerTask() {
			@Override
			public void run(Timeout timeout) {
			}

			@Override
			public String toString() {
				return "close idle connection 42";
			}
		};
		Timeout timeout = timer.newTimeout(task, Duration.ofMillis(1_500));
		assertThat(timeout.timer()).isSameAs(timer);
		assertThat(timeout.task()).isSameAs(task);
		assertThat(timeout.remainingDelay()).isEqualTo(Duration.ofMillis(1_500));
		assertThat(timeout).hasToString(
				"HashedWheelTimeout(deadline: 1500ms from now, state: PENDING, task: close idle connection 42)");
		advanceTo(Duration.ofMillis(400));
		assertThat(timeout.remainingDelay()).isEqualTo(Duration.ofMillis(1_100));
		assertThat(timeout.cancel()).isTrue();
		assertThat(timeout.toString()).contains("1100ms from now", "CANCELLED");
		Timeout fired = timer.newTimeout(task, Duration.ofMillis(50));
		advanceTo(Duration.ofSeconds(2));
		assertThat(fired.remainingDelay()).isEqualTo(Duration.ofMillis(-1_550));
		assertThat(fired.toString()).contains("1550ms ago", "EXPIRED");
	}

	@Test
	void tasksCanScheduleAndCancelFromInsideATask() {
		HashedWheelTimer timer = timer(8);
		Timeout victim = timer.newTimeout(recordFiring(), Duration.ofSeconds(5));
		timer.newTimeout((t) -> {
			victim.cancel();
			t.timer().newTimeout(recordFiring(), Duration.ofMillis(100));
		}, Duration.ofMillis(100));
		advanceTo(Duration.ofMillis(100));
		assertThat(victim.isCancelled()).isTrue();
		// Scheduled at 100ms for 100ms later: the deadline ends tick 1, at 200ms.
		advanceTo(Duration.ofMillis(200).minusNanos(1));
		assertThat(this.firedAt).isEmpty();
		advanceTo(Duration.ofMillis(200));
		assertThat(this.firedAt).containsExactly(Duration.ofMillis(200).toNanos());
	}

}
