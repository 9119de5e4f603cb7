package io.github.wheeltimer.test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.wheeltimer.annotation.DelayedExecution;
import io.github.wheeltimer.durable.DurableCalls;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Durable calls on virtual time: a 30-minute durable delay, kept in a real (H2) database, tested
 * in milliseconds.
 */
@SpringBootTest(classes = VirtualWheelTimeDurableTests.Shop.class,
		properties = { "spring.datasource.url=jdbc:h2:mem:virtual-durable;DB_CLOSE_DELAY=-1",
				"wheel-timer.tick-duration=100ms" })
@VirtualWheelTime
class VirtualWheelTimeDurableTests {

	@Autowired
	Payments payments;

	@Autowired
	VirtualWheelClock clock;

	@Autowired
	JdbcTemplate jdbc;

	@Autowired
	DurableCalls durableCalls;

	@BeforeEach
	void forgetEarlierRuns() {
		this.payments.cancelled().clear();
	}

	@Test
	void aDurableCallThirtyMinutesAwayRunsWhenVirtualTimeGetsThereAndItsRowIsGone() {
		this.payments.cancelIfUnpaid("o-1");
		assertThat(rows()).isEqualTo(1);
		this.clock.advance(Duration.ofMinutes(29).plusSeconds(59));
		assertThat(this.payments.cancelled()).isEmpty();
		this.clock.advance(Duration.ofSeconds(1));
		assertThat(this.payments.cancelled()).containsExactly("o-1");
		assertThat(rows()).isZero();
	}

	@Test
	void aDurableCallCancelledByKeyNeverRuns() {
		this.payments.cancelIfUnpaid("o-2");
		this.clock.advance(Duration.ofMinutes(10));
		assertThat(this.durableCalls.cancel("Payments.cancelIfUnpaid", "o-2")).isTrue();
		this.clock.advance(Duration.ofMinutes(30));
		assertThat(this.payments.cancelled()).isEmpty();
		assertThat(rows()).isZero();
	}

	private long rows() {
		Long count = this.jdbc.queryForObject("SELECT COUNT(*) FROM WHEEL_TIMER_CALL", Long.class);
		return (count != null) ? count : -1;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Shop {

		@Bean
		Payments payments() {
			return new Payments();
		}

	}

	static class Payments {

		private final List<String> cancelled = new CopyOnWriteArrayList<>();

		List<String> cancelled() {
			return this.cancelled;
		}

		@DelayedExecution(delay = 30, timeUnit = TimeUnit.MINUTES, durable = true, key = "#orderId")
		public void cancelIfUnpaid(String orderId) {
			this.cancelled.add(orderId);
		}

	}

}
