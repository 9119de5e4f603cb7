package io.github.wheeltimer.autoconfigure;

import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.Timeout;
import io.github.wheeltimer.Timer;
import io.github.wheeltimer.TimerTask;
import io.github.wheeltimer.WheelSnapshot;
import io.github.wheeltimer.annotation.DelayedExecution;
import io.github.wheeltimer.annotation.DelayedExecutionBeanPostProcessor;
import io.github.wheeltimer.annotation.DelayedMethodRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import com.jayway.jsonpath.JsonPath;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

import static io.github.wheeltimer.autoconfigure.InvalidPropertyFailures.failsWith;
import static org.assertj.core.api.Assertions.assertThat;

class WheelTimerAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
				WheelTimerAutoConfiguration.class));

	@Test
	void defaultsGiveOneTimerNamedWheelTimerWithTheDocumentedSettings() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(HashedWheelTimer.class)
				.hasBean("wheelTimer")
				.hasSingleBean(DelayedMethodRegistry.class)
				.hasSingleBean(DelayedExecutionBeanPostProcessor.class)
				.hasSingleBean(WheelTimerLifecycle.class);
			WheelSnapshot snapshot = context.getBean(HashedWheelTimer.class).snapshot();
			assertThat(snapshot.tickDuration()).isEqualTo(Duration.ofMillis(100));
			assertThat(snapshot.ticksPerWheel()).isEqualTo(512);
			assertThat(snapshot.maxPendingTimeouts()).isZero();
		});
	}

	@Test
	void theTimerStartsWithTheContextOnADaemonThreadWithTheConfiguredName() {
		this.contextRunner.withPropertyValues("wheel-timer.thread-name=orders-timer").run((context) -> {
			WheelSnapshot snapshot = context.getBean(HashedWheelTimer.class).snapshot();
			assertThat(snapshot.state()).isEqualTo(WheelSnapshot.State.STARTED);
			assertThat(snapshot.worker().name()).isEqualTo("orders-timer");
			Thread worker = Thread.getAllStackTraces()
				.keySet()
				.stream()
				.filter((thread) -> thread.getName().equals("orders-timer"))
				.findFirst()
				.orElseThrow();
			assertThat(worker.isDaemon()).isTrue();
		});
	}

	@Test
	void everyTimerPropertyBinds() {
		this.contextRunner
			.withPropertyValues("wheel-timer.tick-duration=10ms", "wheel-timer.ticks-per-wheel=100",
					"wheel-timer.max-pending-timeouts=5")
			.run((context) -> {
				WheelSnapshot snapshot = context.getBean(HashedWheelTimer.class).snapshot();
				assertThat(snapshot.tickDuration()).isEqualTo(Duration.ofMillis(10));
				assertThat(snapshot.ticksPerWheel()).as("rounded up to a power of two").isEqualTo(128);
				assertThat(snapshot.maxPendingTimeouts()).isEqualTo(5);
			});
	}

	@Test
	void everyPropertyBindsIntoWheelTimerProperties() {
		this.contextRunner
			.withPropertyValues("wheel-timer.tick-duration=2s", "wheel-timer.ticks-per-wheel=8",
					"wheel-timer.max-pending-timeouts=7", "wheel-timer.thread-name=t", "wheel-timer.executor=pool",
					"wheel-timer.shutdown.drain-timeout=3s", "wheel-timer.shutdown.await-termination=4s")
			.withBean("pool", Executor.class, () -> Runnable::run)
			.run((context) -> {
				WheelTimerProperties properties = context.getBean(WheelTimerProperties.class);
				assertThat(properties.getTickDuration()).isEqualTo(Duration.ofSeconds(2));
				assertThat(properties.getTicksPerWheel()).isEqualTo(8);
				assertThat(properties.getMaxPendingTimeouts()).isEqualTo(7);
				assertThat(properties.getThreadName()).isEqualTo("t");
				assertThat(properties.getExecutor()).isEqualTo("pool");
				assertThat(properties.getShutdown().getDrainTimeout()).isEqualTo(Duration.ofSeconds(3));
				assertThat(properties.getShutdown().getAwaitTermination()).isEqualTo(Duration.ofSeconds(4));
			});
	}

	@Test
	void backsOffWhenTheApplicationDefinesItsOwnTimer() {
		this.contextRunner.withUserConfiguration(UserTimerConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(Timer.class).hasBean("userTimer").doesNotHaveBean("wheelTimer");
			assertThat(context).hasSingleBean(DelayedExecutionBeanPostProcessor.class);
		});
	}

	@Test
	void disabledCreatesNothingAndAnnotatedMethodsRunAtOnce() {
		this.contextRunner.withPropertyValues("wheel-timer.enabled=false")
			.withUserConfiguration(AnnotatedBeanConfiguration.class)
			.run((context) -> {
				assertThat(context).doesNotHaveBean(Timer.class)
					.doesNotHaveBean(DelayedExecutionBeanPostProcessor.class)
					.doesNotHaveBean(DelayedMethodRegistry.class);
				Annotated bean = context.getBean(Annotated.class);
				bean.later();
				assertThat(bean.calls).as("ran in the caller's thread, at once").isEqualTo(1);
			});
	}

	@ParameterizedTest(name = "{0}={1}")
	@CsvSource(delimiter = '|', textBlock = """
			wheel-timer.tick-duration          | 0ms        | at least 1ms
			wheel-timer.tick-duration          | -5ms       | at least 1ms
			wheel-timer.tick-duration          | 500us      | at least 1ms
			wheel-timer.ticks-per-wheel        | 0          | from 1 to 1073741824
			wheel-timer.ticks-per-wheel        | -3         | from 1 to 1073741824
			wheel-timer.ticks-per-wheel        | 1073741825 | from 1 to 1073741824
			wheel-timer.max-pending-timeouts   | -1         | positive, or 0 for no limit
			wheel-timer.thread-name            | ' '        | must not be blank
			wheel-timer.shutdown.drain-timeout | -1s        | zero or positive
			wheel-timer.shutdown.await-termination | -1ms   | zero or positive
			""")
	void aBadValueFailsStartupNamingThePropertyTheValueAndWhatIsAllowed(String property, String value,
			String allowed) {
		this.contextRunner.withPropertyValues(property + "=" + value)
			.run(failsWith(property, value.strip(), allowed));
	}

	@Test
	void aTickTimesWheelSizeBeyondTheLongRangeFailsStartupOnTheWheelSize() {
		this.contextRunner.withPropertyValues("wheel-timer.tick-duration=3650d", "wheel-timer.ticks-per-wheel=1073741824")
			.run(failsWith("wheel-timer.ticks-per-wheel", "1073741824", "must not exceed Long.MAX_VALUE nanoseconds"));
	}

	@Test
	void anExecutorNameWithoutABeanFailsStartupListingTheExecutors() {
		this.contextRunner.withPropertyValues("wheel-timer.executor=missingPool")
			.run(failsWith("wheel-timer.executor", "missingPool", "applicationTaskExecutor"));
	}

	@Test
	void anExecutorNameOfABeanThatIsNoExecutorFailsStartup() {
		this.contextRunner.withPropertyValues("wheel-timer.executor=notAnExecutor")
			.withBean("notAnExecutor", String.class, () -> "text")
			.run(failsWith("wheel-timer.executor", "notAnExecutor", "not a java.util.concurrent.Executor"));
	}

	@Test
	void withoutApplicationTaskExecutorTheOnlyExecutorRunsDelayedMethods() {
		this.contextRunner.withUserConfiguration(AnnotatedBeanConfiguration.class)
			.withBean("ownPool", ThreadPoolTaskExecutor.class, () -> {
				ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
				executor.setThreadNamePrefix("own-pool-");
				return executor;
			})
			.withPropertyValues("wheel-timer.tick-duration=1ms")
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean("applicationTaskExecutor");
				Annotated bean = context.getBean(Annotated.class);
				assertThat(bean.future().get(10, TimeUnit.SECONDS)).startsWith("own-pool-");
			});
	}

	@Test
	void withSeveralExecutorsAndNoApplicationTaskExecutorStartupAsksToNameOne() {
		this.contextRunner.withUserConfiguration(AnnotatedBeanConfiguration.class)
			.withBean("poolA", Executor.class, () -> Runnable::run)
			.withBean("poolB", Executor.class, () -> Runnable::run)
			.run(failsWith("wheel-timer.executor", "applicationTaskExecutor", "set wheel-timer.executor"));
	}

	@Test
	void delayedMethodsNeedNeitherAspectJNorAutoProxying() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class,
					WheelTimerAutoConfiguration.class))
			.withPropertyValues("spring.aop.auto=false", "wheel-timer.tick-duration=1ms")
			.withUserConfiguration(AnnotatedBeanConfiguration.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(AopUtils.isAopProxy(context.getBean(Annotated.class))).isTrue();
				assertThat(context.getBean(Annotated.class).future().get(10, TimeUnit.SECONDS))
					.as("ran later, on the executor").startsWith("task-");
			});
	}

	@Test
	void metadataDescribesEveryPropertyWithItsDefault() throws Exception {
		List<Map<String, Object>> properties;
		try (InputStream json = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			assertThat(json).as("generated by the configuration processor").isNotNull();
			properties = JsonPath.read(json, "$.properties");
		}
		Map<String, Object> expectedDefaults = Map.ofEntries(Map.entry("wheel-timer.enabled", true),
				Map.entry("wheel-timer.tick-duration", "100ms"), Map.entry("wheel-timer.ticks-per-wheel", 512),
				Map.entry("wheel-timer.max-pending-timeouts", 0), Map.entry("wheel-timer.thread-name", "wheel-timer"),
				Map.entry("wheel-timer.executor", "applicationTaskExecutor"),
				Map.entry("wheel-timer.shutdown.drain-timeout", "0s"),
				Map.entry("wheel-timer.shutdown.await-termination", "10s"),
				Map.entry("management.endpoint.wheeltimer.access", "read_only"),
				Map.entry("management.endpoint.wheeltimer.cache.time-to-live", "0ms"),
				Map.entry("management.endpoint.wheeltimer.show-arguments", "never"),
				Map.entry("management.health.wheeltimer.enabled", true),
				Map.entry("management.health.wheeltimer.max-tick-lag", "10s"),
				Map.entry("wheel-timer.durable.enabled", true), Map.entry("wheel-timer.durable.horizon", "10s"),
				Map.entry("wheel-timer.durable.poll-interval", "2s"),
				Map.entry("wheel-timer.durable.heartbeat-interval", "2s"), Map.entry("wheel-timer.durable.lease", "10s"),
				Map.entry("wheel-timer.durable.batch-size", 500),
				Map.entry("wheel-timer.durable.failed-retention", "7d"),
				Map.entry("wheel-timer.durable.jdbc.initialize-schema", "embedded"),
				Map.entry("wheel-timer.durable.jdbc.table-prefix", "WHEEL_TIMER_"),
				Map.entry("wheel-timer.durable.shutdown-timeout", "5s"));
		Set<String> withoutDefault = Set.of("wheel-timer.timers", "wheel-timer.durable.instance-name",
				"wheel-timer.durable.jdbc.platform", "management.endpoint.wheeltimer.roles");
		assertThat(properties).extracting((property) -> property.get("name"))
			.containsExactlyInAnyOrderElementsOf(
					Stream.concat(expectedDefaults.keySet().stream(), withoutDefault.stream()).toList());
		for (Map<String, Object> property : properties) {
			Object name = property.get("name");
			if ("wheel-timer.timers".equals(name)) {
				assertThat(property.get("type")).as("named timers are a map for IDE completion of their settings")
					.isEqualTo("java.util.Map<java.lang.String,"
							+ "io.github.wheeltimer.autoconfigure.WheelTimerProperties$NamedTimer>");
				assertThat(property).doesNotContainKey("defaultValue");
				continue;
			}
			assertThat((String) property.get("description")).as("description of %s", name).isNotBlank();
			if (withoutDefault.contains(name)) {
				assertThat(property).doesNotContainKey("defaultValue");
				continue;
			}
			assertThat(property.get("defaultValue")).as("default of %s", name).isEqualTo(expectedDefaults.get(name));
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class UserTimerConfiguration {

		@Bean
		Timer userTimer() {
			return new Timer() {

				@Override
				public Timeout newTimeout(TimerTask task, long delay, TimeUnit unit) {
					throw new UnsupportedOperationException();
				}

				@Override
				public Set<Timeout> stop() {
					return Set.of();
				}

			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class AnnotatedBeanConfiguration {

		@Bean
		Annotated annotated() {
			return new Annotated();
		}

	}

	static class Annotated {

		volatile int calls;

		@DelayedExecution(delay = 1)
		public void later() {
			this.calls++;
		}

		@DelayedExecution(delay = 1)
		public CompletableFuture<String> future() {
			return CompletableFuture.completedFuture(Thread.currentThread().getName());
		}

	}

}
