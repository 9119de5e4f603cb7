package io.github.wheeltimer;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

class HashedWheelTimerStopTests {

	private static final Duration TICK = Duration.ofMillis(100);

	private final ManualTicker ticker = new ManualTicker();

	private final HashedWheelTimer timer = HashedWheelTimer.builder()
		.tickDuration(TICK)
		.ticker(this.ticker)
		.build();

	private final AtomicInteger runs = new AtomicInteger();

	private final TimerTask counting = (timeout) -> this.runs.incrementAndGet();

	@AfterEach
	void stopTimer() {
		this.timer.stop();
	}

	@Test
	void stopCancelsAndReturnsEveryTimeoutThatHasNotRun() {
		Timeout first = this.timer.newTimeout(this.counting, Duration.ofSeconds(1));
		Timeout second = this.timer.newTimeout(this.counting, Duration.ofSeconds(2));
		Timeout third = this.timer.newTimeout(this.counting, Duration.ofDays(3));
		Timeout cancelled = this.timer.newTimeout(this.counting, Duration.ofSeconds(2));
		cancelled.cancel();
		this.ticker.advanceInSteps(Duration.ofMillis(1_500), Duration.ofMillis(100));
		assertThat(first.isExpired()).isTrue();

		Set<Timeout> unprocessed = this.timer.stop();

		assertThat(unprocessed).containsExactlyInAnyOrder(second, third);
		assertThat(unprocessed).allMatch(Timeout::isCancelled);
		WheelSnapshot snapshot = this.timer.snapshot();
		assertThat(snapshot.state()).isEqualTo(WheelSnapshot.State.SHUTDOWN);
		assertThat(snapshot.worker().alive()).isFalse();
		assertThat(snapshot.pendingTimeouts()).isZero();
		assertThat(snapshot.buckets()).isEmpty();
		// The first one's deadline, 1s, is a tick boundary: it fired right at it, not late at all.
		assertThat(snapshot.counters()).isEqualTo(new WheelSnapshot.Counters(4, 1, 0, 0, 1, 0, 0, 2, Duration.ZERO));
		this.ticker.advance(Duration.ofSeconds(5));
		assertThat(this.runs).hasValue(1);
	}

	@Test
	void stopTellsEachUnprocessedTaskOnceBeforeItReturnsThatItWillNeverRun() {
		Map<Timeout, String> told = new ConcurrentHashMap<>();
		AtomicInteger tellings = new AtomicInteger();
		TimerTask recording = new TimerTask() {

			@Override
			public void run(Timeout timeout) {
				HashedWheelTimerStopTests.this.runs.incrementAndGet();
			}

			@Override
			public void unprocessed(Timeout timeout) {
				tellings.incrementAndGet();
				told.put(timeout, Thread.currentThread().getName());
			}

		};
		Timeout fired = this.timer.newTimeout(recording, Duration.ofMillis(100));
		Timeout cancelled = this.timer.newTimeout(recording, Duration.ofSeconds(1));
		Timeout near = this.timer.newTimeout(recording, Duration.ofSeconds(2));
		Timeout far = this.timer.newTimeout(recording, Duration.ofDays(2));
		cancelled.cancel();
		this.ticker.advanceInSteps(Duration.ofMillis(500), Duration.ofMillis(100));
		assertThat(fired.isExpired()).isTrue();
		Timeout queued = this.timer.newTimeout(recording, Duration.ofSeconds(3));

		Set<Timeout> unprocessed = this.timer.stop();

		assertThat(unprocessed).containsExactlyInAnyOrder(near, far, queued);
		assertThat(told).as("told before stop() returned, on the worker thread")
			.containsOnlyKeys(near, far, queued)
			.allSatisfy((timeout, thread) -> assertThat(thread).startsWith("wheel-timer"));
		assertThat(tellings).hasValue(3);
		assertThat(this.runs).hasValue(1);
	}

	@Test
	void aTaskThatThrowsWhenToldItWillNeverRunIsLoggedOnceAndTheOthersAreStillTold() {
		AtomicInteger told = new AtomicInteger();
		TimerTask throwing = new TimerTask() {

			@Override
			public void run(Timeout timeout) {
			}

			@Override
			public void unprocessed(Timeout timeout) {
				throw new IllegalStateException("cannot clean up");
			}

		};
		TimerTask listening = new TimerTask() {

			@Override
			public void run(Timeout timeout) {
			}

			@Override
			public void unprocessed(Timeout timeout) {
				told.incrementAndGet();
			}

		};
		for (int i = 0; i < 3; i++) {
			this.timer.newTimeout(throwing, Duration.ofSeconds(1));
			this.timer.newTimeout(listening, Duration.ofSeconds(1));
		}
		try (CapturedLog log = new CapturedLog()) {
			assertThat(this.timer.stop()).hasSize(6);
			assertThat(told).hasValue(3);
			assertThat(log.records(Level.WARNING))
				.singleElement()
				.satisfies((record) -> {
					assertThat(record.getMessage()).startsWith("3 of 6 unprocessed timeouts' tasks threw");
					assertThat(record.getThrown()).hasMessage("cannot clean up");
				});
		}
		assertThat(this.timer.snapshot().counters().unprocessed()).isEqualTo(6);
	}

