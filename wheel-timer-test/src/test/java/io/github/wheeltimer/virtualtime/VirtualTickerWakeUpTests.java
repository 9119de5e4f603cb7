package io.github.wheeltimer.virtualtime;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.TimerTask;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The next wake-up is the end of the next tick that has a timeout due, on any timer; stepping to
 * it runs what is due there and nothing more.
 */
class VirtualTickerWakeUpTests {

	private final VirtualTicker ticker = new VirtualTicker();

	private final HashedWheelTimer timer = HashedWheelTimer.builder()
		.tickDuration(Duration.ofMillis(1))
		.ticker(this.ticker)
		.build();

	private final List<Duration> runs = new CopyOnWriteArrayList<>();

	@AfterEach
	void stopTimer() {
		this.timer.stop();
	}

	@Test
	void nothingIsPendingOnATickerWithoutTimers() {
		assertThat(this.ticker.nextWakeUp()).isEmpty();
		assertThat(this.ticker.advanceToNextWakeUp()).isZero();
		assertThat(this.ticker.elapsed()).isZero();
	}

	@Test
	void nothingIsPendingWhileTheTimerIsIdle() {
		this.timer.start();
		assertThat(this.ticker.nextWakeUp()).isEmpty();
		assertThat(this.ticker.advanceToNextWakeUp()).isZero();
		assertThat(this.ticker.elapsed()).isZero();
	}

	@Test
	void advanceToNextWakeUpMovesExactlyToTheEndOfTheTickOfTheNextTimeout() {
		this.timer.start();
		this.timer.newTimeout(record(), Duration.ofMillis(200));
		assertThat(this.ticker.nextWakeUp()).contains(Duration.ofMillis(200));

		assertThat(this.ticker.advanceToNextWakeUp()).isEqualTo(Duration.ofMillis(200));
		assertThat(this.runs).containsExactly(Duration.ofMillis(200));
		assertThat(this.ticker.nextWakeUp()).isEmpty();

		this.timer.newTimeout(record(), Duration.ofSeconds(5));
		assertThat(this.ticker.advanceToNextWakeUp()).isEqualTo(Duration.ofSeconds(5));
		assertThat(this.runs).containsExactly(Duration.ofMillis(200), Duration.ofMillis(5200));

		this.ticker.advance(Duration.ofNanos(1));
		this.timer.newTimeout(record(), Duration.ofMillis(200));
		assertThat(this.ticker.nextWakeUp()).as("the end of the tick that holds 5.4 s + 1 ns")
			.contains(Duration.ofMillis(201).minusNanos(1));
		assertThat(this.ticker.advanceToNextWakeUp()).isEqualTo(Duration.ofMillis(201).minusNanos(1));
		assertThat(this.runs).containsExactly(Duration.ofMillis(200), Duration.ofMillis(5200), Duration.ofMillis(5401));
	}

	@Test
	void nextWakeUpIsTheEarliestOfAllTheTimers() {
		HashedWheelTimer coarse = HashedWheelTimer.builder()
			.tickDuration(Duration.ofMillis(100))
			.ticker(this.ticker)
			.build();
		try {
			this.timer.newTimeout(record(), Duration.ofMillis(300));
			coarse.newTimeout(record(), Duration.ofMillis(150));
			assertThat(this.ticker.nextWakeUp()).contains(Duration.ofMillis(200));

			assertThat(this.ticker.advanceToNextWakeUp()).isEqualTo(Duration.ofMillis(200));
			assertThat(this.runs).containsExactly(Duration.ofMillis(200));
			assertThat(this.ticker.advanceToNextWakeUp()).isEqualTo(Duration.ofMillis(100));
			assertThat(this.runs).containsExactly(Duration.ofMillis(200), Duration.ofMillis(300));
			assertThat(this.ticker.advanceToNextWakeUp()).isZero();
			assertThat(this.ticker.elapsed()).isEqualTo(Duration.ofMillis(300));
		}
		finally {
			coarse.stop();
		}
	}

	private TimerTask record() {
		return (timeout) -> this.runs.add(this.ticker.elapsed());
	}

}
