package io.github.wheeltimer.sample;

import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;

import static org.assertj.core.api.Assertions.assertThatException;

/**
 * The sample's own settings fail startup when they make no sense, naming the property.
 */
class SampleConfigurationTests {

	@Test
	void aPaymentTimeoutThatIsNotPositiveFailsStartup() {
		assertStartupFails("--sample.orders.payment-timeout=0s",
				"sample.orders.payment-timeout must be positive, such as 30s or 30m, but was PT0S");
	}

	@Test
	void noAttemptsAtAllFailsStartup() {
		assertStartupFails("--sample.shipping.max-attempts=0", "sample.shipping.max-attempts must be at least 1, but was 0");
	}

	@Test
	void aFailureRateAboveOneFailsStartup() {
		assertStartupFails("--sample.shipping.warehouse-failure-rate=1.5",
				"sample.shipping.warehouse-failure-rate must be between 0 and 1, but was 1.5");
	}

	private void assertStartupFails(String argument, String message) {
		SpringApplication application = new SpringApplication(SampleApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		assertThatException().isThrownBy(() -> application.run(argument).close())
			.satisfies((ex) -> org.assertj.core.api.Assertions.assertThat(rootCause(ex)).hasMessage(message));
	}

	private static Throwable rootCause(Throwable ex) {
		Throwable cause = ex;
		while (cause.getCause() != null && cause.getCause() != cause) {
			cause = cause.getCause();
		}
		return cause;
	}

}
