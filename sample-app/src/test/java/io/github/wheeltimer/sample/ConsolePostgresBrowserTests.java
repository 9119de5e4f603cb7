package io.github.wheeltimer.sample;

import java.io.IOException;
import java.io.UncheckedIOException;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@link ConsoleBrowserTests} with the shop and its durable calls on a real PostgreSQL instead of
 * the sample's H2 file, started from the binaries in a Maven artifact for this class.
 */
class ConsolePostgresBrowserTests extends ConsoleBrowserTests {

	@DynamicPropertySource
	static void shopOnPostgres(DynamicPropertyRegistry registry) {
		registry.add("spring.datasource.url", () -> server().getJdbcUrl("postgres", "postgres"));
		registry.add("spring.datasource.username", () -> "postgres");
		registry.add("spring.datasource.password", () -> "");
		// A statement waits at most a second for a row lock, as H2's default does: the back-office
		// transaction of the re-queue test makes the payment timeout fail rather than wait for it.
		registry.add("spring.datasource.hikari.connection-init-sql", () -> "SET lock_timeout = '1s'");
	}

	private static EmbeddedPostgres server() {
		return Server.STARTED;
	}

	/** Started once, when the first context of this class asks; zonky's reaper stops it with the JVM. */
	private static final class Server {

		static final EmbeddedPostgres STARTED = start();

		private static EmbeddedPostgres start() {
			try {
				return EmbeddedPostgres.builder().start();
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not start the embedded PostgreSQL", ex);
			}
		}

	}

}
