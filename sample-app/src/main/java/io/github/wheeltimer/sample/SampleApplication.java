package io.github.wheeltimer.sample;

import java.time.Clock;
import java.time.Duration;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.annotation.Bean;

/**
 * A small shop built on {@code wheel-timer-spring-boot-starter}: orders that are not paid in time
 * cancel themselves, paid orders are sent to a flaky warehouse and retried later when it refuses
 * them, and {@code GET /} draws the timing wheel that holds all those delayed calls.
 * <p>
 * Run it from the root of the repository with {@code ./mvnw -pl sample-app -am spring-boot:run},
 * then open <a href="http://localhost:8080/">http://localhost:8080/</a>.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class SampleApplication {

	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

	/**
	 * The shop's clock: orders are stamped with it, in whole microseconds as the database keeps
	 * them. A bean, so that a test on virtual wheel time can give the shop the same time as the
	 * timer (see {@code PaymentTimeoutTests}).
	 */
	@Bean
	Clock clock() {
		return Clock.tick(Clock.systemUTC(), Duration.ofNanos(1000));
	}

}
