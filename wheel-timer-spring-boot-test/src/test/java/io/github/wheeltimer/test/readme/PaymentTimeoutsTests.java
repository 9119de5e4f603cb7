package io.github.wheeltimer.test.readme;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import io.github.wheeltimer.test.VirtualWheelClock;
import io.github.wheeltimer.test.VirtualWheelTime;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

// The README's step 4: DocsExamplesTests keeps it the same as this region.
// example: start
@SpringBootTest
@VirtualWheelTime
class PaymentTimeoutsTests {

	@Autowired PaymentTimeouts timeouts;
	@Autowired VirtualWheelClock clock;

	@Test
	void anUnpaidOrderIsCancelledThirtyMinutesAfterTheCallNotBefore() {
		timeouts.cancelIfUnpaid("42");
		clock.advance(Duration.ofMinutes(29));
		assertThat(timeouts.isCancelled("42")).isFalse();
		clock.advance(Duration.ofMinutes(1));
		assertThat(timeouts.isCancelled("42")).isTrue();
	}

	@Test
	void aReminderCompletesItsFutureTenSecondsAfterTheCall() {
		CompletableFuture<String> reminder = timeouts.remind("42");
		clock.advance(Duration.ofSeconds(10));
		assertThat(reminder).isCompletedWithValue("reminded 42");
	}
}
// example: end
