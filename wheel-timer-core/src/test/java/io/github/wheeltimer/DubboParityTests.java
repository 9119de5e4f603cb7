package io.github.wheeltimer;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/**
 * Apache Dubbo's own tests of its {@code HashedWheelTimer} (a fork of Netty's, in
 * {@code dubbo-common/src/test/java/org/apache/dubbo/common/timer/HashedWheelTimerTest.java}), run
 * against this timer: the behaviours they check, rewritten, not their code. Dubbo's three tests
 * each cover several behaviours; each is split here into tests named after them.
 *
 * <p>Dubbo's tests run on the real clock; here they run on a {@link ManualTicker}, so that what is
 * still pending stays pending until the test moves the clock.
 */
class DubboParityTests {

	private static final Duration TICK = HashedWheelTimer.DEFAULT_TICK_DURATION;

	/** Dubbo's {@code new NamedThreadFactory("dubbo-future-timeout", true)}: daemon threads of that name. */
	private static final ThreadFactory DUBBO_THREAD_FACTORY = (runnable) -> {
		Thread thread = new Thread(runnable, "dubbo-future-timeout");
		thread.setDaemon(true);
		return thread;
	};

	private final ManualTicker ticker = new ManualTicker();

	private final List<HashedWheelTimer> timers = new ArrayList<>();

	private final AtomicInteger runs = new AtomicInteger();

	private final TimerTask counting = (timeout) -> this.runs.incrementAndGet();

	@AfterEach
	void stopTimers() {
		this.timers.forEach(HashedWheelTimer::stop);
	}

	private HashedWheelTimer stoppedAfterTheTest(HashedWheelTimer timer) {
		this.timers.add(timer);
		return timer;
	}

	/** Dubbo's {@code createTaskTest} timer: 10 ms ticks, 8 buckets, at most 8 pending. */
	private HashedWheelTimer smallLimitedTimer() {
		return stoppedAfterTheTest(HashedWheelTimer.builder()
			.threadFactory(DUBBO_THREAD_FACTORY)
			.tickDuration(Duration.ofMillis(10))
			.ticksPerWheel(8)
			.maxPendingTimeouts(8)
			.ticker(this.ticker)
			.build());
	}

	private void advanceAndSettle(Duration duration) {
		this.ticker.advance(duration);
		this.ticker.awaitIdle();
	}

	// Dubbo: constructorTest
	@Test
	void constructorsTakeTheirSettingsAndRefuseTheOnesOutOfRange() {
		assertThat(new HashedWheelTimer().snapshot().tickDuration()).isEqualTo(TICK);
		assertThat(new HashedWheelTimer(100, TimeUnit.MILLISECONDS).snapshot().tickDuration())
			.isEqualTo(Duration.ofMillis(100));
		assertThat(new HashedWheelTimer(100, TimeUnit.MILLISECONDS, 8).snapshot().ticksPerWheel()).isEqualTo(8);

		// Dubbo's constructors take the thread factory, the tick and the wheel size together; ours
		// take the thread factory in the builder, which refuses null at once.
		assertThatNullPointerException().isThrownBy(() -> HashedWheelTimer.builder().threadFactory(null))
			.withMessage("threadFactory must not be null");
		assertThatNullPointerException().isThrownBy(() -> new HashedWheelTimer(100, null, 8))
			.withMessage("unit must not be null");
		assertThatExceptionOfType(InvalidTimerSettingException.class)
			.isThrownBy(() -> new HashedWheelTimer(0, TimeUnit.MILLISECONDS, 8))
			.satisfies((invalid) -> assertThat(invalid.getSetting()).isEqualTo("tickDuration"));
		assertThatExceptionOfType(InvalidTimerSettingException.class)
			.isThrownBy(() -> new HashedWheelTimer(100, TimeUnit.MILLISECONDS, 0))
			.satisfies((invalid) -> assertThat(invalid.getSetting()).isEqualTo("ticksPerWheel"));
		assertThatExceptionOfType(InvalidTimerSettingException.class)
			.isThrownBy(() -> new HashedWheelTimer(100, TimeUnit.MILLISECONDS, Integer.MAX_VALUE))
			.satisfies((invalid) -> assertThat(invalid.getSetting()).isEqualTo("ticksPerWheel"));
		// Dubbo refuses a tick of Long.MAX_VALUE ms as too long for its wheel of 8; ours too, naming
		// the wheel size, as it is their product that overflows.
		assertThatExceptionOfType(InvalidTimerSettingException.class)
			.isThrownBy(() -> new HashedWheelTimer(Long.MAX_VALUE, TimeUnit.MILLISECONDS, 8))
			.withMessageContaining("must not exceed Long.MAX_VALUE nanoseconds");
	}

