package io.github.wheeltimer.autoconfigure;

import io.github.wheeltimer.annotation.DelayedExecution;
import io.github.wheeltimer.annotation.InvalidDelayedExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

@ExtendWith(OutputCaptureExtension.class)
class InvalidDelayedExecutionFailureAnalyzerTests {

	@Test
	void describesTheMethodAndTheProblemAndSaysWhatToChange() throws NoSuchMethodException {
		InvalidDelayedExecutionException failure = new InvalidDelayedExecutionException(
				Orders.class.getMethod("cancelIfUnpaid", String.class), "delayString \"soon\" is not a duration");
		FailureAnalysis analysis = new InvalidDelayedExecutionFailureAnalyzer()
			.analyze(new IllegalStateException("wrapped", failure));
		assertThat(analysis.getDescription()).isEqualTo("@DelayedExecution on "
				+ "InvalidDelayedExecutionFailureAnalyzerTests.Orders.cancelIfUnpaid(String) is invalid: "
				+ "delayString \"soon\" is not a duration");
		assertThat(analysis.getAction()).startsWith("Change the @DelayedExecution annotation on "
				+ Orders.class.getName() + ".cancelIfUnpaid");
	}

	@Test
	void aSpringBootApplicationWithABadAnnotationPrintsTheAnalysisInItsFailureReport(CapturedOutput output) {
		SpringApplication application = new SpringApplication(BadAnnotationApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		assertThatException().isThrownBy(() -> application.run("--orders.delay=soon").close());
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("@DelayedExecution on InvalidDelayedExecutionFailureAnalyzerTests.Orders.cancelIfUnpaid(String)"
					+ " is invalid: delayString \"${orders.delay}\" (resolved to \"soon\") is not a duration")
			.contains("Change the @DelayedExecution annotation on");
	}

	@Test
	void aSpringBootApplicationWithABadPropertyNamesThePropertyAndTheValueAsWritten(CapturedOutput output) {
		SpringApplication application = new SpringApplication(BadAnnotationApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		assertThatException()
			.isThrownBy(() -> application.run("--orders.delay=1s", "--wheel-timer.tick-duration=500us").close());
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Invalid value '500us' for configuration property 'wheel-timer.tick-duration'")
			.contains("The timer's tickDuration must be at least 1ms.");
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class BadAnnotationApplication {

		@Bean
		Orders orders() {
			return new Orders();
		}

	}

	static class Orders {

		@DelayedExecution(delayString = "${orders.delay}")
		public void cancelIfUnpaid(String orderId) {
		}

	}

}
