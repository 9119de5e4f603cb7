package io.github.wheeltimer;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * A task that passes its work on to somewhere of its own is counted as its work ended, and work
 * that fell due outside the timer can run at once and be counted with the timer's timeouts.
 */
class HashedWheelTimerHandOffTests {

	private final ManualTicker ticker = new ManualTicker();

	private final CapturedLog log = new CapturedLog();

	/** Where handed-off work waits until the test says how it ended. */
	private final List<HandOff> handedOff = new CopyOnWriteArrayList<>();

	private final HashedWheelTimer timer = HashedWheelTimer.builder()
		.tickDuration(Duration.ofMillis(10))
		.ticker(this.ticker)
		.build();

	private final TimerTask handingOff = (timeout) -> this.handedOff.add(HashedWheelTimer.handOff(timeout));

	@AfterEach
	void stop() {
		this.timer.stop();
		this.log.close();
	}

	@Test
	void aHandedOffTimeoutIsRunningUntilItsWorkSaysHowItEndedAndCountsAsItSays() {
		for (int i = 0; i < 4; i++) {
			this.timer.newTimeout(this.handingOff, Duration.ofMillis(10));
		}
		this.ticker.advance(Duration.ofMillis(10));
		this.ticker.awaitIdle();
		assertThat(this.handedOff).hasSize(4);
		assertThat(this.timer.counters()).isEqualTo(new WheelSnapshot.Counters(4, 0, 0, 0, 0, 0, 4, 0, Duration.ZERO));

		this.handedOff.get(0).completed();
		this.handedOff.get(1).failed();
		this.handedOff.get(2).withdrawn();

		WheelSnapshot.Counters counters = this.timer.counters();
		assertThat(counters).isEqualTo(new WheelSnapshot.Counters(4, 1, 1, 1, 0, 0, 1, 0, Duration.ZERO));
		assertThat(counters.fired()).isEqualTo(4);
		assertThat(this.timer.pendingTimeouts()).isZero();
	}

	@Test
	void onlyTheFirstEndOfAHandOffCounts() {
		this.timer.newTimeout(this.handingOff, Duration.ofMillis(10));
		this.ticker.advance(Duration.ofMillis(10));
		this.ticker.awaitIdle();
		HandOff handOff = this.handedOff.get(0);

		handOff.failed();
		handOff.completed();
		handOff.withdrawn();

		assertThat(this.timer.counters()).isEqualTo(new WheelSnapshot.Counters(1, 0, 1, 0, 0, 0, 0, 0, Duration.ZERO));
	}

	@Test
	void aTaskThatThrowsAfterHandingOffCountsAsFailedAndItsHandOffIsVoid() {
		this.timer.newTimeout((timeout) -> {
			this.handedOff.add(HashedWheelTimer.handOff(timeout));
			throw new IllegalStateException("boom");
		}, Duration.ofMillis(10));
		this.ticker.advance(Duration.ofMillis(10));
		this.ticker.awaitIdle();

		this.handedOff.get(0).completed();

		assertThat(this.timer.counters()).isEqualTo(new WheelSnapshot.Counters(1, 0, 1, 0, 0, 0, 0, 0, Duration.ZERO));
		assertThat(this.log.records(Level.WARNING)).hasSize(1);
	}

	@Test
	void aHandOffOnATaskExecutorCountsAsItsWorkEndsToo() {
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try (HashedWheelTimer onExecutor = HashedWheelTimer.builder()
			.tickDuration(Duration.ofMillis(10))
			.ticker(this.ticker)
			.taskExecutor(executor)
			.build()) {
			onExecutor.newTimeout(this.handingOff, Duration.ofMillis(10));
			this.ticker.advance(Duration.ofMillis(10));
			await().atMost(Duration.ofSeconds(10)).until(() -> this.handedOff.size() == 1);
			assertThat(onExecutor.counters().running()).isOne();

			this.handedOff.get(0).completed();

			assertThat(onExecutor.counters().completed()).isOne();
			assertThat(onExecutor.counters().running()).isZero();
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void onlyARunningTaskMayHandOff() {
		AtomicReference<Timeout> ran = new AtomicReference<>();
		this.timer.newTimeout(ran::set, Duration.ofMillis(10));
		Timeout pending = this.timer.newTimeout((timeout) -> { }, Duration.ofMinutes(1));
		this.ticker.advance(Duration.ofMillis(10));
		this.ticker.awaitIdle();

		assertThatIllegalStateException().isThrownBy(() -> HashedWheelTimer.handOff(pending))
			.withMessageStartingWith("Only a task that runs can hand its work off");
		assertThatIllegalStateException().as("after its task returned, on another thread")
			.isThrownBy(() -> HashedWheelTimer.handOff(ran.get()));
		assertThat(this.timer.counters().completed()).isOne();
	}

	@Test
	void aTimeoutOfAnotherTimerHandsOffToNothing() {
		Timeout foreign = new Timeout() {

			@Override
			public Timer timer() {
				throw new UnsupportedOperationException();
			}

			@Override
			public TimerTask task() {
				throw new UnsupportedOperationException();
			}

			@Override
			public boolean isExpired() {
				return true;
			}

			@Override
			public boolean isCancelled() {
				return false;
			}

			@Override
			public boolean cancel() {
				return false;
			}

			@Override
			public Duration remainingDelay() {
				return Duration.ZERO;
			}

		};
		assertThat(HashedWheelTimer.handOff(foreign)).isSameAs(HandOff.NONE);
	}

	@Test
	void aTaskRunAtOnceRunsOnTheCallersThreadWithoutATickAndIsCountedAsScheduledAndFired() {
		AtomicReference<String> thread = new AtomicReference<>();
		Timeout timeout = this.timer.runDue((t) -> thread.set(Thread.currentThread().getName()));
		this.timer.runDue((t) -> {
			throw new IllegalStateException("boom");
		});
		this.timer.runDue(this.handingOff);

		assertThat(thread).hasValue(Thread.currentThread().getName());
		assertThat(timeout.isExpired()).isTrue();
		assertThat(this.timer.counters()).isEqualTo(new WheelSnapshot.Counters(3, 1, 1, 0, 0, 0, 1, 0, Duration.ZERO));
		assertThat(this.timer.pendingTimeouts()).isZero();
		this.handedOff.get(0).failed();
		assertThat(this.timer.counters()).isEqualTo(new WheelSnapshot.Counters(3, 1, 2, 0, 0, 0, 0, 0, Duration.ZERO));
	}

	@Test
	void aStoppedTimerRefusesATaskToRunAtOnce() {
		this.timer.stop();
		assertThatIllegalStateException().isThrownBy(() -> this.timer.runDue((t) -> { }))
			.withMessageContaining("stopped");
		assertThat(this.timer.counters().rejected()).isOne();
		assertThat(this.timer.counters().scheduled()).isZero();
	}

}
