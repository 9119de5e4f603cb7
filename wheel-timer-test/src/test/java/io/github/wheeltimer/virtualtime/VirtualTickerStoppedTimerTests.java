package io.github.wheeltimer.virtualtime;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.wheeltimer.HashedWheelTimer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The worker of a stopped timer has ended: an advance no longer waits for it.
 */
class VirtualTickerStoppedTimerTests {

	private final VirtualTicker ticker = new VirtualTicker();

	private final List<Duration> runs = new CopyOnWriteArrayList<>();

	@Test
	void advanceDoesNotWaitForTheWorkerOfAStoppedTimer() {
		HashedWheelTimer timer = newTimer();
		timer.newTimeout((timeout) -> this.runs.add(this.ticker.elapsed()), Duration.ofMinutes(1));
		timer.stop();

		this.ticker.advance(Duration.ofMinutes(2));

		assertThat(this.runs).isEmpty();
		assertThat(this.ticker.nextWakeUp()).isEmpty();
		assertThat(timer.counters().unprocessed()).isEqualTo(1);
	}

	@Test
	void timerStoppedBesideAnotherDoesNotHoldItBack() {
		HashedWheelTimer stopped = newTimer();
		HashedWheelTimer running = newTimer();
		try {
			stopped.newTimeout((timeout) -> this.runs.add(Duration.ZERO), Duration.ofSeconds(5));
			running.newTimeout((timeout) -> this.runs.add(this.ticker.elapsed()), Duration.ofSeconds(10));
			this.ticker.advance(Duration.ofSeconds(1));
			stopped.stop();

			this.ticker.advance(Duration.ofSeconds(20));

			assertThat(this.runs).containsExactly(Duration.ofSeconds(10));
		}
		finally {
			running.stop();
		}
	}

	private HashedWheelTimer newTimer() {
		return HashedWheelTimer.builder().tickDuration(Duration.ofMillis(1)).ticker(this.ticker).build();
	}

}
