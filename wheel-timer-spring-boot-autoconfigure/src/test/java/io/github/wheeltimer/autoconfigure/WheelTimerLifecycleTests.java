package io.github.wheeltimer.autoconfigure;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.WheelSnapshot;
import io.github.wheeltimer.annotation.DelayedExecution;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** What happens to delayed calls when the application context closes. */
@ExtendWith(OutputCaptureExtension.class)
class WheelTimerLifecycleTests {

	private static final Duration WAIT = Duration.ofSeconds(10);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
				WheelTimerAutoConfiguration.class))
		.withPropertyValues("wheel-timer.tick-duration=10ms")
		.withBean(Reminders.class);

	@Test
	void closingTheContextReportsPendingCallsByMethodAndCancelsTheirFutures(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			Reminders reminders = context.getBean(Reminders.class);
			HashedWheelTimer timer = context.getBean(HashedWheelTimer.class);
			CompletableFuture<String> first = reminders.remindInAnHour("order-1");
			CompletableFuture<String> second = reminders.remindInAnHour("order-2");
			reminders.expireInAnHour("lease-1");
			context.close();
			assertThat(first).as("no caller waits forever").isCancelled();
			assertThat(second).isCancelled();
			assertThat(timer.snapshot().state()).isEqualTo(WheelSnapshot.State.SHUTDOWN);
			assertThat(output).contains("WARN")
				.contains("Timer 'wheelTimer' stopped with 3 delayed calls that never ran (their futures are"
						+ " cancelled): WheelTimerLifecycleTests.Reminders.remindInAnHour(String) x2,"
						+ " WheelTimerLifecycleTests.Reminders.expireInAnHour(String) x1");
		});
	}

	@Test
	void callsDueWithinTheDrainTimeoutStillRunOnTheApplicationTaskExecutor(CapturedOutput output) {
		this.contextRunner.withPropertyValues("wheel-timer.shutdown.drain-timeout=5s").run((context) -> {
			Reminders reminders = context.getBean(Reminders.class);
			CompletableFuture<String> soon = reminders.remindSoon("order-3");
			CompletableFuture<String> late = reminders.remindInAnHour("order-4");
			context.close();
			assertThat(soon).as("ran during the drain, although the context was closing")
				.isCompletedWithValueMatching((value) -> value.startsWith("order-3 reminded on task-"));
			assertThat(late).isCancelled();
			assertThat(output).contains("stopped with 1 delayed call that never ran")
				.contains("remindInAnHour(String) x1");
		});
	}

	@Test
	void withoutADrainCallsNotYetDueDoNotRunAfterClose() {
		this.contextRunner.run((context) -> {
			// Due well after the close, however slowly a loaded machine gets to it.
			CompletableFuture<String> shortly = context.getBean(Reminders.class).remindShortly("order-5");
			context.close();
			assertThat(shortly).isCancelled();
		});
	}

	@Test
	void closingWaitsForDelayedMethodsThatAreAlreadyRunning() {
		this.contextRunner.run((context) -> {
			Reminders reminders = context.getBean(Reminders.class);
			HashedWheelTimer timer = context.getBean(HashedWheelTimer.class);
			CountDownLatch release = new CountDownLatch(1);
			reminders.blockUntil(release);
			await().atMost(WAIT).until(reminders::isBlocked);
			// Released once the close is under way: the timer has stopped, the method still runs.
			Thread releaser = new Thread(() -> {
				await().atMost(WAIT).until(() -> timer.snapshot().state() == WheelSnapshot.State.SHUTDOWN);
				release.countDown();
			});
			releaser.start();
			context.close();
			assertThat(reminders.finishedBlocking()).as("close returned after the running method finished").isTrue();
			releaser.join(WAIT.toMillis());
		});
	}

	@Test
	void theWaitForRunningMethodsIsBoundedAndTheStragglersAreLogged(CapturedOutput output) {
		this.contextRunner.withPropertyValues("wheel-timer.shutdown.await-termination=200ms").run((context) -> {
			Reminders reminders = context.getBean(Reminders.class);
			CountDownLatch release = new CountDownLatch(1);
			try {
				reminders.blockUntil(release);
				await().atMost(WAIT).until(reminders::isBlocked);
				context.close();
				assertThat(reminders.finishedBlocking()).isFalse();
				assertThat(output).contains("Delayed methods still running after waiting for them"
						+ " (wheel-timer.shutdown.await-termination of their timer):"
						+ " WheelTimerLifecycleTests.Reminders.blockUntil(CountDownLatch) x1 after 200ms");
			}
			finally {
				release.countDown();
			}
		});
	}

	@Test
	void aUserDefinedHashedWheelTimerIsStoppedGracefullyToo(CapturedOutput output) {
		this.contextRunner.withBean("ordersTimer", HashedWheelTimer.class, HashedWheelTimer::new).run((context) -> {
			HashedWheelTimer timer = context.getBean("ordersTimer", HashedWheelTimer.class);
			assertThat(timer.snapshot().state()).as("started with the context").isEqualTo(WheelSnapshot.State.STARTED);
			timer.newTimeout((timeout) -> {
			}, 1, TimeUnit.HOURS);
			context.close();
			assertThat(timer.snapshot().state()).isEqualTo(WheelSnapshot.State.SHUTDOWN);
			assertThat(output).contains("Timer 'ordersTimer' stopped with 1 delayed call that never ran")
				.contains("WheelTimerLifecycleTests");
		});
	}

	static class Reminders {

		private final AtomicBoolean blocked = new AtomicBoolean();

		private final AtomicBoolean finished = new AtomicBoolean();

		@DelayedExecution(delay = 1, timeUnit = TimeUnit.HOURS)
		public CompletableFuture<String> remindInAnHour(String orderId) {
			return CompletableFuture.completedFuture(orderId + " reminded");
		}

		@DelayedExecution(delay = 1, timeUnit = TimeUnit.HOURS)
		public void expireInAnHour(String leaseId) {
		}

		@DelayedExecution(delay = 300)
		public CompletableFuture<String> remindSoon(String orderId) {
			return CompletableFuture.completedFuture(orderId + " reminded on " + Thread.currentThread().getName());
		}

		@DelayedExecution(delay = 5, timeUnit = TimeUnit.SECONDS)
		public CompletableFuture<String> remindShortly(String orderId) {
			return CompletableFuture.completedFuture(orderId + " reminded");
		}

		@DelayedExecution(delay = 0)
		public void blockUntil(CountDownLatch release) throws InterruptedException {
			this.blocked.set(true);
			release.await(30, TimeUnit.SECONDS);
			this.finished.set(true);
		}

		public boolean isBlocked() {
			return this.blocked.get();
		}

		public boolean finishedBlocking() {
			return this.finished.get();
		}

	}

}
