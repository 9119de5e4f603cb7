package io.github.wheeltimer.autoconfigure;

import io.github.wheeltimer.durable.DurableSchemaMissingException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a {@link DurableSchemaMissingException} into Spring Boot's startup failure report: what
 * is missing, and the two ways to create it.
 */
final class DurableSchemaMissingFailureAnalyzer extends AbstractFailureAnalyzer<DurableSchemaMissingException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, DurableSchemaMissingException cause) {
		return new FailureAnalysis("Durable delayed calls keep their calls in two tables of the application's"
				+ " database, and it lacks " + String.join(", ", cause.getMissing()) + ".",
				"Let the starter create what is missing: set wheel-timer.durable.jdbc.initialize-schema=always (it"
						+ " runs " + cause.getScript() + " from the wheel-timer-spring-boot-autoconfigure jar, which"
						+ " creates only what is missing, at each start). With Flyway or Liquibase, copy that script"
						+ " into a migration instead (with your wheel-timer.durable.jdbc.table-prefix in place of"
						+ " WHEEL_TIMER_, if you set one) and leave initialize-schema at never or embedded.",
				cause);
	}

}
