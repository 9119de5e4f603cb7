package io.github.wheeltimer.annotation;

import java.util.concurrent.CompletableFuture;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.autoconfigure.WheelTimerAutoConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;

import static org.assertj.core.api.Assertions.assertThat;

/** A wrong {@link DelayedExecution} fails application startup with a message naming the method. */
class DelayedExecutionStartupFailureTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
				WheelTimerAutoConfiguration.class));

	@Test
	void neitherDelayNorDelayString() {
		assertStartupFails(NoDelay.class, "NoDelay.run()", "neither delay nor delayString is given");
	}

	@Test
	void bothDelayAndDelayString() {
		assertStartupFails(BothDelays.class, "BothDelays.run()",
				"both delay (5) and delayString (\"5s\") are given; give exactly one");
	}

	@Test
	void aNegativeDelay() {
		assertStartupFails(NegativeDelay.class, "NegativeDelay.run()", "the delay -5 MILLISECONDS is negative");
	}

	@Test
	void aNegativeDelayString() {
		assertStartupFails(NegativeDelayString.class, "NegativeDelayString.run()", "\"-5s\" is negative");
	}

	@Test
	void anUnparsableDelayString() {
		assertStartupFails(UnparsableDelay.class, "UnparsableDelay.run()",
				"delayString \"soon\" is not a duration; use a number of milliseconds");
	}

	@Test
	void aPlaceholderThatResolvesToAnUnparsableValueShowsBoth() {
		this.contextRunner.withPropertyValues("orders.delay=later")
			.withBean(PlaceholderDelay.class)
			.run((context) -> assertThat(startupFailure(context.getStartupFailure()))
				.hasMessageContaining("PlaceholderDelay.run()")
				.hasMessageContaining("\"${orders.delay}\" (resolved to \"later\") is not a duration"));
	}

	@Test
	void anUnresolvablePlaceholder() {
		assertStartupFails(PlaceholderDelay.class, "PlaceholderDelay.run()",
				"delayString \"${orders.delay}\" cannot be resolved");
	}

	@Test
	void anUnknownTimer() {
		assertStartupFails(UnknownTimer.class, "UnknownTimer.run()",
				"there is no bean named 'ordersTimer'; the Timer beans are [wheelTimer]");
	}

	@Test
	void aTimerNameOfABeanThatIsNoTimer() {
		this.contextRunner.withBean("notATimer", String.class, () -> "text")
			.withBean(NotATimer.class)
			.run((context) -> assertThat(startupFailure(context.getStartupFailure()))
				.hasMessageContaining("NotATimer.run()")
				.hasMessageContaining("bean 'notATimer' is a class java.lang.String, not an io.github.wheeltimer.Timer"));
	}

	@Test
	void severalTimersAndNoneChosen() {
		this.contextRunner.withBean("ordersTimer", HashedWheelTimer.class, HashedWheelTimer::new)
			.withBean("paymentsTimer", HashedWheelTimer.class, HashedWheelTimer::new)
			.withBean(NoTimerChosen.class)
			.run((context) -> assertThat(startupFailure(context.getStartupFailure()))
				.hasMessageContaining("NoTimerChosen.run()")
				.hasMessageContaining("several Timer beans [ordersTimer, paymentsTimer], none is @Primary and none is"
					+ " named 'wheelTimer'"));
	}

	@Test
	void severalTimersWithAPrimaryOneUseThePrimary() {
		this.contextRunner.withBean("ordersTimer", HashedWheelTimer.class, HashedWheelTimer::new)
			.withBean("paymentsTimer", HashedWheelTimer.class, HashedWheelTimer::new,
					(definition) -> definition.setPrimary(true))
			.withBean(NoTimerChosen.class)
			.run((context) -> assertThat(context.getBean(DelayedMethodRegistry.class).methods())
				.singleElement()
				.satisfies((method) -> assertThat(method.timerBeanName()).isEqualTo("paymentsTimer")));
	}

	@Test
	void anUnsupportedReturnType() {
		assertStartupFails(ReturnsString.class, "ReturnsString.run()",
				"its return type java.lang.String is not supported");
	}

	@Test
	void aPrivateMethod() {
		assertStartupFails(PrivateMethod.class, "PrivateMethod.run()", "it is private");
	}

	@Test
	void aFinalMethod() {
		assertStartupFails(FinalMethod.class, "FinalMethod.run()", "it is final");
	}

	@Test
	void aFinalClassNamesTheMethodAndTheFixRatherThanCglibsError() {
		assertStartupFails(FinalClass.class, "FinalClass.run()", "its class " + FinalClass.class.getName()
				+ " is final, so Spring cannot make the proxy that delays its calls (a subclass). Remove final");
	}

	@Test
	void aStaticMethod() {
		assertStartupFails(StaticMethod.class, "StaticMethod.run()", "it is static");
	}

	@Test
	void anAnnotationOnTheInterfaceMethodOnly() {
		assertStartupFails(InterfaceAnnotated.class, "InterfaceAnnotated.run()",
				"the annotation is on a declaration that this method overrides");
	}

	@Test
	void aBeanCreatedBeforeThePostProcessorThatDelaysItsCallsFailsStartupInsteadOfRunningThemAtOnce() {
		this.contextRunner.withUserConfiguration(EarlyBeanConfiguration.class)
			.run((context) -> assertThat(startupFailure(context.getStartupFailure()))
				.isInstanceOf(InvalidDelayedExecutionException.class)
				.hasMessageContaining("EarlyBean.run()")
				.hasMessageContaining("its bean 'earlyBean' was created before the post-processor that delays its"
						+ " calls, so they would run at once"));
	}

	private void assertStartupFails(Class<?> beanClass, String method, String reason) {
		this.contextRunner.withBean(beanClass).run((context) -> {
			assertThat(startupFailure(context.getStartupFailure())).isInstanceOf(InvalidDelayedExecutionException.class)
				.hasMessageContaining("@DelayedExecution on DelayedExecutionStartupFailureTests." + method
						+ " is invalid: ")
				.hasMessageContaining(reason);
		});
	}

	private static Throwable startupFailure(Throwable failure) {
		assertThat(failure).as("startup failure").isNotNull();
		Throwable cause = failure;
		while (cause != null && !(cause instanceof InvalidDelayedExecutionException)) {
			cause = cause.getCause();
		}
		return (cause != null) ? cause : NestedExceptionUtils.getMostSpecificCause(failure);
	}

	static class NoDelay {

		@DelayedExecution
		public void run() {
		}

	}

	static class BothDelays {

		@DelayedExecution(delay = 5, delayString = "5s")
		public void run() {
		}

	}

	static class NegativeDelay {

		@DelayedExecution(delay = -5)
		public void run() {
		}

	}

	static class NegativeDelayString {

		@DelayedExecution(delayString = "-5s")
		public void run() {
		}

	}

	static class UnparsableDelay {

		@DelayedExecution(delayString = "soon")
		public void run() {
		}

	}

	static class PlaceholderDelay {

		@DelayedExecution(delayString = "${orders.delay}")
		public void run() {
		}

	}

	static class UnknownTimer {

		@DelayedExecution(delay = 5, timer = "ordersTimer")
		public void run() {
		}

	}

	static class NotATimer {

		@DelayedExecution(delay = 5, timer = "notATimer")
		public void run() {
		}

	}

	static class NoTimerChosen {

		@DelayedExecution(delay = 5)
		public void run() {
		}

	}

	static class ReturnsString {

		@DelayedExecution(delay = 5)
		public String run() {
			return "never seen by the caller";
		}

	}

	static class PrivateMethod {

		@DelayedExecution(delay = 5)
		private void run() {
		}

		public void callRun() {
			run();
		}

	}

	static class FinalMethod {

		@DelayedExecution(delay = 5)
		public final void run() {
		}

	}

	static final class FinalClass {

		@DelayedExecution(delay = 5)
		public void run() {
		}

	}

	static class StaticMethod {

		@DelayedExecution(delay = 5)
		public static void run() {
		}

	}

	interface Task {

		@DelayedExecution(delay = 5)
		CompletableFuture<Void> run();

	}

	static class InterfaceAnnotated implements Task {

		@Override
		public CompletableFuture<Void> run() {
			return CompletableFuture.completedFuture(null);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class EarlyBeanConfiguration {

		@Bean
		static EarlyBean earlyBean() {
			return new EarlyBean();
		}

		/** Depends on the annotated bean, so the container creates it before any bean post-processor. */
		@Bean
		static BeanFactoryPostProcessor earlyBeanUser(EarlyBean earlyBean) {
			return (beanFactory) -> {
			};
		}

	}

	static class EarlyBean {

		@DelayedExecution(delay = 1)
		public void run() {
		}

	}

}
