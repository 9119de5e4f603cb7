package io.github.wheeltimer.durable;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@link DurableCallsOverHttpTests} on a real PostgreSQL.
 */
class PostgresDurableCallsOverHttpTests extends DurableCallsOverHttpTests {

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		String url = Postgres.newDatabase();
		registry.add("spring.datasource.url", () -> url);
		registry.add("spring.datasource.username", () -> TestDatabases.user(url));
		registry.add("spring.datasource.password", () -> "");
	}

}
