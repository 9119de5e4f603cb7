package io.github.wheeltimer;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

class HashedWheelTimerArgumentTests {

	@Test
	void defaultsAreAHundredMillisecondTickAndFiveHundredTwelveBuckets() {
		WheelSnapshot snapshot = new HashedWheelTimer().snapshot();
		assertThat(snapshot.tickDuration()).isEqualTo(Duration.ofMillis(100));
		assertThat(snapshot.ticksPerWheel()).isEqualTo(512);
		assertThat(snapshot.maxPendingTimeouts()).isZero();
		assertThat(snapshot.state()).isEqualTo(WheelSnapshot.State.INIT);
	}

	@Test
	void constructorsTakeTickDurationAndWheelSize() {
		assertThat(new HashedWheelTimer(20, TimeUnit.MILLISECONDS).snapshot().tickDuration())
			.isEqualTo(Duration.ofMillis(20));
		WheelSnapshot snapshot = new HashedWheelTimer(1, TimeUnit.SECONDS, 60).snapshot();
		assertThat(snapshot.tickDuration()).isEqualTo(Duration.ofSeconds(1));
		assertThat(snapshot.ticksPerWheel()).isEqualTo(64);
	}

	@ParameterizedTest
	@CsvSource({ "1, 1", "2, 2", "3, 4", "100, 128", "512, 512", "513, 1024", "1000000, 1048576" })
	void ticksPerWheelIsRoundedUpToAPowerOfTwo(int requested, int actual) {
		assertThat(HashedWheelTimer.builder().ticksPerWheel(requested).build().snapshot().ticksPerWheel())
			.isEqualTo(actual);
	}

	@ParameterizedTest
	@CsvSource({ "0", "-1", "1073741825", "2147483647" })
	void ticksPerWheelOutOfRangeIsRefused(int ticksPerWheel) {
		assertThatExceptionOfType(InvalidTimerSettingException.class)
			.isThrownBy(() -> HashedWheelTimer.builder().ticksPerWheel(ticksPerWheel).build())
			.withMessage("ticksPerWheel must be from 1 to 1073741824 (2^30), was " + ticksPerWheel)
			.satisfies((invalid) -> {
				assertThat(invalid.getSetting()).isEqualTo("ticksPerWheel");
				assertThat(invalid.getValue()).isEqualTo(ticksPerWheel);
				assertThat(invalid.getReason()).isEqualTo("must be from 1 to 1073741824 (2^30)");
			});
	}

	@Test
	void tickShorterThanOneMillisecondIsRefusedNotRoundedUp() {
		assertThatExceptionOfType(InvalidTimerSettingException.class)
			.isThrownBy(() -> HashedWheelTimer.builder().tickDuration(Duration.ofNanos(999_999)).build())
			.withMessage("tickDuration must be at least 1ms, was PT0.000999999S")
			.satisfies((invalid) -> assertThat(invalid.getSetting()).isEqualTo("tickDuration"));
		assertThatIllegalArgumentException().isThrownBy(() -> new HashedWheelTimer(500, TimeUnit.MICROSECONDS))
			.withMessageContaining("tickDuration must be at least 1ms");
		assertThatIllegalArgumentException().isThrownBy(() -> new HashedWheelTimer(0, TimeUnit.MILLISECONDS))
			.withMessageContaining("was PT0S");
		assertThatIllegalArgumentException().isThrownBy(() -> new HashedWheelTimer(-1, TimeUnit.SECONDS))
			.withMessageContaining("was PT-1S");
	}

	@Test
	void oneMillisecondTickIsAccepted() {
		assertThat(new HashedWheelTimer(1, TimeUnit.MILLISECONDS).snapshot().tickDuration())
			.isEqualTo(Duration.ofMillis(1));
	}

