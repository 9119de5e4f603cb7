package io.github.wheeltimer.autoconfigure;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.actuate.WheelTimerHealthIndicator;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;

import static org.assertj.core.api.Assertions.assertThat;

class WheelTimerHealthContributorAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
				WheelTimerAutoConfiguration.class, WheelTimerHealthContributorAutoConfiguration.class));

	@Test
	void oneTimerGivesOneIndicatorNamedWheelTimer() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasBean("wheelTimerHealthContributor");
			HealthContributor contributor = context.getBean("wheelTimerHealthContributor", HealthContributor.class);
			assertThat(contributor).isInstanceOf(WheelTimerHealthIndicator.class);
			assertThat(((HealthIndicator) contributor).health().getStatus()).isEqualTo(Status.UP);
		});
	}

	@Test
	void theApplicationsShutdownTakesTheTimerOutOfService() {
		this.contextRunner.run((context) -> {
			HealthIndicator indicator = context.getBean("wheelTimerHealthContributor", HealthIndicator.class);
			context.getSourceApplicationContext().stop();
			assertThat(indicator.health().getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
		});
	}

	@Test
	void eachTimerOfThePropertiesGetsAContributorBesideWheelTimer() {
		this.contextRunner.withPropertyValues("wheel-timer.timers.requests.tick-duration=1ms").run((context) -> {
			CompositeHealthContributor composite = context.getBean("wheelTimerHealthContributor",
					CompositeHealthContributor.class);
			assertThat(composite.stream().map((entry) -> entry.name())).containsExactlyInAnyOrder("wheelTimer",
					"requests");
		});
	}

	@Test
	void severalTimersGiveAContributorPerBeanName() {
		this.contextRunner.withUserConfiguration(TwoTimersConfiguration.class).run((context) -> {
			HealthContributor contributor = context.getBean("wheelTimerHealthContributor", HealthContributor.class);
			assertThat(contributor).isInstanceOf(CompositeHealthContributor.class);
			CompositeHealthContributor composite = (CompositeHealthContributor) contributor;
			assertThat(composite.stream().map((entry) -> entry.name())).containsExactlyInAnyOrder("ordersTimer",
					"leasesTimer");
			assertThat(composite.getContributor("leasesTimer")).isInstanceOf(WheelTimerHealthIndicator.class);
		});
	}

	@Test
	void maxTickLagBindsAndMustBePositive() {
		this.contextRunner.withPropertyValues("management.health.wheeltimer.max-tick-lag=0s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("management.health.wheeltimer.max-tick-lag")
				.hasMessageContaining("'0s'")
				.hasMessageContaining("must be positive");
		});
		this.contextRunner.withPropertyValues("management.health.wheeltimer.max-tick-lag=2s")
			.run((context) -> assertThat(context.getBean(WheelTimerHealthIndicatorProperties.class).getMaxTickLag())
				.hasSeconds(2));
	}

	@Test
	void canBeSwitchedOff() {
		this.contextRunner.withPropertyValues("management.health.wheeltimer.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean("wheelTimerHealthContributor"));
	}

	@Test
	void backsOffWhenTheApplicationDefinesAWheelTimerHealthIndicator() {
		this.contextRunner.withUserConfiguration(OwnIndicatorConfiguration.class)
			.run((context) -> assertThat(context).hasBean("wheelTimerHealthIndicator")
				.doesNotHaveBean("wheelTimerHealthContributor"));
	}

	@Test
	void backsOffWhenSpringBootHealthIsAbsent() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(HealthContributor.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(HashedWheelTimer.class)
				.doesNotHaveBean("wheelTimerHealthContributor"));
	}

	@Configuration(proxyBeanMethods = false)
	static class TwoTimersConfiguration {

		@Bean
		@Primary
		HashedWheelTimer ordersTimer() {
			return new HashedWheelTimer();
		}

		@Bean
		HashedWheelTimer leasesTimer() {
			return new HashedWheelTimer();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnIndicatorConfiguration {

		@Bean
		HealthIndicator wheelTimerHealthIndicator() {
			return () -> null;
		}

	}

}
