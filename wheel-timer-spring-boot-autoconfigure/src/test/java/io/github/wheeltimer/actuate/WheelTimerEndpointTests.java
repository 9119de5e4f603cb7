package io.github.wheeltimer.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.VirtualTime;
import io.github.wheeltimer.WheelSnapshot;
import io.github.wheeltimer.actuate.WheelTimersDescriptor.BucketsDescriptor;
import io.github.wheeltimer.actuate.WheelTimersDescriptor.LevelDescriptor;
import io.github.wheeltimer.actuate.WheelTimersDescriptor.SlotDescriptor;
import io.github.wheeltimer.actuate.WheelTimersDescriptor.StopReportDescriptor;
import io.github.wheeltimer.actuate.WheelTimersDescriptor.WheelTimerDetailsDescriptor;
import io.github.wheeltimer.annotation.DelayedExecution;
import io.github.wheeltimer.autoconfigure.WheelTimerAutoConfiguration;
import io.github.wheeltimer.autoconfigure.WheelTimerEndpointAutoConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.core.task.TaskRejectedException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

class WheelTimerEndpointTests {

	private static final String REMINDERS = "WheelTimerEndpointTests.Reminders";

	private static final String FAILING = "WheelTimerEndpointTests.FailingReminders";

	/** The timers' tick, the default. */
	private static final Duration TICK = Duration.ofMillis(100);

