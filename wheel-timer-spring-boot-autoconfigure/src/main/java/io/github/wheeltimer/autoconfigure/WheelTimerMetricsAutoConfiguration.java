package io.github.wheeltimer.autoconfigure;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.actuate.DelayedMethodMetrics;
import io.github.wheeltimer.actuate.WheelTimerMetrics;
import io.github.wheeltimer.annotation.DelayedMethodRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of {@link WheelTimerMetrics} for the context's {@link HashedWheelTimer}
 * beans, and of {@link DelayedMethodMetrics} for its {@code @Retryable} delayed methods, when
 * Micrometer is on the classpath. Spring Boot binds them to every meter registry.
 */
@AutoConfiguration(after = WheelTimerAutoConfiguration.class)
@ConditionalOnClass(MeterBinder.class)
@ConditionalOnBean(HashedWheelTimer.class)
public final class WheelTimerMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	WheelTimerMetrics wheelTimerMetrics(ListableBeanFactory beanFactory) {
		return new WheelTimerMetrics(beanFactory.getBeansOfType(HashedWheelTimer.class, false, true));
	}

	@Bean
	@ConditionalOnMissingBean
	DelayedMethodMetrics wheelTimerDelayedMethodMetrics(ObjectProvider<DelayedMethodRegistry> methods) {
		return new DelayedMethodMetrics(methods);
	}

}
