package io.github.wheeltimer.aot;

import io.github.wheeltimer.autoconfigure.WheelTimerBuilderCustomizer;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * An application that uses every feature of the starter, as a user would write it: a named timer
 * from the properties, a customizer, in-memory calls (one returning a future) and a durable call
 * with a key on an H2 database, the endpoint, health, meters and observations. Processed ahead of
 * time by the build, and run with {@code -Dspring.aot.enabled=true} by its tests.
 */
@SpringBootApplication
public class FeaturesApplication {

	/** The limit the customizer gives every timer the starter builds: seen through the endpoint. */
	public static final long MAX_PENDING = 100_000;

	public static void main(String[] args) {
		SpringApplication.run(FeaturesApplication.class, args);
	}

	@Bean
	WheelTimerBuilderCustomizer maxPendingCustomizer() {
		return (builder) -> builder.maxPendingTimeouts(MAX_PENDING);
	}

}
