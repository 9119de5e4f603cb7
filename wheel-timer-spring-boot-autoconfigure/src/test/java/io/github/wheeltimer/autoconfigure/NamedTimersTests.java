package io.github.wheeltimer.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.Ticker;
import io.github.wheeltimer.WheelSnapshot;
import io.github.wheeltimer.annotation.DelayedExecution;
import io.github.wheeltimer.annotation.DelayedMethod;
import io.github.wheeltimer.annotation.DelayedMethodRegistry;
import io.github.wheeltimer.annotation.InvalidDelayedExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

import static io.github.wheeltimer.autoconfigure.InvalidPropertyFailures.failsWith;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Timers from {@code wheel-timer.timers}: beans of their names beside {@code wheelTimer}, with
 * their own settings or the default timer's, used by the methods that name them.
 */
class NamedTimersTests {

	private static final Duration WAIT = Duration.ofSeconds(10);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
				WheelTimerAutoConfiguration.class))
		.withPropertyValues("wheel-timer.tick-duration=50ms", "wheel-timer.ticks-per-wheel=64",
				"wheel-timer.max-pending-timeouts=1000", "wheel-timer.timers.requests.tick-duration=1ms",
				"wheel-timer.timers.requests.ticks-per-wheel=1024", "wheel-timer.timers.expiry.tick-duration=1s",
				"wheel-timer.timers.expiry.ticks-per-wheel=4096", "wheel-timer.timers.expiry.thread-name=expiry-wheel");

	@Test
	void eachTimerIsABeanOfItsNameBesideWheelTimerWithItsOwnSettingsAndTheDefaultOnesItLeavesOut() {
		this.contextRunner.run((context) -> {
			assertThat(context.getBeansOfType(HashedWheelTimer.class)).containsOnlyKeys("wheelTimer", "requests",
					"expiry");
			WheelSnapshot wheelTimer = context.getBean("wheelTimer", HashedWheelTimer.class).snapshot();
			assertThat(wheelTimer.tickDuration()).isEqualTo(Duration.ofMillis(50));
			assertThat(wheelTimer.ticksPerWheel()).isEqualTo(64);
			assertThat(wheelTimer.worker().name()).isEqualTo("wheel-timer");
			WheelSnapshot requests = context.getBean("requests", HashedWheelTimer.class).snapshot();
			assertThat(requests.tickDuration()).isEqualTo(Duration.ofMillis(1));
			assertThat(requests.ticksPerWheel()).isEqualTo(1024);
			assertThat(requests.maxPendingTimeouts()).as("left out: the default timer's").isEqualTo(1000);
			assertThat(requests.worker().name()).as("the default timer's thread name and its own")
				.isEqualTo("wheel-timer-requests");
			assertThat(requests.state()).as("started with the context").isEqualTo(WheelSnapshot.State.STARTED);
			WheelSnapshot expiry = context.getBean("expiry", HashedWheelTimer.class).snapshot();
			assertThat(expiry.tickDuration()).isEqualTo(Duration.ofSeconds(1));
			assertThat(expiry.ticksPerWheel()).isEqualTo(4096);
			assertThat(expiry.worker().name()).isEqualTo("expiry-wheel");
		});
	}

	@Test
	void withTheStarterSwitchedOffNoTimerOfThePropertiesIsCreated() {
		this.contextRunner.withPropertyValues("wheel-timer.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(HashedWheelTimer.class));
	}

	@Test
	void withATimerOfYourOwnMethodsNamingNoTimerNeedItToBePrimary() {
		this.contextRunner.withUserConfiguration(TimedServiceConfiguration.class)
			.withBean("plainTimer", HashedWheelTimer.class, HashedWheelTimer::new)
			.run((context) -> assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
				.isInstanceOf(InvalidDelayedExecutionException.class)
				.hasMessageContaining("TimedService.onDefault()")
				.hasMessageContaining("several Timer beans [plainTimer, requests, expiry], none is @Primary"));
		this.contextRunner.withUserConfiguration(TimedServiceConfiguration.class)
			.withBean("plainTimer", HashedWheelTimer.class, HashedWheelTimer::new,
					(definition) -> definition.setPrimary(true))
			.run((context) -> assertThat(context.getBean(DelayedMethodRegistry.class).methods())
				.extracting(DelayedMethod::timerBeanName)
				.containsExactly("expiry", "plainTimer", "requests"));
	}

	@Test
	void aTimersNameKeepsItsCaseAsTheBeanName() {
		this.contextRunner.withPropertyValues("wheel-timer.timers.orderExpiry.tick-duration=1s")
			.run((context) -> assertThat(context.getBeansOfType(HashedWheelTimer.class)).containsKey("orderExpiry"));
	}

	@Test
	void methodsRunOnTheTimerTheyNameAndThoseNamingNoneStayOnWheelTimer() {
		this.contextRunner.withUserConfiguration(TimedServiceConfiguration.class).run((context) -> {
			TimedService service = context.getBean(TimedService.class);
			assertThat(context.getBean(DelayedMethodRegistry.class).methods()).extracting(DelayedMethod::timerBeanName)
				.containsExactly("expiry", "wheelTimer", "requests");
			assertThat(service.onRequests().get(WAIT.toSeconds(), TimeUnit.SECONDS)).startsWith("task-");
			assertThat(service.onDefault().get(WAIT.toSeconds(), TimeUnit.SECONDS)).startsWith("task-");
			assertThat(scheduled(context, "requests")).isOne();
			assertThat(scheduled(context, "wheelTimer")).isOne();
			assertThat(scheduled(context, "expiry")).isZero();
		});
	}

	@Test
	void aTimersExecutorRunsItsMethodsAndTheOthersKeepTheDefaultOne() {
		this.contextRunner.withUserConfiguration(TimedServiceConfiguration.class)
			.withPropertyValues("wheel-timer.timers.requests.executor=requestsPool", "wheel-timer.executor=sharedPool")
			.withBean("requestsPool", ThreadPoolTaskExecutor.class, () -> pool("requests-pool-"))
			.withBean("sharedPool", ThreadPoolTaskExecutor.class, () -> pool("shared-pool-"))
			.run((context) -> {
				TimedService service = context.getBean(TimedService.class);
				assertThat(service.onRequests().get(WAIT.toSeconds(), TimeUnit.SECONDS)).startsWith("requests-pool-");
				assertThat(service.onDefault().get(WAIT.toSeconds(), TimeUnit.SECONDS)).startsWith("shared-pool-");
			});
	}

	@ParameterizedTest(name = "{0}={1}")
	@CsvSource(delimiter = '|', textBlock = """
			wheel-timer.timers.requests.tick-duration              | 500us      | at least 1ms
			wheel-timer.timers.requests.ticks-per-wheel            | 0          | from 1 to 1073741824
			wheel-timer.timers.requests.max-pending-timeouts       | -1         | positive, or 0 for no limit
			wheel-timer.timers.requests.thread-name                | ' '        | must not be blank
			wheel-timer.timers.requests.shutdown.drain-timeout     | -1s        | zero or positive
			wheel-timer.timers.requests.shutdown.await-termination | -1ms       | zero or positive
			wheel-timer.timers.requests.executor                   | nowhere    | No bean named 'nowhere'
			""")
	void aBadValueFailsStartupNamingTheTimersOwnProperty(String property, String value, String allowed) {
		this.contextRunner.withPropertyValues(property + "=" + value)
			.run(failsWith(property, value.strip(), allowed));
	}

	@Test
	void aBadDefaultThatATimerFallsBackToIsNamedWhereItIsWritten() {
		this.contextRunner.withPropertyValues("wheel-timer.tick-duration=500us", "wheel-timer.timers.leases.thread-name=leases")
			.withBean("plainTimer", HashedWheelTimer.class, HashedWheelTimer::new)
			.run(failsWith("wheel-timer.tick-duration", "500us", "at least 1ms"));
	}

	@Test
	void aTimerNamedLikeAnotherBeanFailsStartupNamingTheTimers() {
		this.contextRunner.withBean("requests", String.class, () -> "not a timer")
			.run(failsWith("wheel-timer.timers.requests", "requests",
					"A bean named 'requests' already exists", "The timers of wheel-timer.timers are [requests, expiry]"));
	}

	@Test
	void aTimerNamedWheelTimerFailsStartupSinceThatIsTheDefaultTimer() {
		this.contextRunner.withPropertyValues("wheel-timer.timers.wheelTimer.tick-duration=1s")
			.run(failsWith("wheel-timer.timers.wheelTimer", "wheelTimer", "'wheelTimer' is the default timer"));
	}

	@Test
	void aBlankTimerNameFailsStartup() {
		this.contextRunner.withPropertyValues("wheel-timer.timers[ ].tick-duration=1s")
			.run(failsWith("wheel-timer.timers. ", " ", "A timer needs a name"));
	}

	@Test
	void aMethodNamingATimerThatNothingDefinesFailsStartupListingTheTimers() {
		this.contextRunner.withUserConfiguration(UnknownTimerConfiguration.class)
			.run((context) -> assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
				.isInstanceOf(InvalidDelayedExecutionException.class)
				.hasMessageContaining("there is no bean named 'orders'")
				.hasMessageContaining("[wheelTimer, requests, expiry]"));
	}

	@Test
	void shutdownDrainsEachTimerForItsOwnDrainTimeout() {
		this.contextRunner.withUserConfiguration(TimedServiceConfiguration.class)
			.withPropertyValues("wheel-timer.shutdown.drain-timeout=0s",
					"wheel-timer.timers.requests.shutdown.drain-timeout=30s")
			.run((context) -> {
				TimedService service = context.getBean(TimedService.class);
				CompletableFuture<String> onRequests = service.onRequests();
				CompletableFuture<String> onDefault = service.onDefault();
				context.close();
				assertThat(onRequests).as("fell due within the drain of its timer").isCompleted();
				assertThat(onDefault).as("its timer does not drain").isCancelled();
			});
	}

	@Test
	void customizersApplyToEveryTimerTheStarterBuildsAfterTheProperties() {
		Ticker ticker = new DelegatingTicker();
		this.contextRunner.withBean(WheelTimerBuilderCustomizer.class, () -> (builder) -> builder.ticker(ticker))
			.withBean("secondCustomizer", WheelTimerBuilderCustomizer.class,
					() -> (builder) -> builder.ticksPerWheel(8))
			.run((context) -> {
				assertThat(context.getBeansOfType(HashedWheelTimer.class).values()).hasSize(3).allSatisfy((timer) -> {
					assertThat(timer.ticker()).isSameAs(ticker);
					assertThat(timer.snapshot().ticksPerWheel()).as("the customizer wins over the properties")
						.isEqualTo(8);
				});
			});
	}

	@Test
	void theBuilderBeanGivesTimersOfYourOwnTheDefaultSettingsAndTheCustomizers() {
		Ticker ticker = new DelegatingTicker();
		this.contextRunner.withUserConfiguration(OwnTimerConfiguration.class)
			.withBean(WheelTimerBuilderCustomizer.class, () -> (builder) -> builder.ticker(ticker))
			.run((context) -> {
				assertThat(context.getBeansOfType(HashedWheelTimer.class)).containsOnlyKeys("ownTimer", "requests",
						"expiry");
				HashedWheelTimer own = context.getBean("ownTimer", HashedWheelTimer.class);
				assertThat(own.snapshot().tickDuration()).isEqualTo(Duration.ofMillis(50));
				assertThat(own.snapshot().ticksPerWheel()).isEqualTo(64);
				assertThat(own.ticker()).isSameAs(ticker);
				assertThat(context.getBean(HashedWheelTimer.Builder.class))
					.as("a new builder for each injection point")
					.isNotSameAs(context.getBean(HashedWheelTimer.Builder.class));
			});
	}

	private static ThreadPoolTaskExecutor pool(String threadNamePrefix) {
		ThreadPoolTaskExecutor pool = new ThreadPoolTaskExecutor();
		pool.setThreadNamePrefix(threadNamePrefix);
		return pool;
	}

	private static long scheduled(AssertableApplicationContext context, String timer) {
		return context.getBean(timer, HashedWheelTimer.class).counters().scheduled();
	}

	/** The system clock, but a ticker of its own, so that a test can tell whose ticker a timer has. */
	static final class DelegatingTicker implements Ticker {

		@Override
		public long nanoTime() {
			return Ticker.system().nanoTime();
		}

		@Override
		public void park(long nanos) {
			Ticker.system().park(nanos);
		}

		@Override
		public void unpark(Thread thread) {
			Ticker.system().unpark(thread);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TimedServiceConfiguration {

		@Bean
		TimedService timedService() {
			return new TimedService();
		}

	}

	static class TimedService {

		@DelayedExecution(delay = 300, timer = "requests")
		public CompletableFuture<String> onRequests() {
			return CompletableFuture.completedFuture(Thread.currentThread().getName());
		}

		@DelayedExecution(delay = 300)
		public CompletableFuture<String> onDefault() {
			return CompletableFuture.completedFuture(Thread.currentThread().getName());
		}

		@DelayedExecution(delay = 30, timeUnit = TimeUnit.MINUTES, timer = "expiry")
		public void expire() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UnknownTimerConfiguration {

		@Bean
		UnknownTimer unknownTimer() {
			return new UnknownTimer();
		}

	}

	static class UnknownTimer {

		@DelayedExecution(delay = 1, timer = "orders")
		public void run() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnTimerConfiguration {

		@Bean
		HashedWheelTimer ownTimer(HashedWheelTimer.Builder builder) {
			return builder.build();
		}

	}

}
