package io.github.wheeltimer.autoconfigure;

import java.util.Arrays;
import java.util.Map;
import java.util.Set;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.Timer;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.StringUtils;

/**
 * Registers one {@link HashedWheelTimer} bean per entry of {@code wheel-timer.timers}, named by
 * its key. The names are read from the environment when bean definitions are registered, since
 * they decide which beans exist; each timer is built later, like any singleton, by
 * {@link ConfiguredTimers}.
 */
final class NamedTimersRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware, BeanFactoryAware {

	private static final String PROPERTY = "wheel-timer.timers";

	private @Nullable Environment environment;

	private @Nullable ListableBeanFactory beanFactory;

	@Override
	public void setEnvironment(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = (ListableBeanFactory) beanFactory;
	}

	@Override
	public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
		if (this.environment == null || this.beanFactory == null) {
			throw new IllegalStateException("NamedTimersRegistrar needs its environment and bean factory");
		}
		ListableBeanFactory beanFactory = this.beanFactory;
		Set<String> names = Binder.get(this.environment)
			.bind(PROPERTY, Bindable.mapOf(String.class, WheelTimerProperties.NamedTimer.class))
			.map(Map::keySet)
			.orElse(Set.of());
		for (String name : names) {
			requireUsable(name, names, registry, beanFactory);
			// A factory method with its argument, not an instance supplier: ahead-of-time processing
			// generates code for it (and the timers of the build-time properties are the image's).
			RootBeanDefinition definition = new RootBeanDefinition(HashedWheelTimer.class);
			definition.setFactoryBeanName(WheelTimerAutoConfiguration.CONFIGURED_TIMERS);
			definition.setFactoryMethodName("build");
			definition.getConstructorArgumentValues().addIndexedArgumentValue(0, name);
			registry.registerBeanDefinition(name, definition);
		}
	}

	private static void requireUsable(String name, Set<String> names, BeanDefinitionRegistry registry,
			ListableBeanFactory beanFactory) {
		if (!StringUtils.hasText(name)) {
			throw invalid(name, "A timer needs a name: it becomes the timer's bean name.", names);
		}
		if (TimerSettings.DEFAULT_TIMER.equals(name)) {
			throw invalid(name, "'" + name + "' is the default timer: configure it with the wheel-timer.* settings"
					+ " themselves, and give further timers other names.", names);
		}
		if (registry.containsBeanDefinition(name)) {
			throw invalid(name, "A bean named '" + name + "' already exists, and a timer becomes a bean of its name."
					+ " Rename the timer. Timer beans already defined: "
					+ Arrays.toString(beanFactory.getBeanNamesForType(Timer.class, true, false))
					+ ".", names);
		}
	}

	private static InvalidConfigurationPropertyValueException invalid(String name, String reason, Set<String> names) {
		return new InvalidConfigurationPropertyValueException(PROPERTY + "." + name, name,
				reason + " The timers of " + PROPERTY + " are " + names + ".");
	}

}
