package io.github.wheeltimer.autoconfigure;

import java.time.Duration;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.actuate.DurableCallsOperations;
import io.github.wheeltimer.actuate.WheelTimerEndpoint;
import io.github.wheeltimer.actuate.WheelTimerEndpointWebExtension;
import io.github.wheeltimer.annotation.DelayedMethodRegistry;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ImportRuntimeHints;

/**
 * Auto-configuration of the {@link WheelTimerEndpoint wheeltimer} Actuator endpoint, when Actuator
 * is on the classpath, the endpoint is available (enabled and exposed), and the context has a
 * {@link HashedWheelTimer}.
 */
@AutoConfiguration(after = { WheelTimerAutoConfiguration.class, WheelTimerDurableAutoConfiguration.class })
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnAvailableEndpoint(WheelTimerEndpoint.class)
@ImportRuntimeHints(WheelTimerEndpointRuntimeHints.class)
@EnableConfigurationProperties(WheelTimerEndpointProperties.class)
public final class WheelTimerEndpointAutoConfiguration {

	@Bean
	@ConditionalOnBean(HashedWheelTimer.class)
	@ConditionalOnMissingBean
	WheelTimerEndpoint wheelTimerEndpoint(ListableBeanFactory beanFactory,
			ObjectProvider<DelayedMethodRegistry> registry, ObjectProvider<ConfiguredTimers> settings,
			ObjectProvider<DurableCallsOperations> durable, ObjectProvider<EndpointAccessResolver> accessResolver,
			WheelTimerEndpointProperties properties) {
		ConfiguredTimers configured = settings.getIfAvailable();
		EndpointAccessResolver resolver = accessResolver.getIfAvailable();
		// What Actuator maps: a console reads it to offer only the changes the endpoint takes.
		Access access = (resolver != null) ? resolver.accessFor(EndpointId.of("wheeltimer"), Access.READ_ONLY)
				: Access.READ_ONLY;
		return new WheelTimerEndpoint(beanFactory.getBeansOfType(HashedWheelTimer.class, false, true),
				registry.getIfAvailable(), (name) -> (configured != null)
						? configured.settings(name).drainTimeout().value() : Duration.ZERO,
				durable.getIfAvailable(), access, properties.getShowArguments(), properties.getRoles());
	}

	@Bean
	@ConditionalOnBean(WheelTimerEndpoint.class)
	@ConditionalOnMissingBean
	@ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
	WheelTimerEndpointWebExtension wheelTimerEndpointWebExtension(WheelTimerEndpoint endpoint) {
		return new WheelTimerEndpointWebExtension(endpoint);
	}

}