	@Test
	void aWorkerThatDiesTellsThePendingTasksTheyWillNeverRun() {
		BreakableTicker breaking = new BreakableTicker(Ticker.system());
		HashedWheelTimer dying = HashedWheelTimer.builder().ticker(breaking).build();
		CompletableFuture<Timeout> told = new CompletableFuture<>();
		try (CapturedLog log = new CapturedLog()) {
			dying.start();
			await().atMost(Duration.ofSeconds(10)).until(breaking::hasParked);
			breaking.breakParks();
			// Wakes the parked worker, whose next park throws.
			Timeout pending = dying.newTimeout(new TimerTask() {

				@Override
				public void run(Timeout timeout) {
				}

				@Override
				public void unprocessed(Timeout timeout) {
					told.complete(timeout);
				}

			}, Duration.ofMinutes(1));

			assertThat(told).succeedsWithin(Duration.ofSeconds(10)).isSameAs(pending);
			assertThat(pending.isCancelled()).isTrue();
			assertThat(log.records(Level.SEVERE)).hasSize(1);
		}
		finally {
			dying.stop();
		}
	}

	@Test
	void stopIsIdempotent() {
		this.timer.newTimeout(this.counting, Duration.ofSeconds(1));
		assertThat(this.timer.stop()).hasSize(1);
		assertThat(this.timer.stop()).isEmpty();
		assertThat(this.timer.stopGracefully(Duration.ofSeconds(1))).isEmpty();
		assertThat(this.timer.snapshot().counters().unprocessed()).isOne();
	}

	@Test
	void stoppedTimerRefusesNewTimeoutsAndCannotBeRestarted() {
		this.timer.start();
		this.timer.stop();
		assertThatIllegalStateException().isThrownBy(() -> this.timer.newTimeout(this.counting, Duration.ofSeconds(1)))
			.withMessage("Cannot schedule a timeout: the timer has been stopped");
		assertThatIllegalStateException().isThrownBy(this.timer::start)
			.withMessage("Cannot start the timer: it has been stopped, and a stopped timer cannot be restarted");
		WheelSnapshot.Counters counters = this.timer.snapshot().counters();
		assertThat(counters.rejected()).isOne();
		assertThat(counters.scheduled()).isZero();
	}

	@Test
	void timerStoppedBeforeItStartedNeverStartsAThread() {
		assertThat(this.timer.stop()).isEmpty();
		assertThat(this.timer.snapshot().state()).isEqualTo(WheelSnapshot.State.SHUTDOWN);
		assertThat(this.timer.snapshot().worker().name()).isNull();
		assertThatIllegalStateException().isThrownBy(() -> this.timer.newTimeout(this.counting, Duration.ZERO));
	}

	@Test
	void stopFromInsideATaskOnTheWorkerThrows() {
		AtomicReference<Throwable> thrown = new AtomicReference<>();
		this.timer.newTimeout((timeout) -> {
			try {
				timeout.timer().stop();
			}
			catch (Throwable ex) {
				thrown.set(ex);
			}
		}, Duration.ZERO);
		this.ticker.advance(Duration.ofMillis(100));
		this.ticker.awaitIdle();
		assertThat(thrown.get()).isInstanceOf(IllegalStateException.class)
			.hasMessage("A task of this timer cannot stop it: the timer waits for its tasks' thread to finish");
		assertThat(this.timer.snapshot().state()).isEqualTo(WheelSnapshot.State.STARTED);
	}

