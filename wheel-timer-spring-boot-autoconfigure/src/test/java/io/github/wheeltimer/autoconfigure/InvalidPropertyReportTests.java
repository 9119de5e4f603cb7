package io.github.wheeltimer.autoconfigure;

import java.util.UUID;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.annotation.DelayedExecution;
import io.github.wheeltimer.durable.DurableCalls;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * A bad timer property gives Spring Boot's "APPLICATION FAILED TO START" report naming the
 * property, whatever bean needs a timer first: the durable calls' poll timer (a bean that takes
 * {@code DurableCalls}) or a timer of the application's own built from the builder bean.
 */
@ExtendWith(OutputCaptureExtension.class)
class InvalidPropertyReportTests {

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			wheel-timer.tick-duration                     | 500us | The timer's tickDuration must be at least 1ms.
			wheel-timer.ticks-per-wheel                   | 0     | The timer's ticksPerWheel must be from 1 to
			wheel-timer.timers.retries.ticks-per-wheel    | -4    | The timer's ticksPerWheel must be from 1 to
			""")
	void aServiceThatTakesDelayedCallsStillGetsTheReport(String property, String value, String rule,
			CapturedOutput output) {
		assertThatException().isThrownBy(() -> run(PaymentsApplication.class, property, value).close());
		assertReported(output, property, value, rule);
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			wheel-timer.tick-duration     | 500us | The timer's tickDuration must be at least 1ms.
			wheel-timer.ticks-per-wheel   | 0     | The timer's ticksPerWheel must be from 1 to
			""")
	void aTimerOfTheApplicationsOwnFromTheBuilderStillGetsTheReport(String property, String value, String rule,
			CapturedOutput output) {
		assertThatException().isThrownBy(() -> run(OwnTimerApplication.class, property, value).close());
		assertReported(output, property, value, rule);
	}

	private static void assertReported(CapturedOutput output, String property, String value, String rule) {
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Invalid value '" + value + "' for configuration property '" + property + "'")
			.contains(rule);
	}

	private static org.springframework.context.ConfigurableApplicationContext run(Class<?> application,
			String property, String value) {
		SpringApplication app = new SpringApplication(application);
		app.setWebApplicationType(WebApplicationType.NONE);
		return app.run("--spring.datasource.url=jdbc:h2:mem:report-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"--spring.main.banner-mode=off", "--wheel-timer.timers.retries.tick-duration=10ms",
				"--" + property + "=" + value);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class PaymentsApplication {

		@Bean
		PaymentTimeouts paymentTimeouts() {
			return new PaymentTimeouts();
		}

		@Bean
		Payments payments(DurableCalls durableCalls) {
			return new Payments(durableCalls);
		}

	}

	static class PaymentTimeouts {

		@DelayedExecution(delay = 30_000, durable = true, key = "#orderId")
		public void cancelIfUnpaid(String orderId) {
		}

	}

	/** A service created before any timer bean: it takes what the durable calls need. */
	static class Payments {

		Payments(DurableCalls durableCalls) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class OwnTimerApplication {

		@Bean
		HashedWheelTimer ownTimer(HashedWheelTimer.Builder builder) {
			return builder.build();
		}

	}

}
