package io.github.wheeltimer.durable;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.wheeltimer.annotation.DelayedExecution;
import io.github.wheeltimer.autoconfigure.WheelTimerAutoConfiguration;
import io.github.wheeltimer.autoconfigure.WheelTimerDurableAutoConfiguration;
import io.github.wheeltimer.durable.engine.DurableEngine;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A row is read back strictly: arguments that would not be the ones the call was made with
 * (text after them, a fraction for an integer, nothing for a number, a property the type does not
 * have) mark the row failed with the reason, and the method does not run. Rows written before
 * (dates with an offset and no zone, numbers written as strings) are still read.
 */
class DurableArgumentsReadingTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
				WheelTimerAutoConfiguration.class, DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
				WheelTimerDurableAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:reading-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"wheel-timer.tick-duration=10ms", "wheel-timer.durable.horizon=1s",
				"wheel-timer.durable.poll-interval=200ms", "wheel-timer.durable.heartbeat-interval=200ms",
				"wheel-timer.durable.lease=1s")
		.withBean(Strict.class);

	@Test
	void textAfterTheArgumentsFailsTheRow() {
		this.runner.run((context) -> assertThat(failure(context, "strict.take", "[7,\"a\"] trailing garbage"))
			.isEqualTo("unreadable: the arguments' JSON array is followed by more text: [7,\"a\"] trailing garbage"));
	}

	@Test
	void aFractionForAnIntegerFailsTheRow() {
		this.runner.run((context) -> assertThat(failure(context, "strict.take", "[1.9,\"a\"]"))
			.isEqualTo("unreadable: the arguments cannot be read as this version's parameter types: parameter 0 (int):"
					+ " the row holds the number 1.9, which this version reads as int (Cannot coerce Floating-point"
					+ " value (1.9) to `int` value). If a version with another type there wrote the row, keep a type"
					+ " that reads what it wrote (a wider number, the enum's constant) until such calls have run:"
					+ " [1.9,\"a\"]"));
	}

	@Test
	void nullForAPrimitiveFailsTheRowEvenWhenTheApplicationsMapperAllowsIt() {
		this.runner.withPropertyValues("spring.jackson.use-jackson2-defaults=true")
			.run((context) -> assertThat(failure(context, "strict.take", "[null,\"a\"]"))
				.startsWith("unreadable: the arguments cannot be read as this version's parameter types: parameter 0"
						+ " (int): the row holds null, which this version reads as int (Cannot map `null` into type"
						+ " `int`"));
	}

	@Test
	void anEmptyStringForANumberFailsTheRow() {
		this.runner.run((context) -> assertThat(failure(context, "strict.boxed", "[\"\"]"))
			.startsWith("unreadable: the arguments cannot be read as this version's parameter types: parameter 0"
					+ " (java.lang.Integer): the row holds the string \"\", which this version reads as"
					+ " java.lang.Integer (Cannot coerce empty String"));
	}

	@Test
	void aPropertyTheTypeDoesNotHaveFailsTheRow() {
		this.runner.run((context) -> assertThat(failure(context, "strict.line", "[{\"sku\":\"s-1\",\"quantity\":2,"
				+ "\"quantty\":3}]"))
			.startsWith("unreadable: the arguments cannot be read as this version's parameter types: parameter 0 ("
					+ Line.class.getName() + ") at quantty: the row holds the number 3 as 'quantty', a property"
					+ " DurableArgumentsReadingTests.Line does not have here (it reads quantity, sku). If a version that"
					+ " had it wrote the row, keep the property until such calls have run, or drop its value on purpose"
					+ " with @JsonIgnoreProperties(\"quantty\") on DurableArgumentsReadingTests.Line"));
	}

	@Test
	void aNumberWrittenAsAStringIsStillANumber() {
		this.runner.run((context) -> assertThat(ran(context, "strict.take", "[\"7\",\"a\"]")).containsExactly(7, "a"));
	}

	@Test
	void aRowWrittenBeforeIsStillRead() {
		String row = "[\"o-1\",9.990,\"2024-03-01T09:30:15.5Z\",{\"sku\":\"s-1\",\"quantity\":2},{\"gifts\":1},null]";
		this.runner.run((context) -> assertThat(ran(context, "strict.old", row)).containsExactly("o-1",
				new BigDecimal("9.990"), Instant.parse("2024-03-01T09:30:15.5Z"), new Line("s-1", 2),
				Map.of("gifts", 1), Optional.empty()));
	}

	@Test
	void aZonedDateTimeWrittenBeforeWithAnOffsetOnlyKeepsThatOffset() {
		this.runner.run((context) -> assertThat(ran(context, "strict.zoned", "[\"2024-03-01T09:30:15.5+08:00\"]"))
			.containsExactly(ZonedDateTime.of(2024, 3, 1, 9, 30, 15, 500_000_000, ZoneOffset.ofHours(8))));
	}

	/** Inserts a pending row due now, and returns its error once it failed; the method never ran. */
	private static String failure(AssertableApplicationContext context, String methodId, String arguments) {
		assertThat(context).hasNotFailed();
		JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
		Strict strict = context.getBean(Strict.class);
		// Written by this version and changed by hand: a row of another version would be left to it.
		DurableCallsContractTests.insertRow(jdbc, methodId, arguments, "PENDING", null, 0,
				context.getBean(DurableEngine.class).shape(methodId));
		// On real time: a row by SQL is due by the wall clock; what comes is the poll that claims it, not a delay.
		await().atMost(Duration.ofSeconds(5))
			.until(() -> !strict.received().isEmpty()
					|| jdbc.queryForList("SELECT state FROM WHEEL_TIMER_CALL", String.class).contains("FAILED"));
		assertThat(strict.received()).as("the arguments the method ran with").isEmpty();
		return jdbc.queryForObject("SELECT last_error FROM WHEEL_TIMER_CALL", String.class);
	}

	/** Inserts a pending row due now, and returns the arguments its method ran with. */
	private static List<Object> ran(AssertableApplicationContext context, String methodId, String arguments) {
		assertThat(context).hasNotFailed();
		JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
		DurableCallsContractTests.insertRow(jdbc, methodId, arguments, "PENDING", null, 0);
		Strict strict = context.getBean(Strict.class);
		// On real time: a row by SQL is due by the wall clock; what comes is the poll that claims it, not a delay.
		await().atMost(Duration.ofSeconds(5)).until(() -> !strict.received().isEmpty());
		return strict.received().get(0);
	}

	public static class Strict {

		private final List<List<Object>> received = new CopyOnWriteArrayList<>();

		public List<List<Object>> received() {
			return this.received;
		}

		@DelayedExecution(delay = 1, timeUnit = TimeUnit.HOURS, durable = true, id = "strict.take")
		public void take(int number, String text) {
			record(number, text);
		}

		@DelayedExecution(delay = 1, timeUnit = TimeUnit.HOURS, durable = true, id = "strict.boxed")
		public void boxed(Integer number) {
			record(number);
		}

		@DelayedExecution(delay = 1, timeUnit = TimeUnit.HOURS, durable = true, id = "strict.line")
		public void line(Line line) {
			record(line);
		}

		@DelayedExecution(delay = 1, timeUnit = TimeUnit.HOURS, durable = true, id = "strict.old")
		public void old(String id, BigDecimal amount, Instant at, Line line, Map<String, Integer> counts,
				Optional<Instant> paidAt) {
			record(id, amount, at, line, counts, paidAt);
		}

		@DelayedExecution(delay = 1, timeUnit = TimeUnit.HOURS, durable = true, id = "strict.zoned")
		public void zoned(ZonedDateTime at) {
			record(at);
		}

		private void record(Object... arguments) {
			this.received.add(new ArrayList<>(Arrays.asList(arguments)));
		}

	}

	public record Line(String sku, int quantity) {
	}

}
