package io.github.wheeltimer;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.logging.Level;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Races between scheduling, starting and stopping, each forced into its worst interleaving.
 */
class HashedWheelTimerRaceTests {

	private final ManualTicker ticker = new ManualTicker();

	@Test
	void aTimeoutAcceptedWhileTheWorkerFailsToStartIsReportedByStop() throws Exception {
		CountDownLatch inFactory = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		HashedWheelTimer timer = HashedWheelTimer.builder().ticker(this.ticker).threadFactory((runnable) -> {
			inFactory.countDown();
			Latches.awaitQuietly(release);
			throw new IllegalStateException("no threads today");
		}).build();
		CompletableFuture<Timeout> starting = CompletableFuture.supplyAsync(() -> timer.newTimeout((t) -> { }, Duration.ZERO));
		inFactory.await();
		// The first call has switched the timer to STARTED: this one is accepted.
		Timeout accepted = timer.newTimeout((t) -> { }, Duration.ofSeconds(1));
		release.countDown();
		assertThat(starting).failsWithin(10, TimeUnit.SECONDS).withThrowableThat()
			.withRootCauseInstanceOf(IllegalStateException.class).withMessageContaining("no threads today");

		assertThat(timer.stop()).containsExactly(accepted);
		assertThat(accepted.isCancelled()).isTrue();
		WheelSnapshot.Counters counters = timer.snapshot().counters();
		assertThat(counters.scheduled()).isOne();
		assertThat(counters.unprocessed()).isOne();
		assertThat(counters.rejected()).isOne();
		assertThat(timer.pendingTimeouts()).isZero();
	}

	@Test
	void aTimeoutScheduledWhileADyingWorkerCollectsWhatItHoldsIsRefusedNotLost() {
		BreakableTicker breakable = new BreakableTicker(this.ticker);
		HashedWheelTimer timer = HashedWheelTimer.builder().ticker(breakable).build();
		AtomicReference<Object> lateSchedule = new AtomicReference<>();
		// Told that it was cancelled by the dying worker, as it collects what it holds: a schedule
		// at that moment, after the worker's last look at its queue.
		Timeout cancelled = timer.newTimeout(new CancelWatchingTask((t) -> {
			try {
				lateSchedule.set(timer.newTimeout((u) -> { }, Duration.ofSeconds(1)));
			}
			catch (IllegalStateException ex) {
				lateSchedule.set(ex);
			}
		}), Duration.ofSeconds(1));
		Timeout pending = timer.newTimeout((t) -> { }, Duration.ofSeconds(2));
		this.ticker.awaitIdle();
		breakable.breakNextReadingOutside(Thread.currentThread());
		// Rings the worker, whose first reading of the clock throws: it dies with the cancel untaken.
		cancelled.cancel();
		await().atMost(Duration.ofSeconds(10)).until(() -> !timer.snapshot().worker().alive());

		assertThat(lateSchedule.get()).isInstanceOf(IllegalStateException.class);
		assertThat(timer.stop()).containsExactly(pending);
		WheelSnapshot snapshot = timer.snapshot();
		assertThat(snapshot.pendingTimeouts()).isZero();
		assertThat(snapshot.counters().scheduled()).isEqualTo(2);
		assertThat(snapshot.counters().cancelled()).isOne();
		assertThat(snapshot.counters().unprocessed()).isOne();
		assertThat(snapshot.counters().rejected()).isOne();
	}

