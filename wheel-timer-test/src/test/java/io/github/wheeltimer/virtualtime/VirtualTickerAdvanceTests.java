package io.github.wheeltimer.virtualtime;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.Timeout;
import io.github.wheeltimer.TimerTask;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An advance returns once everything that fell due in it has run, each task at the virtual time
 * of its tick, including what tasks scheduled along the way.
 */
class VirtualTickerAdvanceTests {

	private static final Duration TICK = Duration.ofMillis(1);

	private final VirtualTicker ticker = new VirtualTicker();

	private final HashedWheelTimer timer = HashedWheelTimer.builder().tickDuration(TICK).ticker(this.ticker).build();

	/** The virtual time at which each task ran. */
	private final List<Duration> runs = new CopyOnWriteArrayList<>();

	@AfterEach
	void stopTimer() {
		this.timer.stop();
	}

	@Test
	void timeoutRunsOnceExactlyAtItsDeadlineAndNeverBefore() {
		Duration deadline = Duration.ofMinutes(30);
		long realStart = System.nanoTime();
		this.timer.newTimeout((timeout) -> this.runs.add(this.ticker.elapsed()), deadline);

		this.ticker.advance(deadline.minusNanos(1));
		assertThat(this.runs).as("runs 1 ns before the deadline").isEmpty();
		this.ticker.advance(Duration.ofNanos(1));
		long realMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - realStart);

		assertThat(this.runs).as("runs, right after the advance that reached the deadline")
			.containsExactly(deadline);
		assertThat(this.timer.counters().completed()).isEqualTo(1);
		System.out.println("30 minutes of virtual time at a 1 ms tick took " + realMillis + " ms of real time");
		this.ticker.advance(Duration.ofHours(1));
		assertThat(this.runs).hasSize(1);
	}

	@Test
	void timeoutDueOnATickBoundaryRunsAtThatBoundaryNotATickLater() {
		HashedWheelTimer coarse = HashedWheelTimer.builder()
			.tickDuration(Duration.ofMillis(100))
			.ticker(this.ticker)
			.build();
		try {
			coarse.newTimeout((timeout) -> this.runs.add(this.ticker.elapsed()), Duration.ofMinutes(30));
			this.ticker.advance(Duration.ofMinutes(30).minusNanos(1));
			assertThat(this.runs).as("runs 1 ns before the deadline").isEmpty();
			this.ticker.advance(Duration.ofNanos(1));
			assertThat(this.runs).containsExactly(Duration.ofMinutes(30));
			this.ticker.advance(Duration.ofMillis(100));
			assertThat(this.runs).as("runs once").hasSize(1);
		}
		finally {
			coarse.stop();
		}
	}

	@Test
	void timeoutDueJustPastATickBoundaryHasNotRunAtItsDeadlineUntilItsTickIsOver() {
		HashedWheelTimer coarse = HashedWheelTimer.builder()
			.tickDuration(Duration.ofMillis(100))
			.ticker(this.ticker)
			.build();
		try {
			Duration deadline = Duration.ofMinutes(30).plusNanos(1);
			coarse.newTimeout((timeout) -> this.runs.add(this.ticker.elapsed()), deadline);
			this.ticker.advance(deadline);
			assertThat(this.runs).as("runs at the deadline, inside its tick").isEmpty();
			this.ticker.advance(Duration.ofMillis(100).minusNanos(2));
			assertThat(this.runs).as("runs 1 ns before its tick ends").isEmpty();
			this.ticker.advance(Duration.ofNanos(1));
			assertThat(this.runs).containsExactly(Duration.ofMinutes(30).plusMillis(100));
		}
		finally {
			coarse.stop();
		}
	}

	@Test
	void taskThatSchedulesItselfAgainEveryMinuteRunsThirtyTimesInThirtyMinutesEachAtItsOwnMinute() {
		this.timer.newTimeout((timeout) -> {
			this.runs.add(this.ticker.elapsed());
			timeout.timer().newTimeout(timeout.task(), Duration.ofMinutes(1));
		}, Duration.ofMinutes(1));

		this.ticker.advance(Duration.ofMinutes(30));

		assertThat(this.runs).hasSize(30);
		for (int i = 0; i < 30; i++) {
			// Each run is on time, at a boundary, so the next minute counts from it: no drift.
			assertThat(this.runs.get(i)).isEqualTo(Duration.ofMinutes(i + 1));
		}
	}

	@Test
	void advanceByZeroRunsWhatIsDueNowWithoutMovingTheClock() {
		this.ticker.advance(Duration.ofSeconds(5));
		this.timer.newTimeout((timeout) -> this.runs.add(this.ticker.elapsed()), Duration.ofSeconds(1));
		this.ticker.advance(Duration.ofSeconds(1).minusNanos(1));
		assertThat(this.runs).isEmpty();
		this.ticker.advance(Duration.ofNanos(1));
		this.ticker.advance(Duration.ZERO);
		assertThat(this.runs).containsExactly(Duration.ofSeconds(6));
		assertThat(this.ticker.elapsed()).isEqualTo(Duration.ofSeconds(6));

		this.timer.newTimeout((timeout) -> this.runs.add(this.ticker.elapsed()), Duration.ZERO);
		this.ticker.advance(Duration.ZERO);
		assertThat(this.runs).as("a zero delay is due just after now: at the end of the tick that starts now")
			.containsExactly(Duration.ofSeconds(6));
		assertThat(this.ticker.elapsed()).isEqualTo(Duration.ofSeconds(6));
		this.ticker.advance(TICK);
		assertThat(this.runs).containsExactly(Duration.ofSeconds(6), Duration.ofSeconds(6).plus(TICK));
	}

	@Test
	void aTaskThatReArmsItselfWithNoDelayRunsOncePerTickNotForEverAtTheSameInstant() {
		this.timer.newTimeout(new TimerTask() {

			@Override
			public void run(Timeout timeout) {
				VirtualTickerAdvanceTests.this.runs.add(VirtualTickerAdvanceTests.this.ticker.elapsed());
				timeout.timer().newTimeout(this, Duration.ZERO);
			}

		}, Duration.ZERO);
		this.ticker.advance(TICK.multipliedBy(5));
		assertThat(this.runs).containsExactly(TICK, TICK.multipliedBy(2), TICK.multipliedBy(3),
				TICK.multipliedBy(4), TICK.multipliedBy(5));
	}

	@Test
	void clockReadsTheVirtualTimeElapsedSinceTheTickerWasCreated() {
		assertThat(this.ticker.nanoTime()).isZero();
		this.ticker.advance(Duration.ofHours(2));
		this.ticker.advance(Duration.ofNanos(7));
		assertThat(this.ticker.elapsed()).isEqualTo(Duration.ofHours(2).plusNanos(7));
		assertThat(this.ticker.nanoTime()).isEqualTo(Duration.ofHours(2).plusNanos(7).toNanos());
		assertThat(this.ticker).hasToString("VirtualTicker(PT2H0.000000007S elapsed)");
	}

}
