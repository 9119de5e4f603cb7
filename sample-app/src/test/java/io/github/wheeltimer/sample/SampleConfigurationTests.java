package io.github.wheeltimer.sample;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.sample.orders.Order;
import io.github.wheeltimer.sample.orders.OrderService;
import io.github.wheeltimer.sample.orders.ShipmentStatus;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * The sample's own settings fail startup when they make no sense, naming the property; the
 * extremes that do make sense start.
 */
class SampleConfigurationTests {

	@Test
	void aPaymentTimeoutThatIsNotPositiveFailsStartup() {
		assertStartupFails("--sample.orders.payment-timeout=0s",
				"sample.orders.payment-timeout must be positive, such as 30s or 30m, but was PT0S");
	}

	@Test
	void aNegativeNumberOfRetriesFailsStartup() {
		assertStartupFails("--sample.shipping.max-retries=-1", "sample.shipping.max-retries must be zero or more, but was -1");
	}

	@Test
	void noRetriesAtAllIsASettingThatStartsAndSendsEachOrderOnce() {
		SpringApplication application = new SpringApplication(SampleApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		try (ConfigurableApplicationContext context = application.run("--sample.shipping.max-retries=0",
				"--sample.shipping.warehouse-failure-rate=1")) {
			OrderService orders = context.getBean(OrderService.class);
			Order order = orders.pay(orders.create("a vase").id());
			assertThat(order.shipment()).isEqualTo(ShipmentStatus.FAILED);
			assertThat(order.shipmentAttempts()).isOne();
			assertThat(order.shipmentProblem())
				.isEqualTo("The warehouse refused order " + order.id() + " 1 time; no attempt is left");
			assertThat(context.getBean("retries", HashedWheelTimer.class).counters().scheduled()).as("no retry")
				.isZero();
		}
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
			.satisfies((ex) -> assertThat(rootCause(ex)).hasMessage(message));
	}

	private static Throwable rootCause(Throwable ex) {
		Throwable cause = ex;
		while (cause.getCause() != null && cause.getCause() != cause) {
			cause = cause.getCause();
		}
		return cause;
	}

}
