package io.github.wheeltimer.durable;

import io.github.wheeltimer.autoconfigure.WheelTimerEndpointAutoConfiguration;
import io.github.wheeltimer.autoconfigure.WheelTimerHealthContributorAutoConfiguration;
import io.github.wheeltimer.autoconfigure.WheelTimerMetricsAutoConfiguration;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.context.annotation.Configuration;

/**
 * A hook for {@link DurableApp#start(Class[], String, String...)}: what an application with
 * Actuator adds to {@link DurableAutoConfiguration}, the endpoint, health and meters, with the
 * starter's parts of each.
 */
@Configuration(proxyBeanMethods = false)
@ImportAutoConfiguration({ EndpointAutoConfiguration.class, HealthContributorAutoConfiguration.class,
		MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
		WheelTimerEndpointAutoConfiguration.class, WheelTimerHealthContributorAutoConfiguration.class,
		WheelTimerMetricsAutoConfiguration.class })
class WithActuator {

}
