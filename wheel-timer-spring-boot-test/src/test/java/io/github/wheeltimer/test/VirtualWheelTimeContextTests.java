package io.github.wheeltimer.test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.annotation.DelayedExecution;
import io.github.wheeltimer.autoconfigure.WheelTimerAutoConfiguration;
import io.github.wheeltimer.autoconfigure.WheelTimerBuilderCustomizer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.LifecycleAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * What {@link VirtualWheelTime} does to a context: which timers it drives, which it refuses, and
 * how the context closes.
 */
class VirtualWheelTimeContextTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class,
				WheelTimerAutoConfiguration.class, VirtualWheelTimeAutoConfiguration.class));

	@Test
	void aTimerOfYourOwnFromTheBuilderBeanRunsOnTheVirtualClockWithTheProperties() {
		this.contextRunner.withUserConfiguration(OwnTimerConfiguration.class)
			.withPropertyValues("wheel-timer.tick-duration=250ms")
			.run((context) -> {
				HashedWheelTimer own = context.getBean("ownTimer", HashedWheelTimer.class);
				VirtualWheelClock clock = context.getBean(VirtualWheelClock.class);
				assertThat(own.ticker()).isSameAs(clock.ticker());
				assertThat(own.snapshot().tickDuration()).isEqualTo(Duration.ofMillis(250));
				Reminders reminders = context.getBean(Reminders.class);
				CompletableFuture<String> reminder = reminders.remind("a");
				clock.advance(Duration.ofMinutes(59));
				assertThat(reminder).isNotDone();
				clock.advance(Duration.ofMinutes(1));
				assertThat(reminder).isCompletedWithValue("reminded a");
			});
	}

	@Test
	void aCustomizerThatSetsAnotherTickerLosesToTheVirtualClock() {
		this.contextRunner
			.withBean("realTime", WheelTimerBuilderCustomizer.class,
					() -> (builder) -> builder.ticker(io.github.wheeltimer.Ticker.system()))
			.run((context) -> assertThat(context.getBean(HashedWheelTimer.class).ticker())
				.isSameAs(context.getBean(VirtualWheelClock.class).ticker()));
	}

	@Test
	void aTimerBeanOnTheRealClockFailsStartupSayingHowToBuildIt() {
		this.contextRunner.withBean("realTimer", HashedWheelTimer.class, HashedWheelTimer::new)
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("@VirtualWheelTime cannot drive timer 'realTimer': it was built with the"
						+ " system clock")
				.hasMessageContaining("HashedWheelTimer.Builder bean"));
	}

	@Test
	void closingTheContextRunsWhatFallsDueWithinEachTimersDrainInVirtualTimeAndCancelsTheRest() {
		this.contextRunner.withUserConfiguration(RemindersConfiguration.class)
			.withBean(FineReminders.class)
			.withPropertyValues("wheel-timer.shutdown.drain-timeout=2h",
					"wheel-timer.timers.fine.tick-duration=1ms", "wheel-timer.timers.fine.shutdown.drain-timeout=0s")
			.run((context) -> {
				Reminders reminders = context.getBean(Reminders.class);
				CompletableFuture<String> withinTheDrain = reminders.remind("soon");
				CompletableFuture<String> afterTheDrain = reminders.remindMuchLater("later");
				CompletableFuture<String> onAFineTimerWithoutDrain = context.getBean(FineReminders.class)
					.remindOnFine("fine");
				long realStart = System.nanoTime();
				context.close();
				assertThat(withinTheDrain).as("due within the 2 h drain").isCompletedWithValue("reminded soon");
				assertThat(afterTheDrain).as("due after the drain").isCancelled();
				assertThat(onAFineTimerWithoutDrain).as("due after the other timer's drain, and its own timer does not drain")
					.isCancelled();
				System.out.printf("closing with a 2-hour virtual drain took %d ms of real time%n",
						TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - realStart));
			});
	}

	@Test
	void aDelayedCallThatNeverFinishesDoesNotHoldTheContextsCloseForEver() {
		CountDownLatch release = new CountDownLatch(1);
		this.contextRunner.withBean(BlockingReminders.class)
			.withConfiguration(AutoConfigurations.of(LifecycleAutoConfiguration.class))
			// Not waiting the default 10 s for the executor, whose thread stays blocked too.
			.withPropertyValues("wheel-timer.shutdown.drain-timeout=1h", "wheel-timer.shutdown.await-termination=100ms",
					"spring.lifecycle.timeout-per-shutdown-phase=100ms")
			.run((context) -> {
				try {
					VirtualWheelClock clock = context.getBean(VirtualWheelClock.class);
					clock.setSettleTimeout(Duration.ofMillis(300));
					BlockingReminders reminders = context.getBean(BlockingReminders.class);
					HashedWheelTimer timer = context.getBean(HashedWheelTimer.class);
					reminders.blockUntil(release);
					CompletableFuture<String> dueInTheDrain = reminders.remind("later");
					assertThatIllegalStateException().isThrownBy(() -> clock.advance(Duration.ofSeconds(1)))
						.withMessageContaining("BlockingReminders.blockUntil(CountDownLatch) x1");
					context.close();
					assertThat(timer.snapshot().worker().alive()).isFalse();
					assertThat(dueInTheDrain).as("settled one way or the other").isDone();
				}
				finally {
					release.countDown();
				}
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class RemindersConfiguration {

		@Bean
		Reminders reminders() {
			return new Reminders();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnTimerConfiguration extends RemindersConfiguration {

		@Bean
		HashedWheelTimer ownTimer(HashedWheelTimer.Builder builder) {
			return builder.build();
		}

	}

	static class Reminders {

		@DelayedExecution(delay = 1, timeUnit = TimeUnit.HOURS)
		public CompletableFuture<String> remind(String who) {
			return CompletableFuture.completedFuture("reminded " + who);
		}

		@DelayedExecution(delay = 3, timeUnit = TimeUnit.HOURS)
		public CompletableFuture<String> remindMuchLater(String who) {
			return CompletableFuture.completedFuture("reminded " + who);
		}

	}

	static class BlockingReminders {

		@DelayedExecution(delay = 100)
		public void blockUntil(CountDownLatch release) throws InterruptedException {
			release.await(30, TimeUnit.SECONDS);
		}

		@DelayedExecution(delay = 10, timeUnit = TimeUnit.MINUTES)
		public CompletableFuture<String> remind(String who) {
			return CompletableFuture.completedFuture("reminded " + who);
		}

	}

	static class FineReminders {

		@DelayedExecution(delay = 3, timeUnit = TimeUnit.HOURS, timer = "fine")
		public CompletableFuture<String> remindOnFine(String who) {
			return CompletableFuture.completedFuture("reminded " + who);
		}

	}

}
