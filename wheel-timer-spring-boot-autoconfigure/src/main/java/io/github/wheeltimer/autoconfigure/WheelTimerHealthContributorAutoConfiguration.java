package io.github.wheeltimer.autoconfigure;

import java.time.Duration;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.actuate.WheelTimerHealthIndicator;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.CompositeHealthContributorConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration of the {@code wheelTimer} health contributor: one
 * {@link WheelTimerHealthIndicator} for the context's {@link HashedWheelTimer}, or a composite
 * keyed by bean name when there are several. Switched off with
 * {@code management.health.wheeltimer.enabled=false}.
 */
@AutoConfiguration(after = WheelTimerAutoConfiguration.class)
@ConditionalOnClass({ HealthContributor.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnBean(HashedWheelTimer.class)
@ConditionalOnEnabledHealthIndicator("wheeltimer")
@EnableConfigurationProperties(WheelTimerHealthIndicatorProperties.class)
public final class WheelTimerHealthContributorAutoConfiguration
		extends CompositeHealthContributorConfiguration<WheelTimerHealthIndicator, HashedWheelTimer> {

	private static final String MAX_TICK_LAG = "management.health.wheeltimer.max-tick-lag";

	WheelTimerHealthContributorAutoConfiguration(WheelTimerHealthIndicatorProperties properties) {
		super((timer) -> new WheelTimerHealthIndicator(timer, properties.getMaxTickLag()));
	}

	@Bean
	@ConditionalOnMissingBean(name = { "wheelTimerHealthIndicator", "wheelTimerHealthContributor" })
	HealthContributor wheelTimerHealthContributor(ConfigurableListableBeanFactory beanFactory,
			WheelTimerHealthIndicatorProperties properties, Environment environment) {
		Duration maxTickLag = properties.getMaxTickLag();
		if (maxTickLag == null || maxTickLag.isNegative() || maxTickLag.isZero()) {
			throw InvalidPropertyValues.invalid(environment, MAX_TICK_LAG, maxTickLag,
					"The maximum tick lag must be positive.");
		}
		return createContributor(beanFactory, HashedWheelTimer.class);
	}

}
