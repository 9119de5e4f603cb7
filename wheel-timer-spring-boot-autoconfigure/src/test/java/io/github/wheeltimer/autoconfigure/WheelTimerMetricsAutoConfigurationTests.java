package io.github.wheeltimer.autoconfigure;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.actuate.WheelTimerMetrics;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

class WheelTimerMetricsAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
				WheelTimerAutoConfiguration.class, WheelTimerMetricsAutoConfiguration.class));

	@Test
	void bindsTheTimersMetersTaggedWithTheBeanName() {
		this.contextRunner.run((context) -> {
			SimpleMeterRegistry registry = new SimpleMeterRegistry();
			context.getBean(WheelTimerMetrics.class).bindTo(registry);
			assertThat(registry.get("wheel.timer.pending").tag("name", "wheelTimer").gauge().value()).isZero();
		});
	}

	@Test
	void eachTimerOfThePropertiesGetsItsOwnMeters() {
		this.contextRunner.withPropertyValues("wheel-timer.timers.requests.tick-duration=1ms").run((context) -> {
			SimpleMeterRegistry registry = new SimpleMeterRegistry();
			context.getBean(WheelTimerMetrics.class).bindTo(registry);
			assertThat(registry.get("wheel.timer.pending").gauges()).extracting((gauge) -> gauge.getId().getTag("name"))
				.containsExactlyInAnyOrder("wheelTimer", "requests");
		});
	}

	@Test
	void backsOffWhenMicrometerIsAbsent() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(MeterBinder.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(HashedWheelTimer.class)
				.doesNotHaveBean(WheelTimerMetrics.class));
	}

	@Test
	void backsOffWithoutATimer() {
		this.contextRunner.withPropertyValues("wheel-timer.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(WheelTimerMetrics.class));
	}

}