	// Dubbo: constructorTest
	@Test
	void timersCostNoThreadUntilUsedAndMoreThanSixtyFourRunningWarnOncePerJvm() throws ReflectiveOperationException {
		// The second half of the original: its 128 timers "to trigger INSTANCE_COUNT_LIMIT".
		// Dubbo counts timers as they are created, and uncounts them in finalize() (its test drops
		// them behind WeakReferences and calls System.gc()). Ours counts running timers only: a timer
		// has no thread until its first timeout or start(), and stop() uncounts it.
		boolean warnedBefore = tooManyTimersWarningLogged();
		List<HashedWheelTimer> created = new ArrayList<>();
		try (CapturedLog log = new CapturedLog()) {
			for (int i = 0; i < 128; i++) {
				created.add(stoppedAfterTheTest(new HashedWheelTimer()));
			}
			assertThat(created).allSatisfy((timer) -> {
				assertThat(timer.snapshot().state()).isEqualTo(WheelSnapshot.State.INIT);
				assertThat(timer.snapshot().worker().name()).as("no thread yet").isNull();
			});
			assertThat(log.records(Level.WARNING)).as("created, not running").isEmpty();

			created.subList(0, 65).forEach(HashedWheelTimer::start);

			// The warning is logged once per JVM: another test may have run 65 timers first.
			assertThat(log.records(Level.WARNING)).hasSize(warnedBefore ? 0 : 1)
				.allSatisfy((record) -> assertThat(record.getMessage())
					.startsWith("More than 64 HashedWheelTimers are running"));
		}
		finally {
			created.forEach(HashedWheelTimer::stop);
		}
	}

	/** The once-per-JVM flag of the warning, which no public method shows. */
	private static boolean tooManyTimersWarningLogged() throws ReflectiveOperationException {
		Field field = HashedWheelTimer.class.getDeclaredField("instanceWarningLogged");
		field.setAccessible(true);
		return ((AtomicBoolean) field.get(null)).get();
	}

	// Dubbo: createTaskTest
	@Test
	void nullTaskOrUnitIsRefused() {
		HashedWheelTimer timer = smallLimitedTimer();
		assertThatNullPointerException().isThrownBy(() -> timer.newTimeout(null, 5, TimeUnit.SECONDS));
		assertThatNullPointerException().isThrownBy(() -> timer.newTimeout(this.counting, 5, null));
		assertThat(timer.pendingTimeouts()).isZero();
	}

	// Dubbo: createTaskTest
	@Test
	void aTaskThatThrowsHasStillExpiredAndCanNoLongerBeCancelled() {
		HashedWheelTimer timer = smallLimitedTimer();
		try (CapturedLog log = new CapturedLog()) {
			Timeout timeout = timer.newTimeout((t) -> {
				throw new IllegalStateException("Test");
			}, 10, TimeUnit.MILLISECONDS);

			advanceAndSettle(Duration.ofMillis(10));

			assertThat(timeout.isExpired()).isTrue();
			assertThat(timeout.cancel()).isFalse();
			assertThat(timeout.isCancelled()).isFalse();
			assertThat(timeout.toString()).contains("state: EXPIRED");
			assertThat(timeout.timer()).isSameAs(timer);
			assertThat(timer.snapshot().counters().failed()).isOne();
			assertThat(timer.snapshot().worker().name()).isEqualTo("dubbo-future-timeout");
			assertThat(log.records(Level.WARNING)).singleElement()
				.satisfies((record) -> assertThat(record.getThrown()).hasMessage("Test"));
		}
	}

