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
 * Timeouts of several timers on one ticker run in the order of their ticks, whatever order they
 * were scheduled in and whichever thread scheduled them.
 */
class VirtualTickerDueOrderTests {

	private final VirtualTicker ticker = new VirtualTicker();

	private final HashedWheelTimer fine = HashedWheelTimer.builder()
		.tickDuration(Duration.ofMillis(10))
		.ticker(this.ticker)
		.build();

	private final HashedWheelTimer coarse = HashedWheelTimer.builder()
		.tickDuration(Duration.ofSeconds(1))
		.ticker(this.ticker)
		.build();

	private final List<Run> runs = new CopyOnWriteArrayList<>();

	@AfterEach
	void stopTimers() {
		this.fine.stop();
		this.coarse.stop();
	}

	@Test
	void timeoutsOfTwoTimersWithDifferentTicksRunInTheOrderTheirTicksEnd() {
		this.coarse.newTimeout(record("coarse 3200ms"), Duration.ofMillis(3200));
		this.fine.newTimeout(record("fine 3950ms"), Duration.ofMillis(3950));
		this.fine.newTimeout((timeout) -> {
			record("fine 1500ms").run(timeout);
			this.coarse.newTimeout(record("coarse 1s after 1500ms"), Duration.ofSeconds(1));
		}, Duration.ofMillis(1500));
		this.coarse.newTimeout(record("coarse 1500ms"), Duration.ofMillis(1500));
		this.fine.newTimeout(record("fine 2500ms"), Duration.ofMillis(2500));
		this.fine.newTimeout(record("fine 1234ms"), Duration.ofMillis(1234));

		this.ticker.advance(Duration.ofSeconds(5));

		// A deadline on a tick boundary runs at it; one inside a tick, at the end of that tick. So
		// "fine 2500ms" runs before "coarse 1s after 1500ms", due at the same instant.
		assertThat(this.runs).containsExactly(new Run("fine 1234ms", Duration.ofMillis(1240)),
				new Run("fine 1500ms", Duration.ofMillis(1500)), new Run("coarse 1500ms", Duration.ofMillis(2000)),
				new Run("fine 2500ms", Duration.ofMillis(2500)),
				new Run("coarse 1s after 1500ms", Duration.ofMillis(3000)),
				new Run("fine 3950ms", Duration.ofMillis(3950)), new Run("coarse 3200ms", Duration.ofMillis(4000)));
	}

	private TimerTask record(String name) {
		return (timeout) -> this.runs.add(new Run(name, this.ticker.elapsed()));
	}

	private record Run(String name, Duration at) {
	}

}
