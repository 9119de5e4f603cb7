package io.github.wheeltimer.durable;

import org.springframework.test.context.TestPropertySource;

/**
 * {@link DurableCallsOverHttpTests} on H2.
 */
@TestPropertySource(properties = "spring.datasource.url=jdbc:h2:mem:durable-over-http;DB_CLOSE_DELAY=-1")
class H2DurableCallsOverHttpTests extends DurableCallsOverHttpTests {

}
