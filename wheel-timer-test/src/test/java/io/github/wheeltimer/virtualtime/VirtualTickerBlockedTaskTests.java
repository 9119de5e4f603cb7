package io.github.wheeltimer.virtualtime;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.github.wheeltimer.HashedWheelTimer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * A task that never finishes makes the advance fail after the settle timeout, saying what is
 * stuck and where, instead of hanging the test; once released, virtual time goes on.
 */
class VirtualTickerBlockedTaskTests {

	private final VirtualTicker ticker = new VirtualTicker();

	/** Holds the blocking tasks until the test is over. */
	private final CountDownLatch release = new CountDownLatch(1);

	private final ExecutorService executor = Executors.newSingleThreadExecutor((task) -> {
		Thread thread = new Thread(task, "blocked-executor");
		thread.setDaemon(true);
		return thread;
	});

	private HashedWheelTimer timer;

	@BeforeEach
	void failFast() {
		this.ticker.setSettleTimeout(Duration.ofMillis(300));
	}

	@AfterEach
	void releaseAndStop() throws InterruptedException {
		this.release.countDown();
		if (this.timer != null) {
			this.timer.stop();
		}
		this.executor.shutdownNow();
		assertThat(this.executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void taskBlockingTheWorkerFailsTheAdvanceNamingTheWorkerAndWhereItWaits() {
		this.timer = HashedWheelTimer.builder()
			.tickDuration(Duration.ofMillis(1))
			.threadFactory((worker) -> {
				Thread thread = new Thread(worker, "blocked-worker");
				thread.setDaemon(true);
				return thread;
			})
			.ticker(this.ticker)
			.build();
		this.timer.newTimeout((timeout) -> awaitRelease(), Duration.ofSeconds(1));

		assertThatIllegalStateException().isThrownBy(() -> this.ticker.advance(Duration.ofSeconds(2)))
			.withMessageStartingWith("Virtual time is stuck at PT1S:")
			.withMessageContaining("thread \"blocked-worker\" (TIMED_WAITING) is not parked on this ticker")
			.withMessageContaining(getClass().getName() + ".awaitRelease")
			.withMessageContaining("setSettleTimeout");
		assertThat(this.ticker.elapsed()).as("where it got stuck").isEqualTo(Duration.ofSeconds(1));

		this.release.countDown();
		this.ticker.advance(Duration.ofSeconds(1));
		assertThat(this.ticker.elapsed()).isEqualTo(Duration.ofSeconds(2));
		assertThat(this.timer.counters().completed()).isEqualTo(1);
	}

	@Test
	void taskBlockingAnExecutorThreadFailsTheAdvanceSayingThatItIsStillRunning() {
		this.timer = HashedWheelTimer.builder()
			.tickDuration(Duration.ofMillis(1))
			.taskExecutor(this.executor)
			.ticker(this.ticker)
			.build();
		this.ticker.awaitTasksOf(this.timer);
		this.timer.newTimeout((timeout) -> awaitRelease(), Duration.ofSeconds(1));

		assertThatIllegalStateException().isThrownBy(() -> this.ticker.advance(Duration.ofSeconds(2)))
			.withMessageStartingWith("Virtual time is stuck at PT1S:")
			.withMessageContaining("\n - 1 task of " + this.timer.toString() + " still running");

		this.release.countDown();
		this.ticker.advance(Duration.ZERO);
		assertThat(this.timer.counters().running()).isZero();
		assertThat(this.timer.counters().completed()).isEqualTo(1);
	}

	@Test
	void registeredWorkThatStaysBusyFailsTheAdvanceWithItsOwnDescription() {
		this.ticker.awaitAlso(() -> "the outbox still holds 3 messages");
		assertThatIllegalStateException().isThrownBy(() -> this.ticker.advance(Duration.ofSeconds(2)))
			.withMessageStartingWith("Virtual time is stuck at PT0S")
			.withMessageContaining("\n - the outbox still holds 3 messages");
	}

	private void awaitRelease() throws InterruptedException {
		// Bounded all the same: a test must never hang.
		this.release.await(1, TimeUnit.MINUTES);
	}

}
