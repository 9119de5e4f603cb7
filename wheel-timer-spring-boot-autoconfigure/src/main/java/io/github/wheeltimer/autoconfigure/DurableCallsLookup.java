package io.github.wheeltimer.autoconfigure;

import io.github.wheeltimer.actuate.DurableCallsOperations;
import io.github.wheeltimer.actuate.JdbcDurableCallsOperations;
import io.github.wheeltimer.durable.DurableCalls;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Finds the durable calls for the Actuator's endpoint without loading what they need (Spring
 * JDBC, Jackson), nor any class of theirs, in applications that have neither.
 */
final class DurableCallsLookup {

	private DurableCallsLookup() {
	}

	static @Nullable DurableCallsOperations find(ListableBeanFactory beanFactory) {
		ClassLoader classLoader = (beanFactory instanceof ConfigurableBeanFactory configurable)
				? configurable.getBeanClassLoader() : null;
		if (!ClassUtils.isPresent("org.springframework.jdbc.core.JdbcTemplate", classLoader)) {
			return null;
		}
		return Durable.operations(beanFactory);
	}

	/** Loaded only once Spring JDBC is known to be there. */
	private static final class Durable {

		static @Nullable DurableCallsOperations operations(ListableBeanFactory beanFactory) {
			DurableCalls calls = beanFactory.getBeanProvider(DurableCalls.class).getIfAvailable();
			return (calls != null) ? new JdbcDurableCallsOperations(calls) : null;
		}

	}

}
