package io.github.wheeltimer.aot;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;

import io.github.wheeltimer.test.VirtualWheelClock;
import io.github.wheeltimer.test.VirtualWheelTime;
import org.junit.jupiter.api.Test;

import org.springframework.aot.AotDetector;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Virtual time in a test whose context was processed ahead of time, as a native test run does:
 * in-memory and durable calls run when the clock reaches them, not before.
 */
@SpringBootTest(properties = "spring.datasource.url=jdbc:h2:mem:aot-virtual;DB_CLOSE_DELAY=-1")
@VirtualWheelTime
class FeaturesVirtualTimeTests {

	@Autowired
	private Reminders reminders;

	@Autowired
	private VirtualWheelClock clock;

	@Autowired
	private JdbcTemplate jdbc;

	@Test
	void theContextComesFromTheCodeGeneratedAheadOfTime() {
		assertThat(AotDetector.useGeneratedArtifacts()).as("spring.aot.enabled, and the generated test context").isTrue();
	}

	@Test
	void delayedAndDurableCallsRunWhenVirtualTimeReachesThem() {
		this.reminders.ping("virtual");
		this.reminders.cancelIfUnpaid(new Order("o-virtual", new BigDecimal("1.50")));
		this.clock.advance(Duration.ofMillis(99));
		assertThat(runs()).doesNotContain("ping virtual");
		this.clock.advance(Duration.ofMillis(1));
		assertThat(runs()).contains("ping virtual").doesNotContain("cancel o-virtual 1.50");
		this.clock.advance(Duration.ofMillis(1400));
		assertThat(runs()).contains("cancel o-virtual 1.50");
	}

	private List<String> runs() {
		return this.jdbc.queryForList("SELECT what FROM aot_run", String.class);
	}

}
