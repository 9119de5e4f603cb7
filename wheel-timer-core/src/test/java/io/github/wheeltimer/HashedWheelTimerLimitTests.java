package io.github.wheeltimer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class HashedWheelTimerLimitTests {

	private final ManualTicker ticker = new ManualTicker();

	private final HashedWheelTimer timer = HashedWheelTimer.builder()
		.maxPendingTimeouts(3)
		.ticker(this.ticker)
		.build();

	@AfterEach
	void stopTimer() {
		this.timer.stop();
	}

	@Test
	void timeoutBeyondTheLimitIsRejectedAndThePendingCountIsUnchanged() {
		for (int i = 0; i < 3; i++) {
			this.timer.newTimeout((t) -> { }, Duration.ofSeconds(1));
		}
		assertThatExceptionOfType(RejectedExecutionException.class)
			.isThrownBy(() -> this.timer.newTimeout((t) -> { }, Duration.ofSeconds(1)))
			.withMessage("Cannot schedule a timeout: 3 timeouts are pending, which is the limit (maxPendingTimeouts = 3)");
		assertThat(this.timer.pendingTimeouts()).isEqualTo(3);
		WheelSnapshot.Counters counters = this.timer.snapshot().counters();
		assertThat(counters.rejected()).isOne();
		assertThat(counters.scheduled()).isEqualTo(3);
	}

	@Test
	void firedAndCancelledTimeoutsFreeTheirPlace() {
		Timeout cancelled = this.timer.newTimeout((t) -> { }, Duration.ofSeconds(5));
		this.timer.newTimeout((t) -> { }, Duration.ofMillis(100));
		this.timer.newTimeout((t) -> { }, Duration.ofSeconds(5));
		cancelled.cancel();
		this.timer.newTimeout((t) -> { }, Duration.ofSeconds(5));
		this.ticker.advanceInSteps(Duration.ofMillis(200), Duration.ofMillis(100));
		this.timer.newTimeout((t) -> { }, Duration.ofSeconds(5));
		assertThat(this.timer.pendingTimeouts()).isEqualTo(3);
		assertThatExceptionOfType(RejectedExecutionException.class)
			.isThrownBy(() -> this.timer.newTimeout((t) -> { }, Duration.ofSeconds(1)));
	}

	@Test
	void stopFreesEveryPlace() {
		HashedWheelTimer timer = HashedWheelTimer.builder().maxPendingTimeouts(2).ticker(this.ticker).build();
		timer.newTimeout((t) -> { }, Duration.ofSeconds(1));
		timer.newTimeout((t) -> { }, Duration.ofSeconds(1));
		assertThat(timer.stop()).hasSize(2);
		assertThat(timer.pendingTimeouts()).isZero();
	}

	@Test
	void theLimitHoldsExactlyUnderConcurrentScheduling() throws Exception {
		HashedWheelTimer timer = HashedWheelTimer.builder().maxPendingTimeouts(1_000).ticker(this.ticker).build();
		AtomicInteger accepted = new AtomicInteger();
		AtomicInteger rejected = new AtomicInteger();
		CountDownLatch go = new CountDownLatch(1);
		List<Thread> threads = new ArrayList<>();
		for (int t = 0; t < 4; t++) {
			Thread thread = new Thread(() -> {
				Latches.awaitQuietly(go);
				for (int i = 0; i < 1_000; i++) {
					try {
						timer.newTimeout((timeout) -> { }, Duration.ofMinutes(1));
						accepted.incrementAndGet();
					}
					catch (RejectedExecutionException ex) {
						rejected.incrementAndGet();
					}
				}
			});
			thread.start();
			threads.add(thread);
		}
		go.countDown();
		for (Thread thread : threads) {
			thread.join();
		}
		assertThat(accepted).hasValue(1_000);
		assertThat(rejected).hasValue(3_000);
		assertThat(timer.pendingTimeouts()).isEqualTo(1_000);
		assertThat(timer.snapshot().counters().rejected()).isEqualTo(3_000);
		assertThat(timer.stop()).hasSize(1_000);
	}

}
