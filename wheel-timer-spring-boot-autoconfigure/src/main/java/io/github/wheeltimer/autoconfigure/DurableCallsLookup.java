package io.github.wheeltimer.autoconfigure;

import io.github.wheeltimer.durable.DurableCalls;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Finds the durable calls for the Actuator's beans without loading what they need (Spring JDBC,
 * Jackson) in applications that have neither.
 */
final class DurableCallsLookup {

	private DurableCallsLookup() {
	}

	static @Nullable DurableCalls find(ListableBeanFactory beanFactory) {
		ClassLoader classLoader = (beanFactory instanceof ConfigurableBeanFactory configurable)
				? configurable.getBeanClassLoader() : null;
		if (!ClassUtils.isPresent("org.springframework.jdbc.core.JdbcTemplate", classLoader)) {
			return null;
		}
		return beanFactory.getBeanProvider(DurableCalls.class).getIfAvailable();
	}

}
