package io.github.wheeltimer.actuate;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.Ticker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class WheelTimerHealthIndicatorTests {

	private static final Duration MAX_TICK_LAG = Duration.ofMillis(200);

	private HashedWheelTimer timer = HashedWheelTimer.builder().tickDuration(Duration.ofMillis(10)).build();

	@AfterEach
	void stopTimer() {
		this.timer.stop();
	}

	@Test
	void upBeforeTheWorkerStartsAndWhileItRuns() {
		assertThat(health().getStatus()).isEqualTo(Status.UP);
		assertThat(health().getDetails()).containsEntry("state", "INIT");

		this.timer.newTimeout((timeout) -> { }, Duration.ofMinutes(5));
		Health health = health();
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).containsEntry("state", "STARTED")
			.containsEntry("pendingTimeouts", 1L)
			.containsEntry("tickLag", "PT0S")
			.containsKey("maxTickLag");
	}

	@Test
	void outOfServiceOnceStopped() {
		this.timer.start();
		this.timer.stop();
		Health health = health();
		assertThat(health.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
		assertThat(health.getDetails()).containsEntry("state", "SHUTDOWN");
	}

	@Test
	void downWhenTheWorkerThreadDied() {
		// Real time: what it waits for is the worker's thread, parked and then dead, not a delay.
		FailingTicker ticker = new FailingTicker();
		this.timer = HashedWheelTimer.builder().ticker(ticker).build();
		this.timer.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> ticker.parked);
		ticker.failing = true;
		// Wakes the parked worker, whose next park fails.
		this.timer.newTimeout((timeout) -> { }, Duration.ofMinutes(1));
		await().atMost(Duration.ofSeconds(10)).until(() -> health().getStatus().equals(Status.DOWN));
		assertThat(health().getDetails()).containsEntry("state", "SHUTDOWN")
			.hasEntrySatisfying("failure",
					(failure) -> assertThat((String) failure).startsWith("The worker thread died: ")
						.contains("the clock broke"));
	}

	@Test
	void downWhileTheWorkerIsFurtherBehindThanAllowedAndUpOnceItCatchesUp() throws Exception {
		// Real time: the lag is the clock running on while a task blocks the worker; an advance would wait for it.
		CountDownLatch blocking = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		// No task executor: this task blocks the worker thread, and the next timeout falls behind.
		this.timer.newTimeout((timeout) -> {
			blocking.countDown();
			awaitQuietly(release);
		}, Duration.ZERO);
		this.timer.newTimeout((timeout) -> { }, Duration.ofMillis(20));
		try {
			assertThat(blocking.await(10, TimeUnit.SECONDS)).isTrue();
			await().atMost(Duration.ofSeconds(10)).until(() -> health().getStatus().equals(Status.DOWN));
			assertThat(health().getDetails()).hasEntrySatisfying("failure",
					(failure) -> assertThat((String) failure).startsWith("The worker is PT")
						.endsWith("behind, more than the PT0.2S allowed (management.health.wheeltimer.max-tick-lag)"));
		}
		finally {
			release.countDown();
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> health().getStatus().equals(Status.UP));
		assertThat(health().getDetails()).containsEntry("tickLag", "PT0S");
	}

	private Health health() {
		return new WheelTimerHealthIndicator(this.timer, MAX_TICK_LAG).health();
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** The system clock, until a test breaks it: then the worker's next park throws. */
	private static final class FailingTicker implements Ticker {

		volatile boolean failing;

		volatile boolean parked;

		@Override
		public long nanoTime() {
			return System.nanoTime();
		}

		@Override
		public void park(long nanos) {
			if (this.failing) {
				throw new IllegalStateException("the clock broke");
			}
			this.parked = true;
			LockSupport.parkNanos(nanos);
		}

		@Override
		public void unpark(Thread thread) {
			LockSupport.unpark(thread);
		}

	}

}
