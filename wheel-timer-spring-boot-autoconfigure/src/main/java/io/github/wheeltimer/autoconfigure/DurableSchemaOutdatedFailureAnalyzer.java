package io.github.wheeltimer.autoconfigure;

import java.util.List;

import io.github.wheeltimer.durable.DurableSchemaOutdatedException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a {@link DurableSchemaOutdatedException} into Spring Boot's startup failure report: what
 * the database has of the tables, and the two ways to bring them to this version.
 */
final class DurableSchemaOutdatedFailureAnalyzer extends AbstractFailureAnalyzer<DurableSchemaOutdatedException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, DurableSchemaOutdatedException cause) {
		return new FailureAnalysis(description(cause), action(cause.getScripts()), cause);
	}

	private static String description(DurableSchemaOutdatedException cause) {
		String missing = String.join(", ", cause.getMissing());
		if (cause.getFoundVersion() == 0) {
			return "Durable delayed calls keep their calls in tables of the application's database, and it lacks "
					+ missing + ".";
		}
		if (cause.getFoundVersion() < cause.getNeededVersion()) {
			return "Durable delayed calls need version " + cause.getNeededVersion() + " of their tables, and the"
					+ " application's database has version " + cause.getFoundVersion()
					+ (missing.isEmpty() ? "." : ", which lacks " + missing + ".");
		}
		return "The application's database records version " + cause.getFoundVersion() + " of the durable calls'"
				+ " tables, yet it lacks " + missing + ".";
	}

	private static String action(List<String> scripts) {
		String run = (scripts.size() == 1)
				? "Run the migration script " + scripts.get(0) + " from the wheel-timer-spring-boot-autoconfigure jar"
				: "Run the migration scripts " + String.join(", ", scripts)
						+ " from the wheel-timer-spring-boot-autoconfigure jar, in this order";
		return run + ", or let the starter run " + ((scripts.size() == 1) ? "it" : "them") + " at startup: set wheel-timer.durable.jdbc.initialize-schema=always"
				+ " (it runs only the steps the database lacks, one instance at a time). With Flyway or"
				+ " Liquibase, copy each script into a migration of your own, as your next version (with your"
				+ " wheel-timer.durable.jdbc.table-prefix in place of WHEEL_TIMER_, if you set one), and leave"
				+ " initialize-schema at never or embedded.";
	}

}
