package io.github.wheeltimer.annotation;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.WheelSnapshot;
import io.github.wheeltimer.autoconfigure.WheelTimerAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the application is told, once, about delayed methods that work but not as one might think.
 */
@ExtendWith(OutputCaptureExtension.class)
class DelayedExecutionWarningsTests {

	private static final Duration WAIT = Duration.ofSeconds(10);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
				WheelTimerAutoConfiguration.class));

	@Test
	void aDelayShorterThanItsTimersTickIsOneWarningAtStartupNamingTheMethodTheDelayAndTheTick(CapturedOutput output) {
		this.contextRunner.withPropertyValues("wheel-timer.tick-duration=100ms")
			.withUserConfiguration(HeartbeatConfiguration.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Heartbeat heartbeat = context.getBean(Heartbeat.class);
				heartbeat.quick();
				heartbeat.quick();
				assertThat(output).containsOnlyOnce("@DelayedExecution on DelayedExecutionWarningsTests.Heartbeat.quick()"
						+ " has a delay of PT0.01S, shorter than the tick of timer 'wheelTimer' (PT0.1S): its calls will"
						+ " run up to a tick late");
			});
	}

	@Test
	void aMethodThatReArmsItselfWhileTheApplicationStopsLogsOneWarningLineAndNoError(CapturedOutput output) {
		// Real time: the close waits on the system clock for a beat held on its executor thread, as an advance would.
		this.contextRunner.withPropertyValues("wheel-timer.tick-duration=10ms")
			.withUserConfiguration(HeartbeatConfiguration.class)
			.run((context) -> {
				Heartbeat heartbeat = context.getBean(Heartbeat.class);
				HashedWheelTimer timer = context.getBean(HashedWheelTimer.class);
				heartbeat.beat();
				await().atMost(WAIT).until(() -> heartbeat.beats() >= 3);
				// Hold a beat while it runs, and let it re-arm only once the timer refuses calls.
				CountDownLatch release = new CountDownLatch(1);
				heartbeat.holdNextBeat(release);
				await().atMost(WAIT).until(heartbeat::isHeld);
				Thread releaser = new Thread(() -> {
					await().atMost(WAIT).until(() -> timer.snapshot().state() == WheelSnapshot.State.SHUTDOWN);
					release.countDown();
				});
				releaser.start();
				context.close();
				releaser.join(WAIT.toMillis());
				assertThat(output).contains("WARN")
					.contains("Delayed call to DelayedExecutionWarningsTests.Heartbeat.beat() ended early: Timer"
							+ " 'wheelTimer' refused the delayed call to DelayedExecutionWarningsTests.Heartbeat.beat():"
							+ " Cannot schedule a timeout: the timer has been stopped")
					.doesNotContain("ERROR")
					.as("no delay is shorter than the 10 ms tick")
					.doesNotContain("shorter than the tick")
					.doesNotContain("TaskRejectedException");
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class HeartbeatConfiguration {

		@Bean
		Heartbeat heartbeat(ObjectProvider<Heartbeat> self) {
			return new Heartbeat(self);
		}

	}

	static class Heartbeat {

		private final ObjectProvider<Heartbeat> self;

		private final AtomicInteger beats = new AtomicInteger();

		private volatile CountDownLatch hold = new CountDownLatch(0);

		private final CountDownLatch held = new CountDownLatch(1);

		Heartbeat(ObjectProvider<Heartbeat> self) {
			this.self = self;
		}

		/** Beats every 20 ms: each beat schedules the next one, through the proxy. */
		@DelayedExecution(delay = 20)
		public void beat() throws InterruptedException {
			this.beats.incrementAndGet();
			CountDownLatch hold = this.hold;
			if (hold.getCount() > 0) {
				this.held.countDown();
				hold.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
			}
			this.self.getObject().beat();
		}

		@DelayedExecution(delay = 10)
		public void quick() {
		}

		// Accessors, not fields: the test holds the bean's proxy, whose own fields are never set.

		public int beats() {
			return this.beats.get();
		}

		public void holdNextBeat(CountDownLatch release) {
			this.hold = release;
		}

		public boolean isHeld() {
			return this.held.getCount() == 0;
		}

	}

}
