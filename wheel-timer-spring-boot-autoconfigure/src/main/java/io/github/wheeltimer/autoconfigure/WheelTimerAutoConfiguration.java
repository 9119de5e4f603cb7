package io.github.wheeltimer.autoconfigure;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.Timer;
import io.github.wheeltimer.annotation.DelayedExecution;
import io.github.wheeltimer.annotation.DelayedExecutionBeanPostProcessor;
import io.github.wheeltimer.annotation.DelayedMethodRegistry;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.context.annotation.Scope;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration of the wheel timers and of {@link DelayedExecution} methods on them: a
 * {@link HashedWheelTimer} named {@code wheelTimer} from the {@code wheel-timer.*} properties, one
 * more per entry of {@code wheel-timer.timers}, a prototype {@link HashedWheelTimer.Builder} bean
 * with the same settings for timers of your own, and the post-processor that makes annotated
 * methods delayed.
 * <p>
 * {@code wheelTimer} backs off when the application defines its own {@link Timer} bean. Every
 * {@link WheelTimerBuilderCustomizer} bean is applied to each timer this builds. Every
 * {@link HashedWheelTimer} bean, auto-configured or not, is started with the context and stopped
 * gracefully when it closes; see {@link WheelTimerProperties.Shutdown}.
 */
@AutoConfiguration(after = TaskExecutionAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "wheel-timer.enabled", matchIfMissing = true)
@EnableConfigurationProperties(WheelTimerProperties.class)
@Import(NamedTimersRegistrar.class)
public final class WheelTimerAutoConfiguration {

	/** The bean that builds the timers, which the named timers' bean definitions name as their factory. */
	static final String CONFIGURED_TIMERS = "wheelTimerConfiguredTimers";

	@Bean
	@ConditionalOnMissingBean(Timer.class)
	HashedWheelTimer wheelTimer(ConfiguredTimers timers) {
		return timers.build(TimerSettings.DEFAULT_TIMER);
	}

	/**
	 * For timers of your own: {@code wheel-timer.*} and the customizers applied, a new builder
	 * for each injection point.
	 */
	@Bean
	@Scope(BeanDefinition.SCOPE_PROTOTYPE)
	@ConditionalOnMissingBean
	HashedWheelTimer.Builder wheelTimerBuilder(ConfiguredTimers timers) {
		return timers.builder();
	}

	@Bean(CONFIGURED_TIMERS)
	@ConditionalOnMissingBean
	ConfiguredTimers wheelTimerConfiguredTimers(WheelTimerProperties properties, ListableBeanFactory beanFactory,
			Environment environment, ObjectProvider<WheelTimerBuilderCustomizer> customizers) {
		return new ConfiguredTimers(properties, beanFactory, environment, customizers);
	}

	@Bean
	@ConditionalOnMissingBean
	DelayedMethodRegistry wheelTimerDelayedMethodRegistry(ConfiguredTimers timers) {
		return new DelayedMethodRegistry(timers::executor);
	}

	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static DelayedExecutionBeanPostProcessor wheelTimerDelayedExecutionPostProcessor(
			ObjectProvider<DelayedMethodRegistry> registry, Environment environment) {
		DelayedExecutionBeanPostProcessor postProcessor = new DelayedExecutionBeanPostProcessor(registry);
		// As Spring Boot proxies for its own advice: by class unless the application says otherwise.
		postProcessor.setProxyTargetClass(
				environment.getProperty("spring.aop.proxy-target-class", Boolean.class, Boolean.TRUE));
		return postProcessor;
	}

	@Bean
	@ConditionalOnMissingBean
	WheelTimerLifecycle wheelTimerLifecycle(ListableBeanFactory beanFactory, DelayedMethodRegistry registry,
			ConfiguredTimers timers) {
		return new WheelTimerLifecycle(beanFactory, registry, timers);
	}

}
