package io.github.wheeltimer.inmemory;

import org.junit.jupiter.api.Test;

import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The class path of this module is an in-memory user's: the starter, Spring MVC and Actuator, and
 * nothing that durable calls or tracing bring. The other tests of the module prove something only
 * on this class path: if a dependency drags one of these in, they could pass where a user's
 * application fails.
 */
class InMemoryClassPathTests {

	@Test
	void theClassPathHasNeitherJdbcNorTransactionsNorTracingNorContextPropagation() {
		assertThat(present("org.springframework.jdbc.core.JdbcTemplate")).as("spring-jdbc").isFalse();
		assertThat(present("org.springframework.transaction.PlatformTransactionManager")).as("spring-tx").isFalse();
		assertThat(present("org.springframework.dao.DataAccessException")).as("spring-tx's DAO exceptions").isFalse();
		assertThat(present("io.micrometer.tracing.Tracer")).as("Micrometer Tracing").isFalse();
		assertThat(present("io.micrometer.context.ContextSnapshotFactory")).as("context-propagation").isFalse();
	}

	@Test
	void theClassPathHasTheStarterSpringMvcAndActuator() {
		assertThat(present("io.github.wheeltimer.HashedWheelTimer")).as("the timer").isTrue();
		assertThat(present("io.github.wheeltimer.autoconfigure.WheelTimerAutoConfiguration")).as("the starter")
			.isTrue();
		assertThat(present("org.springframework.web.servlet.DispatcherServlet")).as("Spring MVC").isTrue();
		assertThat(present("org.springframework.boot.actuate.endpoint.annotation.Endpoint")).as("Actuator").isTrue();
		assertThat(present("io.micrometer.core.instrument.MeterRegistry")).as("Micrometer").isTrue();
	}

	private static boolean present(String className) {
		return ClassUtils.isPresent(className, InMemoryClassPathTests.class.getClassLoader());
	}

}