	@Test
	void stopFromInsideATaskOnTheTaskExecutorThrows() throws Exception {
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			HashedWheelTimer timer = HashedWheelTimer.builder().ticker(this.ticker).taskExecutor(executor).build();
			CompletableFuture<Throwable> thrown = new CompletableFuture<>();
			timer.newTimeout((timeout) -> {
				try {
					timer.stopGracefully(Duration.ofSeconds(1));
					thrown.complete(null);
				}
				catch (Throwable ex) {
					thrown.complete(ex);
				}
			}, Duration.ZERO);
			this.ticker.advance(Duration.ofMillis(100));
			assertThat(thrown.get(10, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class);
			timer.stop();
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void stopRestoresTheCallersInterruptFlag() {
		this.timer.newTimeout(this.counting, Duration.ofSeconds(1));
		this.ticker.awaitIdle();
		Thread.currentThread().interrupt();
		Set<Timeout> unprocessed = this.timer.stop();
		assertThat(Thread.interrupted()).as("interrupt flag still set").isTrue();
		assertThat(unprocessed).hasSize(1);
		assertThat(this.timer.snapshot().worker().alive()).isFalse();
	}

	@Test
	void closeStopsTheTimer() {
		try (HashedWheelTimer timer = HashedWheelTimer.builder().ticker(this.ticker).build()) {
			timer.newTimeout(this.counting, Duration.ofSeconds(1));
		}
		assertThat(this.runs).hasValue(0);
	}

	@Test
	void gracefulStopRefusesNewTimeoutsAtOnceAndFiresThoseThatFallDueDuringTheDrain() {
		Timeout dueInDrain = this.timer.newTimeout(this.counting, Duration.ofSeconds(1));
		Timeout alsoDueInDrain = this.timer.newTimeout(this.counting, Duration.ofSeconds(3));
		Timeout dueAfterDrain = this.timer.newTimeout(this.counting, Duration.ofSeconds(10));
		this.ticker.awaitIdle();

		CompletableFuture<Set<Timeout>> stopping = CompletableFuture
			.supplyAsync(() -> this.timer.stopGracefully(Duration.ofSeconds(5)));
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.timer.snapshot().state() == WheelSnapshot.State.SHUTDOWN);
		assertThatIllegalStateException().isThrownBy(() -> this.timer.newTimeout(this.counting, Duration.ZERO));

		this.ticker.advanceInSteps(Duration.ofMillis(2_900), Duration.ofMillis(100));
		assertThat(dueInDrain.isExpired()).isTrue();
		assertThat(alsoDueInDrain.isExpired()).isFalse();
		assertThat(stopping).as("a timeout can still fall due in the drain").isNotDone();
		// To 3s, the second one's deadline: a tick boundary, where it falls due.
		this.ticker.advance(Duration.ofMillis(100));

		Set<Timeout> unprocessed = stopping.orTimeout(10, TimeUnit.SECONDS).join();
		assertThat(alsoDueInDrain.isExpired()).isTrue();
		assertThat(unprocessed).containsExactly(dueAfterDrain);
		assertThat(dueAfterDrain.isCancelled()).isTrue();
		assertThat(this.runs).hasValue(2);
		// Both fired right at their deadlines, which are tick boundaries the clock stopped on.
		assertThat(this.timer.snapshot().counters())
			.isEqualTo(new WheelSnapshot.Counters(3, 2, 0, 0, 0, 1, 0, 1, Duration.ZERO));
	}

	@Test
	void gracefulStopEndsOnceNothingLeftFallsDueBeforeTheDrainDeadline() {
		Timeout dueInDrain = this.timer.newTimeout(this.counting, Duration.ofSeconds(1));
		Timeout dueInAnHour = this.timer.newTimeout(this.counting, Duration.ofHours(1));
		this.ticker.awaitIdle();
		CompletableFuture<Set<Timeout>> stopping = CompletableFuture
			.supplyAsync(() -> this.timer.stopGracefully(Duration.ofMinutes(10)));
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.timer.snapshot().state() == WheelSnapshot.State.SHUTDOWN);
		this.ticker.advance(Duration.ofMillis(1_100));
		assertThat(stopping.orTimeout(10, TimeUnit.SECONDS).join()).as("without waiting out the 10 minutes")
			.containsExactly(dueInAnHour);
		assertThat(dueInDrain.isExpired()).isTrue();
	}

	@Test
	void aTimeoutDueExactlyWhenTheDrainEndsDoesNotHoldTheDrainOpen() {
		Timeout dueAtTheDrainsEnd = this.timer.newTimeout(this.counting, Duration.ofSeconds(5));
		this.ticker.awaitIdle();
		// Without moving the clock: the stop is due at 5 s, before the timeout can run there.
		assertThat(this.timer.stopGracefully(Duration.ofSeconds(5))).containsExactly(dueAtTheDrainsEnd);
		assertThat(this.runs).hasValue(0);
	}

	@Test
	void gracefulStopEndsAsSoonAsNothingIsPending() {
		this.timer.newTimeout(this.counting, Duration.ofMillis(250));
		this.ticker.awaitIdle();
		CompletableFuture<Set<Timeout>> stopping = CompletableFuture
			.supplyAsync(() -> this.timer.stopGracefully(Duration.ofHours(1)));
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.timer.snapshot().state() == WheelSnapshot.State.SHUTDOWN);
		this.ticker.advance(Duration.ofMillis(300));
		assertThat(stopping.orTimeout(10, TimeUnit.SECONDS).join()).isEmpty();
		assertThat(this.runs).hasValue(1);
	}

	@Test
	void gracefulStopOfAnIdleTimerReturnsAtOnce() {
		this.timer.start();
		this.ticker.awaitIdle();
		assertThat(this.timer.stopGracefully(Duration.ofDays(1))).isEmpty();
		assertThat(this.timer.snapshot().worker().alive()).isFalse();
	}

}
