package io.github.wheeltimer.durable;

import java.util.UUID;

/**
 * {@link DurableCallsContractTests} on H2, in memory.
 */
class H2DurableCallsTests extends DurableCallsContractTests {

	@Override
	String newDatabase() {
		return "jdbc:h2:mem:durable-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
	}

}