	/** The delay of {@link Reminders#soon} and of {@link FailingReminders}' methods: within the first tick. */
	private static final Duration SOON = Duration.ofMillis(50);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
				WheelTimerAutoConfiguration.class, WheelTimerEndpointAutoConfiguration.class))
		.withPropertyValues("management.endpoints.web.exposure.include=wheeltimer")
		.withUserConfiguration(RemindersConfiguration.class);

	/** The timers on the tests' virtual clock: a test advances it, then asserts. */
	private final ApplicationContextRunner onVirtualTime = this.contextRunner.withUserConfiguration(VirtualTime.class);

	@Test
	void describesEveryTimerByBeanName() {
		this.contextRunner.withUserConfiguration(SecondTimerConfiguration.class).run((context) -> {
			context.getBean(Reminders.class).remindInTenMinutes("ada");
			WheelTimersDescriptor timers = context.getBean(WheelTimerEndpoint.class).timers();
			assertThat(timers.timers()).containsOnlyKeys("leasesTimer", "wheelTimer");
			WheelTimersDescriptor.WheelTimerDescriptor wheelTimer = timers.timers().get("wheelTimer");
			assertThat(wheelTimer.state()).isEqualTo("STARTED");
			assertThat(wheelTimer.tickDuration()).isEqualTo("PT0.1S");
			assertThat(wheelTimer.ticksPerWheel()).isEqualTo(512);
			assertThat(wheelTimer.pendingTimeouts()).isOne();
			assertThat(wheelTimer.maxPendingTimeouts()).isZero();
			assertThat(wheelTimer.counters()).isEqualTo(new WheelTimersDescriptor.CountersDescriptor(1, 0, 0, 0, 0, 0, 0, 0));
			assertThat(wheelTimer.tickLag()).isEqualTo("PT0S");
			assertThat(wheelTimer.meanLateness()).isEqualTo("PT0S");
			assertThat(wheelTimer.worker().name()).isEqualTo("wheel-timer");
			assertThat(wheelTimer.worker().alive()).isTrue();
			assertThat(timers.timers().get("leasesTimer").ticksPerWheel()).isEqualTo(64);
		});
	}

	@Test
	void detailsShowTheLevelsTheNextTimeoutsWithTheirMethodAndTheDelayedMethods() {
		this.contextRunner.run((context) -> {
			Reminders reminders = context.getBean(Reminders.class);
			for (int i = 0; i < 12; i++) {
				reminders.remindInTenMinutes("user-" + i);
			}
			reminders.remindInAnHour("ada");
			context.getBean(HashedWheelTimer.class).newTimeout((timeout) -> { }, Duration.ofMinutes(5));

			WheelTimerDetailsDescriptor details = context.getBean(WheelTimerEndpoint.class).timer("wheelTimer");

			assertThat(details.pendingTimeouts()).isEqualTo(14);
			List<LevelDescriptor> levels = details.levels();
			assertThat(levels.stream().mapToLong(LevelDescriptor::timeouts).sum()).isEqualTo(14);
			assertThat(levels).allSatisfy((level) -> assertThat(
					level.occupied().stream().mapToInt(SlotDescriptor::timeouts).sum())
				.as("level %d's slots add up to its timeouts", level.index())
				.isEqualTo(level.timeouts()));
			List<SlotDescriptor> buckets = levels.get(0).occupied();
			assertThat(details.buckets()).isEqualTo(new BucketsDescriptor(buckets.size(),
					buckets.stream().max(Comparator.comparingInt(SlotDescriptor::timeouts)).orElse(null)));
			// Soonest first: the plain task at 5 minutes, then nine of the ten-minute reminders.
			assertThat(details.nextTimeouts()).hasSize(WheelTimerEndpoint.NEXT_TIMEOUTS);
			WheelTimersDescriptor.NextTimeoutDescriptor first = details.nextTimeouts().get(0);
			assertThat(first.method()).isNull();
			assertThat(first.task()).startsWith(WheelTimerEndpointTests.class.getName());
			assertThat(details.nextTimeouts().subList(1, 10)).allSatisfy((next) -> {
				assertThat(next.method()).isEqualTo(REMINDERS + ".remindInTenMinutes(String)");
				assertThat(next.task()).isNull();
				assertThat(Duration.parse(next.remainingDelay())).isBetween(Duration.ofMinutes(9), Duration.ofMinutes(10));
			});
			assertThat(details.nextTimeouts()).as("in-memory calls and plain tasks have neither key nor id")
				.allSatisfy((next) -> {
					assertThat(next.key()).isNull();
					assertThat(next.callId()).isNull();
				});
			assertThat(details.delayedMethods()).containsExactly(
					new WheelTimersDescriptor.DelayedMethodDescriptor(REMINDERS + ".remindInAnHour(String)", "PT1H", 1, 0, 0, 0, null, 0, 0),
					new WheelTimersDescriptor.DelayedMethodDescriptor(REMINDERS + ".remindInTenMinutes(String)", "PT10M", 12, 0, 0, 0, null, 0, 0),
					new WheelTimersDescriptor.DelayedMethodDescriptor(REMINDERS + ".soon(String)", "PT0.05S", 0, 0, 0, 0, null, 0, 0));
		});
	}

	@Test
	void aDelayedCallCountsAsItsMethodsRunEndedOnTheExecutorNotAsItsHandOffToIt() {
		this.onVirtualTime.withUserConfiguration(FailingRemindersConfiguration.class).run((context) -> {
			FailingReminders reminders = context.getBean(FailingReminders.class);
			reminders.returns("ada");
			reminders.throwsOnTheExecutor("bob");
			CompletableFuture<String> failing = reminders.returnsAFailedFuture("cy");
			WheelTimerEndpoint endpoint = context.getBean(WheelTimerEndpoint.class);

			VirtualTime.advance(context, SOON.minusMillis(1));
			assertThat(failing).as("never early").isNotDone();
			assertThat(endpoint.timers().timers().get("wheelTimer").counters())
				.isEqualTo(new WheelTimersDescriptor.CountersDescriptor(3, 0, 0, 0, 0, 0, 0, 0));
			// Due within the first tick: run by its end.
			VirtualTime.advance(context, TICK);

			assertThat(endpoint.timers().timers().get("wheelTimer").pendingTimeouts()).isZero();
			assertThat(failing).isCompletedExceptionally();
			assertThat(endpoint.timers().timers().get("wheelTimer").counters())
				.isEqualTo(new WheelTimersDescriptor.CountersDescriptor(3, 1, 2, 0, 0, 0, 0, 0));
			assertThat(endpoint.timer("wheelTimer").delayedMethods())
				.filteredOn((method) -> method.method().startsWith(FAILING))
				.containsExactly(
					new WheelTimersDescriptor.DelayedMethodDescriptor(FAILING + ".returns(String)", "PT0.05S", 1, 1, 0, 0, null, 0, 0),
					new WheelTimersDescriptor.DelayedMethodDescriptor(FAILING + ".returnsAFailedFuture(String)", "PT0.05S",
							1, 0, 1, 0, null, 0, 0),
					new WheelTimersDescriptor.DelayedMethodDescriptor(FAILING + ".throwsOnTheExecutor(String)", "PT0.05S", 1,
							0, 1, 0, null, 0, 0));
		});
	}

	@Test
	void aDelayedCallItsExecutorRefusesCountsAsFailed() {
		this.onVirtualTime.withUserConfiguration(FailingRemindersConfiguration.class, RefusingExecutorConfiguration.class)
			.withPropertyValues("wheel-timer.executor=refusingExecutor")
			.run((context) -> {
				context.getBean(FailingReminders.class).returns("ada");
				WheelTimerEndpoint endpoint = context.getBean(WheelTimerEndpoint.class);

				VirtualTime.advance(context, SOON.minusMillis(1));
				assertThat(endpoint.timers().timers().get("wheelTimer").counters().failed()).as("never early").isZero();
				// Due within the first tick: refused by its end.
				VirtualTime.advance(context, TICK);

				assertThat(endpoint.timers().timers().get("wheelTimer").counters())
					.isEqualTo(new WheelTimersDescriptor.CountersDescriptor(1, 0, 1, 0, 0, 0, 0, 0));
				assertThat(endpoint.timer("wheelTimer").delayedMethods())
					.filteredOn((method) -> method.method().equals(FAILING + ".returns(String)"))
					.singleElement()
					.satisfies((method) -> {
						assertThat(method.failed()).isOne();
						assertThat(method.completed()).isZero();
						assertThat(method.inFlight()).isZero();
					});
			});
	}

	@Test
	void aDelayedCallCancelledWhileItWaitsForItsExecutorCountsAsWithdrawn() {
		// Real time: the held executor keeps the call in flight, which an advance of virtual time would wait for.
		this.contextRunner.withUserConfiguration(FailingRemindersConfiguration.class, HeldExecutorConfiguration.class)
			.withPropertyValues("wheel-timer.executor=heldExecutor")
			.run((context) -> {
				HeldExecutor executor = context.getBean(HeldExecutor.class);
				CompletableFuture<String> cancelled = context.getBean(FailingReminders.class).returnsAFailedFuture("ada");
				WheelTimerEndpoint endpoint = context.getBean(WheelTimerEndpoint.class);
				await().atMost(Duration.ofSeconds(10)).until(() -> executor.held() == 1);
				assertThat(endpoint.timers().timers().get("wheelTimer").counters().running()).isOne();

				cancelled.cancel(false);
				executor.release();

				assertThat(endpoint.timers().timers().get("wheelTimer").counters())
					.isEqualTo(new WheelTimersDescriptor.CountersDescriptor(1, 0, 0, 1, 0, 0, 0, 0));
			});
	}

	@Test
	void detailsListEveryLevelWithTheSlotsThatHoldTimeoutsAndTheirDurationsToTheMillisecond() {
		WheelSnapshot snapshot = snapshot(
				new WheelSnapshot.Level(0, Duration.ofMillis(100), 512, 13, 4, Duration.ofNanos(8_900_400_000L), 0,
						List.of(new WheelSnapshot.Slot(102, 3, Duration.ofNanos(8_900_400_000L)),
								new WheelSnapshot.Slot(200, 1, Duration.ofMillis(18_700)))),
				new WheelSnapshot.Level(1, Duration.ofMillis(51_200), 64, 2, 5, Duration.ofMillis(1_799_600), 7,
						List.of(new WheelSnapshot.Slot(37, 5, Duration.ofMillis(1_799_600)))),
				new WheelSnapshot.Level(2, Duration.ofMillis(3_276_800), 64, 0, 0, null, 0, List.of()));

		WheelTimerDetailsDescriptor details = WheelTimerDetailsDescriptor.of(snapshot, List.of(), List.of());

		assertThat(details.hand()).isEqualTo(13);
		assertThat(details.buckets()).isEqualTo(new BucketsDescriptor(2, new SlotDescriptor(102, 3, "PT8.9S")));
		assertThat(details.levels()).containsExactly(
				new LevelDescriptor(0, "PT0.1S", 512, 13, 4, "PT8.9S", 0,
						List.of(new SlotDescriptor(102, 3, "PT8.9S"), new SlotDescriptor(200, 1, "PT18.7S"))),
				new LevelDescriptor(1, "PT51.2S", 64, 2, 5, "PT29M59.6S", 7, List.of(new SlotDescriptor(37, 5, "PT29M59.6S"))),
				new LevelDescriptor(2, "PT54M36.8S", 64, 0, 0, null, 0, List.of()));
	}

	@Test
	void aLevelListsAtMostTheFirst4096OccupiedSlotsButCountsThemAll() {
		List<WheelSnapshot.Slot> buckets = IntStream.range(0, 5000)
			.mapToObj((index) -> new WheelSnapshot.Slot(index, (index == 4500) ? 2 : 1, Duration.ofMillis(index * 100L)))
			.toList();
		WheelSnapshot snapshot = snapshot(
				new WheelSnapshot.Level(0, Duration.ofMillis(100), 8192, 0, 5001, Duration.ZERO, 0, buckets));

		WheelTimerDetailsDescriptor details = WheelTimerDetailsDescriptor.of(snapshot, List.of(), List.of());

		assertThat(details.levels().get(0).occupied()).hasSize(WheelTimerEndpoint.MAX_LISTED_SLOTS)
			.last()
			.isEqualTo(new SlotDescriptor(4095, 1, "PT6M49.5S"));
		assertThat(details.buckets()).isEqualTo(new BucketsDescriptor(5000, new SlotDescriptor(4500, 2, "PT7M30S")));
	}

	private static WheelSnapshot snapshot(WheelSnapshot.Level... levels) {
		WheelSnapshot.Level level0 = levels[0];
		long pending = Arrays.stream(levels).mapToLong(WheelSnapshot.Level::timeouts).sum();
		return new WheelSnapshot(WheelSnapshot.State.STARTED, level0.slotSpan(), level0.slots(), level0.hand(), pending,
				0, new WheelSnapshot.Counters(pending, 0, 0, 0, 0, 0, 0, 0, Duration.ZERO), Duration.ZERO, Duration.ZERO,
				List.of(levels), new WheelSnapshot.Worker("wheel-timer", true, null));
	}

	@Test
	void anUnknownTimerIsNull() {
		this.contextRunner.run((context) -> {
			WheelTimerEndpoint endpoint = context.getBean(WheelTimerEndpoint.class);
			assertThat(endpoint.timer("nope")).isNull();
			assertThat(endpoint.stop("nope", null)).isNull();
		});
	}

	@Test
	void nextTimeoutsAreLeftOutWhenTheWorkerIsTooBusyToAnswer() {
		// Real time: the task blocks the worker, which an advance of virtual time would wait for.
		this.contextRunner.run((context) -> {
			HashedWheelTimer timer = context.getBean(HashedWheelTimer.class);
			CountDownLatch release = new CountDownLatch(1);
			// A plain task runs on the worker thread: while it blocks, nobody walks the wheel.
			timer.newTimeout((timeout) -> release.await(), Duration.ZERO);
			await().atMost(Duration.ofSeconds(10)).until(() -> timer.counters().running() == 1);
			try {
				WheelTimerDetailsDescriptor details = context.getBean(WheelTimerEndpoint.class).timer("wheelTimer");
				assertThat(details.nextTimeouts()).isNull();
				assertThat(details.counters().running()).isOne();
			}
			finally {
				release.countDown();
			}
		});
	}

	@Test
	void stopReportsWhatWasLeftCancelsTheirFuturesAndLaterCallsAreRefused() {
		this.contextRunner.run((context) -> {
			Reminders reminders = context.getBean(Reminders.class);
			List<CompletableFuture<String>> futures = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				futures.add(reminders.remindInTenMinutes("user-" + i));
			}
			reminders.remindInAnHour("ada");

			StopReportDescriptor report = context.getBean(WheelTimerEndpoint.class).stop("wheelTimer", null);

			assertThat(report.timer()).isEqualTo("wheelTimer");
			assertThat(report.state()).isEqualTo("SHUTDOWN");
			assertThat(report.alreadyStopped()).isFalse();
			assertThat(report.drainTimeout()).isEqualTo("PT0S");
			assertThat(report.firedDuringDrain()).isZero();
			assertThat(report.unprocessed()).isEqualTo(4);
			assertThat(report.unprocessedByMethod()).containsExactly(
					entry(REMINDERS + ".remindInTenMinutes(String)", 3), entry(REMINDERS + ".remindInAnHour(String)", 1));
			assertThat(futures).allSatisfy((future) -> assertThat(future).isCancelled());
			assertThatExceptionOfType(TaskRejectedException.class).isThrownBy(() -> reminders.remindInTenMinutes("late"))
				.withMessage("Timer 'wheelTimer' refused the delayed call to " + REMINDERS + ".remindInTenMinutes(String):"
						+ " Cannot schedule a timeout: the timer has been stopped");

			StopReportDescriptor again = context.getBean(WheelTimerEndpoint.class).stop("wheelTimer", null);
			assertThat(again.alreadyStopped()).isTrue();
			assertThat(again.unprocessed()).isZero();
		});
	}

	@Test
	void stopDrainsTheCallsThatFallDueWithinTheDrainTimeoutAndNoLonger() {
		// Real time: the drain runs on the timer's clock, which nobody would advance while stop() waits for it.
		this.contextRunner.withPropertyValues("wheel-timer.shutdown.drain-timeout=30s").run((context) -> {
			Reminders reminders = context.getBean(Reminders.class);
			for (int i = 0; i < 3; i++) {
				reminders.soon("user-" + i);
			}
			reminders.remindInAnHour("ada");

			// No drain given: the configured one, which ends once nothing more falls due in it.
			StopReportDescriptor report = context.getBean(WheelTimerEndpoint.class).stop("wheelTimer", null);

			assertThat(report.drainTimeout()).isEqualTo("PT30S");
			assertThat(report.firedDuringDrain()).isEqualTo(3);
			assertThat(Duration.parse(report.took())).isLessThan(Duration.ofSeconds(30));
			assertThat(report.unprocessedByMethod()).containsExactly(entry(REMINDERS + ".remindInAnHour(String)", 1));
			await().atMost(Duration.ofSeconds(10)).until(() -> context.getBean(Reminders.class).soonRuns() == 3);
		});
	}

	@Test
	void aNegativeDrainTimeoutIsABadRequestAndStopsNothing() {
		this.contextRunner.run((context) -> {
			WheelTimerEndpoint endpoint = context.getBean(WheelTimerEndpoint.class);
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.stop("wheelTimer", Duration.ofSeconds(-1)))
				.satisfies((ex) -> assertThat(ex.getReason())
					.isEqualTo("Invalid drainTimeout 'PT-1S': it must be zero or positive, such as \"PT5S\""));
			assertThat(endpoint.timers().timers().get("wheelTimer").state()).isEqualTo("STARTED");
		});
	}

	private static java.util.Map.Entry<String, Integer> entry(String key, int value) {
		return java.util.Map.entry(key, value);
	}

	@Configuration(proxyBeanMethods = false)
	static class RemindersConfiguration {

		@Bean
		Reminders reminders() {
			return new Reminders();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FailingRemindersConfiguration {

		@Bean
		FailingReminders failingReminders() {
			return new FailingReminders();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class RefusingExecutorConfiguration {

		@Bean
		Executor refusingExecutor() {
			return (task) -> {
				throw new RejectedExecutionException("refusing on purpose");
			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class HeldExecutorConfiguration {

		@Bean
		HeldExecutor heldExecutor() {
			return new HeldExecutor();
		}

	}

	/** Runs nothing until released, on the releasing thread: a call waits in it meanwhile. */
	static class HeldExecutor implements Executor {

		private final Queue<Runnable> held = new ConcurrentLinkedQueue<>();

		@Override
		public void execute(Runnable command) {
			this.held.add(command);
		}

		int held() {
			return this.held.size();
		}

		void release() {
			for (Runnable command = this.held.poll(); command != null; command = this.held.poll()) {
				command.run();
			}
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SecondTimerConfiguration {

		@Bean
		@Primary
		HashedWheelTimer wheelTimer() {
			return HashedWheelTimer.builder().threadFactory((runnable) -> new Thread(runnable, "wheel-timer")).build();
		}

		@Bean
		HashedWheelTimer leasesTimer() {
			return HashedWheelTimer.builder().ticksPerWheel(64).build();
		}

	}

	static class FailingReminders {

		@DelayedExecution(delay = 50)
		public void returns(String who) {
		}

		@DelayedExecution(delay = 50)
		public void throwsOnTheExecutor(String who) {
			throw new IllegalStateException("no reminder for " + who);
		}

		@DelayedExecution(delay = 50)
		public CompletableFuture<String> returnsAFailedFuture(String who) {
			return CompletableFuture.failedFuture(new IllegalStateException("no reminder for " + who));
		}

	}

	static class Reminders {

		private final AtomicInteger soonRuns = new AtomicInteger();

		@DelayedExecution(delayString = "10m")
		public CompletableFuture<String> remindInTenMinutes(String who) {
			return CompletableFuture.completedFuture(who);
		}

		@DelayedExecution(delay = 1, timeUnit = TimeUnit.HOURS)
		public void remindInAnHour(String who) {
		}

		@DelayedExecution(delay = 50)
		public void soon(String who) {
			this.soonRuns.incrementAndGet();
		}

		public int soonRuns() {
			return this.soonRuns.get();
		}

	}

}
