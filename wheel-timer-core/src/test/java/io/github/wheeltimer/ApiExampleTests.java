package io.github.wheeltimer;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code docs/core.md}, "The API": its marked region is the page's first example, and it runs: the
 * response arrives in time, so nothing is left to run at shutdown.
 */
class ApiExampleTests {

	private final ExecutorService executor = Executors.newSingleThreadExecutor();

	@AfterEach
	void shutDown() {
		this.executor.shutdownNow();
	}

	@Test
	void aTimeoutCancelledBeforeItFallsDueNeverRunsAndIsNotLeftAtShutdown() {
		Connection connection = new Connection();
		// example: start
		HashedWheelTimer timer = HashedWheelTimer.builder()
				.tickDuration(Duration.ofMillis(10))   // precision; at least 1 ms, default 100 ms
				.ticksPerWheel(1024)                   // buckets; rounded up to a power of two, default 512
				.maxPendingTimeouts(1_000_000)         // optional back-pressure; default unlimited
				.taskExecutor(executor)                // optional; default: tasks run on the timer's thread
				.build();

		Timeout timeout = timer.newTimeout(t -> connection.close(), Duration.ofSeconds(30));
		// the response arrived in time:
		timeout.cancel();

		// at shutdown: keep firing what falls due for up to 5 s, then get back what never ran
		Set<Timeout> neverRan = timer.stopGracefully(Duration.ofSeconds(5));
		// example: end
		assertThat(timeout.isCancelled()).isTrue();
		assertThat(neverRan).isEmpty();
		assertThat(connection.closed).isFalse();
	}

	static class Connection {

		volatile boolean closed;

		void close() {
			this.closed = true;
		}

	}

}
