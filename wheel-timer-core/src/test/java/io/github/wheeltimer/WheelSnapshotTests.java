package io.github.wheeltimer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class WheelSnapshotTests {

	private static final Duration TICK = Duration.ofMillis(100);

	private final ManualTicker ticker = new ManualTicker();

	private final HashedWheelTimer timer = HashedWheelTimer.builder()
		.tickDuration(TICK)
		.ticksPerWheel(16)
		.maxPendingTimeouts(1_000)
		.threadFactory((runnable) -> new Thread(runnable, "snapshot-test-worker"))
		.ticker(this.ticker)
		.build();

	@AfterEach
	void stopTimer() {
		this.timer.stop();
	}

	@Test
	void describesConfigurationStateAndCounters() {
		this.timer.newTimeout((t) -> { }, Duration.ofMillis(50));
		this.timer.newTimeout((t) -> { }, Duration.ofSeconds(5)).cancel();
		this.timer.newTimeout((t) -> { }, Duration.ofSeconds(3));
		this.ticker.advance(TICK);
		this.ticker.awaitIdle();
		WheelSnapshot snapshot = this.timer.snapshot();
		assertThat(snapshot.state()).isEqualTo(WheelSnapshot.State.STARTED);
		assertThat(snapshot.tickDuration()).isEqualTo(TICK);
		assertThat(snapshot.ticksPerWheel()).isEqualTo(16);
		assertThat(snapshot.maxPendingTimeouts()).isEqualTo(1_000);
		assertThat(snapshot.tick()).isOne();
		assertThat(snapshot.hand()).isOne();
		assertThat(snapshot.pendingTimeouts()).isOne();
		assertThat(snapshot.counters()).isEqualTo(new WheelSnapshot.Counters(3, 1, 0, 0, 1, 0, 0, 0, Duration.ofMillis(50)));
		// 3s is the end of tick 29 (a tick holds the deadlines up to and including its end): in the
		// second turn of 16 ticks, so it waits in level 1's slot 1 until the hand reaches tick 16.
		assertThat(snapshot.buckets()).isEmpty();
		assertThat(snapshot.levels().get(1)).isEqualTo(new WheelSnapshot.Level(1, TICK.multipliedBy(16), 64, 0, 1,
				Duration.ofMillis(2_900), 0, List.of(new WheelSnapshot.Slot(1, 1, Duration.ofMillis(2_900)))));
		assertThat(snapshot.worker()).isEqualTo(new WheelSnapshot.Worker("snapshot-test-worker", true, null));
	}

	@Test
	void theHandFollowsTheClockWhileTheWorkerSleepsThroughEmptyTicks() {
		this.timer.start();
		this.ticker.awaitIdle();
		this.ticker.advance(Duration.ofMillis(2_050));
		assertThat(this.timer.snapshot().tick()).isEqualTo(20);
		assertThat(this.timer.snapshot().hand()).isEqualTo(4);
	}

	@Test
	void tickLagGrowsWhileTheWorkerIsBlockedAndTheWorstLagIsKept() throws Exception {
		BlockingTask blocking = new BlockingTask();
		// A task that blocks the worker thread in tick 1; another timeout is due in tick 2.
		this.timer.newTimeout(blocking, Duration.ofMillis(150));
		this.timer.newTimeout((t) -> { }, Duration.ofMillis(250));
		this.ticker.awaitIdle();
		try {
			this.ticker.advance(Duration.ofMillis(200));
			blocking.awaitRunning();
			assertThat(this.timer.tickLag()).as("tick 2 has not ended").isZero();

			this.ticker.advance(Duration.ofMillis(400));
			assertThat(this.timer.tickLag()).as("tick 2 ended 300ms ago").isEqualTo(Duration.ofMillis(300));
			this.ticker.advance(Duration.ofMillis(100));
			assertThat(this.timer.snapshot().tickLag()).isEqualTo(Duration.ofMillis(400));
		}
		finally {
			blocking.release();
		}
		this.ticker.awaitIdle();
		WheelSnapshot snapshot = this.timer.snapshot();
		assertThat(snapshot.counters().completed()).isEqualTo(2);
		assertThat(snapshot.tickLag()).isZero();
		assertThat(snapshot.maxTickLag()).isEqualTo(Duration.ofMillis(400));
	}

	@Test
	void tickLagGrowsWhileABlockedWorkerLeavesNewTimeoutsOutsideTheWheel() throws Exception {
		BlockingTask blocking = new BlockingTask();
		this.timer.newTimeout(blocking, Duration.ofMillis(50));
		this.ticker.awaitIdle();
		try {
			this.ticker.advance(TICK);
			blocking.awaitRunning();
			// The wheel is empty; these wait in the queue the blocked worker does not read.
			for (int i = 0; i < 10; i++) {
				this.timer.newTimeout((t) -> { }, TICK);
			}
			this.ticker.advance(Duration.ofMinutes(10));
			assertThat(this.timer.tickLag()).as("the worker's pass began 10 minutes ago; a tick of that is normal")
				.isEqualTo(Duration.ofMinutes(10).minus(TICK));
		}
		finally {
			blocking.release();
		}
		this.ticker.awaitIdle();
		assertThat(this.timer.tickLag()).isZero();
		assertThat(this.timer.snapshot().maxTickLag()).as("the worst lag is kept once the worker catches up")
			.isEqualTo(Duration.ofMinutes(10).minus(TICK));
	}

	@Test
	void latenessCountsTheTimeATaskOnTheWorkerHeldUpTheNextOneErringLateNeverEarly() {
		// Both due in tick 0; the first task takes 500 ms of clock on the worker thread. The two
		// fires share one clock reading, taken after the task: both count as handed to run at
		// 600 ms. The second one was (550 ms late); the first one was at 100 ms, and is counted
		// later than it was, never earlier.
		this.timer.newTimeout((t) -> this.ticker.advance(Duration.ofMillis(500)), Duration.ofMillis(50));
		this.timer.newTimeout((t) -> { }, Duration.ofMillis(50));
		this.ticker.advanceInSteps(TICK, TICK);
		this.ticker.awaitIdle();

		assertThat(this.timer.counters().fired()).isEqualTo(2);
		assertThat(this.timer.counters().lateness()).isEqualTo(Duration.ofMillis(550 + 550));
	}

	@Test
	void latenessAddsUpHowLongAfterItsDeadlineEachTimeoutWasHandedToRun() {
		// Deadlines at 10, 50 and 90 ms of tick 0, all fired when it ends at 100 ms.
		this.timer.newTimeout((t) -> { }, Duration.ofMillis(10));
		this.timer.newTimeout((t) -> { }, Duration.ofMillis(50));
		this.timer.newTimeout((t) -> { }, Duration.ofMillis(90));
		this.ticker.advanceInSteps(Duration.ofMillis(300), TICK);
		assertThat(this.timer.counters().lateness()).isEqualTo(Duration.ofMillis(90 + 50 + 10));

		assertThat(this.timer.counters().fired()).isEqualTo(3);
		assertThat(this.timer.counters()).isEqualTo(this.timer.snapshot().counters());
	}

	@Test
	void sleepingThroughEmptyTicksIsNotLag() {
		// Timeouts many revolutions away share buckets with nearer ticks the worker sleeps through.
		for (int i = 0; i < 16; i++) {
			this.timer.newTimeout((t) -> { }, Duration.ofMinutes(10).plus(TICK.multipliedBy(i)));
		}
		this.timer.newTimeout((t) -> { }, Duration.ofSeconds(30));
		this.ticker.awaitIdle();
		// To the end of the 30s timeout's tick, which is its deadline: the worker wakes on time,
		// having slept through buckets that hold only the far timeouts.
		this.ticker.advance(Duration.ofSeconds(30));
		this.ticker.awaitIdle();
		assertThat(this.timer.snapshot().counters().completed()).isOne();
		assertThat(this.timer.snapshot().maxTickLag()).isZero();
	}

	@Test
	void snapshotsFromManyThreadsWhileTheWheelIsBusyAlwaysAddUp() throws Exception {
		HashedWheelTimer busy = HashedWheelTimer.builder().tickDuration(Duration.ofMillis(1)).ticksPerWheel(64).build();
		AtomicBoolean running = new AtomicBoolean(true);
		AtomicReference<Throwable> failure = new AtomicReference<>();
		CountDownLatch done = new CountDownLatch(4);
		List<Thread> threads = new ArrayList<>();
		for (int i = 0; i < 2; i++) {
			threads.add(new Thread(() -> {
				try {
					for (int n = 0; n < 50_000; n++) {
						Timeout timeout = busy.newTimeout((t) -> { }, Duration.ofMillis(n % 20));
						if (n % 3 == 0) {
							timeout.cancel();
						}
					}
				}
				catch (Throwable ex) {
					failure.set(ex);
				}
				finally {
					done.countDown();
				}
			}));
		}
		for (int i = 0; i < 2; i++) {
			threads.add(new Thread(() -> {
				try {
					long lastScheduled = 0;
					while (running.get()) {
						WheelSnapshot snapshot = busy.snapshot();
						WheelSnapshot.Counters counters = snapshot.counters();
						assertThat(counters.scheduled()).isGreaterThanOrEqualTo(lastScheduled);
						lastScheduled = counters.scheduled();
						assertThat(snapshot.pendingTimeouts()).isNotNegative();
						assertThat(snapshot.buckets()).allSatisfy((bucket) -> assertThat(bucket.timeouts()).isPositive());
					}
				}
				catch (Throwable ex) {
					failure.set(ex);
				}
				finally {
					done.countDown();
				}
			}));
		}
		threads.forEach(Thread::start);
		threads.get(0).join();
		threads.get(1).join();
		running.set(false);
		done.await();
		assertThat(failure.get()).isNull();
		busy.stopGracefully(Duration.ofSeconds(10));
		WheelSnapshot.Counters counters = busy.snapshot().counters();
		assertThat(counters.scheduled()).isEqualTo(100_000);
		assertThat(counters.completed() + counters.cancelled() + counters.unprocessed()).isEqualTo(100_000);
	}

}
