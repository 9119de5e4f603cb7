package io.github.wheeltimer.test.docs;

import java.time.Duration;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.virtualtime.VirtualTicker;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code docs/testing.md}, "Testing a plain timer with virtual time": its marked regions are the
 * page's example, and between them what its comments say is checked.
 */
class VirtualTickerExampleTests {

	@Test
	void aConnectionIsClosedThirtyMinutesAfterItsTimeoutNotAMinuteEarlier() {
		Connection connection = new Connection();
		// example: start
		VirtualTicker ticker = new VirtualTicker();
		HashedWheelTimer timer = HashedWheelTimer.builder().ticker(ticker).build();
		timer.newTimeout(t -> connection.close(), Duration.ofMinutes(30));

		ticker.advance(Duration.ofMinutes(29));   // not closed yet
		// example: end
		assertThat(connection.closed).isFalse();
		// example: start
		ticker.advance(Duration.ofMinutes(1));    // closed: advance returned after the task ran
		// example: end
		assertThat(connection.closed).isTrue();
		timer.stop();
	}

	static class Connection {

		volatile boolean closed;

		void close() {
			this.closed = true;
		}

	}

}