	@Test
	void tickTimesWheelSizeThatOverflowsIsRefused() {
		assertThatExceptionOfType(InvalidTimerSettingException.class)
			.isThrownBy(() -> HashedWheelTimer.builder().tickDuration(Duration.ofHours(3)).ticksPerWheel(1_000_000).build())
			.withMessage("ticksPerWheel (rounded up to 1048576) times tickDuration (PT3H) must not exceed"
					+ " Long.MAX_VALUE nanoseconds (about 292 years), was 1000000")
			.satisfies((invalid) -> assertThat(invalid.getSetting()).isEqualTo("ticksPerWheel"));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> HashedWheelTimer.builder().tickDuration(Duration.ofDays(365L * 300)).build())
			.withMessageContaining("tickDuration");
	}

	@Test
	void validateRefusesWhatBuildRefusesWithoutBuildingATimer() {
		assertThatExceptionOfType(InvalidTimerSettingException.class)
			.isThrownBy(() -> HashedWheelTimer.builder().tickDuration(Duration.ofNanos(500_000)).validate())
			.withMessage("tickDuration must be at least 1ms, was PT0.0005S");
		assertThatExceptionOfType(InvalidTimerSettingException.class)
			.isThrownBy(() -> HashedWheelTimer.builder().ticksPerWheel(0).validate())
			.satisfies((invalid) -> assertThat(invalid.getSetting()).isEqualTo("ticksPerWheel"));
		assertThatExceptionOfType(InvalidTimerSettingException.class)
			.isThrownBy(() -> HashedWheelTimer.builder().tickDuration(Duration.ofHours(3)).ticksPerWheel(1_000_000).validate())
			.withMessageContaining("must not exceed Long.MAX_VALUE nanoseconds");
		HashedWheelTimer.Builder fine = HashedWheelTimer.builder().tickDuration(Duration.ofMillis(1)).ticksPerWheel(1 << 30);
		assertThat(fine.validate()).isSameAs(fine);
	}

	@Test
	void nullArgumentsAreNamed() {
		HashedWheelTimer timer = new HashedWheelTimer();
		assertThatNullPointerException().isThrownBy(() -> timer.newTimeout(null, 1, TimeUnit.SECONDS))
			.withMessage("task must not be null");
		assertThatNullPointerException().isThrownBy(() -> timer.newTimeout((t) -> { }, 1, null))
			.withMessage("unit must not be null");
		assertThatNullPointerException().isThrownBy(() -> timer.newTimeout((t) -> { }, null))
			.withMessage("delay must not be null");
		assertThatNullPointerException().isThrownBy(() -> new HashedWheelTimer(1, null))
			.withMessage("unit must not be null");
		assertThatNullPointerException().isThrownBy(() -> HashedWheelTimer.builder().tickDuration(null))
			.withMessage("tickDuration must not be null");
		assertThatNullPointerException().isThrownBy(() -> HashedWheelTimer.builder().threadFactory(null))
			.withMessage("threadFactory must not be null");
		assertThatNullPointerException().isThrownBy(() -> HashedWheelTimer.builder().taskExecutor(null))
			.withMessage("taskExecutor must not be null");
		assertThatNullPointerException().isThrownBy(() -> HashedWheelTimer.builder().ticker(null))
			.withMessage("ticker must not be null");
		assertThatNullPointerException().isThrownBy(() -> timer.stopGracefully(null))
			.withMessage("drainTimeout must not be null");
		assertThat(timer.snapshot().state()).isEqualTo(WheelSnapshot.State.INIT);
	}

	@Test
	void negativeDrainTimeoutIsRefused() {
		HashedWheelTimer timer = new HashedWheelTimer();
		assertThatIllegalArgumentException().isThrownBy(() -> timer.stopGracefully(Duration.ofSeconds(-1)))
			.withMessage("drainTimeout must not be negative, was PT-1S");
		assertThat(timer.snapshot().state()).isEqualTo(WheelSnapshot.State.INIT);
	}

	@Test
	void zeroOrNegativeMaxPendingTimeoutsMeansNoLimit() {
		assertThat(HashedWheelTimer.builder().maxPendingTimeouts(-5).build().snapshot().maxPendingTimeouts()).isZero();
		assertThat(HashedWheelTimer.builder().maxPendingTimeouts(7).build().snapshot().maxPendingTimeouts()).isEqualTo(7);
	}

	@Test
	void theTimerKeepsItsTickerAndTellsItWhichThreadIsTheWorkerOnceStarted() {
		List<Thread> attached = new CopyOnWriteArrayList<>();
		Ticker ticker = new Ticker() {

			@Override
			public long nanoTime() {
				return System.nanoTime();
			}

			@Override
			public void park(long nanos) {
				Ticker.system().park(nanos);
			}

			@Override
			public void unpark(Thread thread) {
				Ticker.system().unpark(thread);
			}

			@Override
			public void attach(Thread worker) {
				attached.add(worker);
			}

		};
		HashedWheelTimer timer = HashedWheelTimer.builder()
			.ticker(ticker)
			.threadFactory((runnable) -> new Thread(runnable, "attached-worker"))
			.build();
		try {
			assertThat(timer.ticker()).isSameAs(ticker);
			assertThat(attached).as("nothing started yet").isEmpty();
			timer.start();
			assertThat(attached).singleElement().extracting(Thread::getName).isEqualTo("attached-worker");
			timer.start();
			assertThat(attached).as("once per timer").hasSize(1);
		}
		finally {
			timer.stop();
		}
		assertThat(new HashedWheelTimer().ticker()).isSameAs(Ticker.system());
	}

}