	// Dubbo: createTaskTest
	@Test
	void cancelledTimeoutSaysSoAndNeverRuns() {
		HashedWheelTimer timer = smallLimitedTimer();
		Timeout timeout = timer.newTimeout(this.counting, 1000, TimeUnit.SECONDS);
		assertThat(timeout.cancel()).isTrue();
		assertThat(timeout.isCancelled()).isTrue();
		assertThat(timeout.toString()).contains("state: CANCELLED");
		this.ticker.advanceInSteps(Duration.ofMillis(100), Duration.ofMillis(10));
		assertThat(this.runs).hasValue(0);
	}

	// Dubbo: createTaskTest
	@Test
	void timeoutsDueAtOnceCountAgainstTheLimitUntilTheyRun() {
		// Dubbo keeps scheduling with a delay of -1 ms until 8 are pending, on the real clock, with a
		// task meant to block (its wait() without the monitor throws at once, in fact). On the
		// manual clock nothing runs until the tick ends, so exactly 8 fit.
		HashedWheelTimer timer = smallLimitedTimer();
		List<Timeout> timeouts = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			Timeout timeout = timer.newTimeout(this.counting, -1, TimeUnit.MILLISECONDS);
			assertThat(timeout.toString()).contains("state: PENDING");
			timeouts.add(timeout);
		}
		assertThat(timer.pendingTimeouts()).isEqualTo(8);
		assertThatExceptionOfType(RejectedExecutionException.class)
			.isThrownBy(() -> timer.newTimeout(this.counting, 1, TimeUnit.MILLISECONDS));

		advanceAndSettle(Duration.ofMillis(10));

		assertThat(timeouts).allMatch(Timeout::isExpired);
		assertThat(this.runs).hasValue(8);
		assertThat(timer.pendingTimeouts()).isZero();
		timer.newTimeout(this.counting, 1, TimeUnit.MILLISECONDS);
	}

	// Dubbo: stopTaskTest
	@Test
	void aTaskCannotStopItsOwnTimer() {
		// Dubbo's task asserts inside itself; a failed assertion there would only be logged by the
		// timer, and the test would hang on its latch. Ours hands the outcome back to the test.
		HashedWheelTimer timer = stoppedAfterTheTest(
				HashedWheelTimer.builder().threadFactory(DUBBO_THREAD_FACTORY).ticker(this.ticker).build());
		CompletableFuture<Throwable> thrown = new CompletableFuture<>();
		timer.newTimeout((timeout) -> {
			try {
				timeout.timer().stop();
				thrown.complete(null);
			}
			catch (Throwable ex) {
				thrown.complete(ex);
			}
		}, 10, TimeUnit.MILLISECONDS);

		advanceAndSettle(TICK);

		assertThat(thrown).isCompletedWithValueMatching(IllegalStateException.class::isInstance,
				"an IllegalStateException");
		assertThat(timer.snapshot().state()).isEqualTo(WheelSnapshot.State.STARTED);
	}

	// Dubbo: stopTaskTest
	@Test
	void stopCancelsTheTimeoutsStillPendingAndTheTimerRefusesNewOnes() {
		HashedWheelTimer timer = stoppedAfterTheTest(
				HashedWheelTimer.builder().threadFactory(DUBBO_THREAD_FACTORY).ticker(this.ticker).build());
		List<Timeout> timeouts = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			timeouts.add(timer.newTimeout(this.counting, 0, TimeUnit.SECONDS));
		}

		Set<Timeout> unprocessed = timer.stop();

		// Dubbo does not look at what stop() returns: on its real clock some of the eight may have
		// run already. On the manual clock the tick they are due at has not ended.
		assertThat(unprocessed).containsExactlyInAnyOrderElementsOf(timeouts).allMatch(Timeout::isCancelled);
		// Dubbo's timer.isStop().
		assertThat(timer.snapshot().state()).isEqualTo(WheelSnapshot.State.SHUTDOWN);
		assertThatIllegalStateException().isThrownBy(() -> timer.newTimeout(this.counting, 5, TimeUnit.SECONDS));
		assertThat(this.runs).hasValue(0);
	}

}
