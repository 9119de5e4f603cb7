package io.github.wheeltimer.autoconfigure;

import java.time.Duration;
import java.util.Map;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.actuate.WheelTimerEndpoint;
import io.github.wheeltimer.actuate.WheelTimerEndpointWebExtension;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

class WheelTimerEndpointAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
				WheelTimerAutoConfiguration.class, WheelTimerEndpointAutoConfiguration.class));

	@Test
	void endpointExposedOverHttpComesWithItsWebExtension() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=wheeltimer")
			.run((context) -> {
				assertThat(context).hasSingleBean(WheelTimerEndpoint.class)
					.hasSingleBean(WheelTimerEndpointWebExtension.class);
				assertThat(context.getBean(WheelTimerEndpoint.class).timers().timers()).containsOnlyKeys("wheelTimer");
			});
	}

	@Test
	void endpointListsEveryTimerOfThePropertiesAndStopsEachWithItsOwnDrain() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=wheeltimer",
					"wheel-timer.timers.requests.tick-duration=1ms", "wheel-timer.timers.expiry.tick-duration=1s",
					"wheel-timer.timers.expiry.shutdown.drain-timeout=1ms")
			.run((context) -> {
				WheelTimerEndpoint endpoint = context.getBean(WheelTimerEndpoint.class);
				assertThat(endpoint.timers().timers()).containsOnlyKeys("wheelTimer", "requests", "expiry");
				assertThat(endpoint.stop("expiry", null).drainTimeout()).isEqualTo("PT0.001S");
				assertThat(endpoint.stop("requests", null).drainTimeout()).isEqualTo("PT0S");
			});
	}

	@Test
	void endpointExposedOverJmxOnlyHasNoWebExtension() {
		this.contextRunner
			.withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=wheeltimer")
			.run((context) -> assertThat(context).hasSingleBean(WheelTimerEndpoint.class)
				.doesNotHaveBean(WheelTimerEndpointWebExtension.class));
	}

	@Test
	void endpointNotExposedIsNotCreated() {
		this.contextRunner.run((context) -> assertThat(context).hasSingleBean(HashedWheelTimer.class)
			.doesNotHaveBean(WheelTimerEndpoint.class));
	}

	@Test
	void endpointWithNoAccessIsNotCreated() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=wheeltimer",
					"management.endpoint.wheeltimer.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(WheelTimerEndpoint.class));
	}

	@Test
	void endpointBacksOffWhenTheApplicationDefinesOne() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=wheeltimer")
			.withUserConfiguration(OwnEndpointConfiguration.class)
			.run((context) -> assertThat(context).hasSingleBean(WheelTimerEndpoint.class)
				.hasBean("ownEndpoint")
				.hasSingleBean(WheelTimerEndpointWebExtension.class));
	}

	@Test
	void endpointBacksOffWhenActuatorIsAbsent() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=wheeltimer")
			.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(HashedWheelTimer.class)
				.doesNotHaveBean(WheelTimerEndpoint.class));
	}

	@Test
	void endpointBacksOffWithoutATimer() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=wheeltimer", "wheel-timer.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(WheelTimerEndpoint.class));
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnEndpointConfiguration {

		@Bean
		WheelTimerEndpoint ownEndpoint() {
			return new WheelTimerEndpoint(Map.of(), null, (name) -> Duration.ZERO);
		}

	}

}
