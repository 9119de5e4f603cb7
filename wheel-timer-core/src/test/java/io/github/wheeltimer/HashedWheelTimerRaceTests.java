package io.github.wheeltimer;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
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