	@RepeatedTest(20)
	void theCallThatStopsTheTimerGetsTheReportWhateverOrderTheWaitersWakeIn() throws Exception {
		HashedWheelTimer timer = HashedWheelTimer.builder().ticker(this.ticker).build();
		CountDownLatch running = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		timer.newTimeout((t) -> {
			running.countDown();
			release.await();
		}, Duration.ZERO);
		Timeout pending = timer.newTimeout((t) -> { }, Duration.ofHours(1));
		this.ticker.advance(Duration.ofMillis(100));
		running.await();
		AtomicReference<Set<Timeout>> first = new AtomicReference<>();
		AtomicReference<Set<Timeout>> second = new AtomicReference<>();
		Thread stopper = new Thread(() -> first.set(timer.stop()));
		stopper.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> timer.snapshot().state() == WheelSnapshot.State.SHUTDOWN);
		Thread latecomer = new Thread(() -> second.set(timer.stop()));
		latecomer.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> latecomer.getState() == Thread.State.WAITING);
		release.countDown();
		stopper.join();
		latecomer.join();
		assertThat(first.get()).containsExactly(pending);
		assertThat(second.get()).isEmpty();
	}

	/**
	 * Cancels racing the worker's take of the very timeouts they cancel: whether the worker had
	 * not reached a timeout, was marking it, or had placed it, each cancel that wins is counted
	 * at once and its task told once, on the worker, and nothing else is told.
	 */
	@RepeatedTest(5)
	void cancelsRacingTheWorkersTakeAreEachCountedAtOnceAndToldOnce() throws Exception {
		HashedWheelTimer timer = HashedWheelTimer.builder().tickDuration(Duration.ofMillis(1)).build();
		int count = 100_000;
		AtomicIntegerArray told = new AtomicIntegerArray(count);
		AtomicReferenceArray<Timeout> timeouts = new AtomicReferenceArray<>(count);
		boolean[] won = new boolean[count];
		Thread scheduler = new Thread(() -> {
			for (int i = 0; i < count; i++) {
				int index = i;
				timeouts.set(i,
						timer.newTimeout(new CancelWatchingTask((timeout) -> told.incrementAndGet(index)),
								Duration.ofHours(1)));
			}
		});
		Thread canceller = new Thread(() -> {
			for (int i = 0; i < count; i++) {
				Timeout timeout;
				while ((timeout = timeouts.get(i)) == null) {
					Thread.onSpinWait();
				}
				// Every other one, at once: the rest go on waiting, as most timeouts do.
				won[i] = (i % 2 == 0) && timeout.cancel();
			}
		});
		scheduler.start();
		canceller.start();
		scheduler.join();
		canceller.join();
		int cancelled = 0;
		for (boolean cancel : won) {
			cancelled += cancel ? 1 : 0;
		}
		assertThat(cancelled).as("cancels that won").isEqualTo(count / 2);
		assertThat(timer.snapshot().counters().cancelled()).as("counted when cancel returned").isEqualTo(cancelled);
		await("every cancelled task told").atMost(Duration.ofSeconds(20)).until(() -> sum(told) >= count / 2);
		Set<Timeout> unprocessed = timer.stop();
		assertThat(unprocessed).hasSize(count - cancelled);
		for (int i = 0; i < count; i++) {
			assertThat(told.get(i)).as("times timeout %d was told it was cancelled", i).isEqualTo(won[i] ? 1 : 0);
		}
		WheelSnapshot.Counters counters = timer.snapshot().counters();
		assertThat(counters.cancelled()).isEqualTo(cancelled);
		assertThat(counters.unprocessed()).isEqualTo(count - cancelled);
	}

	private static int sum(AtomicIntegerArray values) {
		int sum = 0;
		for (int i = 0; i < values.length(); i++) {
			sum += values.get(i);
		}
		return sum;
	}

	@Test
	void aTimeoutTakenBackByItsSchedulerDoesNotHoldUpAGracefulStop() {
		HashedWheelTimer timer = HashedWheelTimer.builder().ticker(this.ticker).build();
		HashedWheelTimeout raced = (HashedWheelTimeout) timer.newTimeout((t) -> { }, Duration.ofHours(1));
		this.ticker.awaitIdle();
		CompletableFuture<Set<Timeout>> stopping = CompletableFuture
			.supplyAsync(() -> timer.stopGracefully(Duration.ofDays(1)));
		await().atMost(Duration.ofSeconds(10)).until(() -> timer.snapshot().state() == WheelSnapshot.State.SHUTDOWN);
		// The losing side of the race: the worker linked it while pending, then its scheduler,
		// having seen the stop, took it back.
		assertThatIllegalStateException().isThrownBy(() -> timer.takeBackIfStopped(raced));

		assertThat(stopping.orTimeout(10, TimeUnit.SECONDS).join()).isEmpty();
		WheelSnapshot.Counters counters = timer.snapshot().counters();
		assertThat(counters.scheduled()).isZero();
		assertThat(counters.rejected()).isOne();
		assertThat(timer.pendingTimeouts()).isZero();
	}

	@Test
	void aFailingTaskThatCannotDescribeItselfDoesNotKillTheWorker() {
		HashedWheelTimer timer = HashedWheelTimer.builder().ticker(this.ticker).build();
		TimerTask unprintable = new TimerTask() {

			@Override
			public void run(Timeout timeout) {
				throw new IllegalStateException("task failed");
			}

			@Override
			public String toString() {
				throw new IllegalStateException("toString failed");
			}

		};
		try (CapturedLog log = new CapturedLog()) {
			timer.newTimeout(unprintable, Duration.ZERO);
			Timeout next = timer.newTimeout((t) -> { }, Duration.ofMillis(150));
			this.ticker.advanceInSteps(Duration.ofMillis(200), Duration.ofMillis(100));
			assertThat(next.isExpired()).isTrue();
			assertThat(timer.snapshot().worker().alive()).isTrue();
			assertThat(timer.snapshot().counters().failed()).isOne();
			assertThat(log.records(Level.WARNING)).singleElement().satisfies((record) -> {
				assertThat(record.getMessage()).startsWith("A timeout's task failed, and describing it failed too");
				assertThat(record.getThrown()).hasMessage("task failed");
			});
		}
		timer.stop();
	}

}
