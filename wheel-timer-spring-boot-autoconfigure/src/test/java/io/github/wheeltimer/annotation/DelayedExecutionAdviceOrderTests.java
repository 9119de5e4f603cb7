package io.github.wheeltimer.annotation;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.wheeltimer.autoconfigure.WheelTimerAutoConfiguration;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.annotation.Before;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.resilience.annotation.EnableResilientMethods;
import org.springframework.resilience.annotation.Retryable;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Other advice on a delayed method applies when the method runs, on the executor's thread, and not
 * when it is called.
 */
class DelayedExecutionAdviceOrderTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
				WheelTimerAutoConfiguration.class))
		.withPropertyValues("wheel-timer.tick-duration=10ms")
		.withUserConfiguration(PaymentConfiguration.class);

	@Test
	void aTransactionIsOpenedWhenTheDelayedMethodRunsOnTheExecutorThread() {
		this.contextRunner.run((context) -> {
			PaymentService payments = context.getBean(PaymentService.class);
			RecordingTransactionManager transactions = context.getBean(RecordingTransactionManager.class);
			CompletableFuture<String> refund = payments.refund("order-1");
			assertThat(transactions.begun).as("no transaction at call time").isEmpty();
			assertThat(refund.get(10, TimeUnit.SECONDS)).startsWith("refunded order-1 in a transaction on task-");
			assertThat(transactions.begun).singleElement().asString().startsWith("task-");
			assertThat(transactions.committed).containsExactlyElementsOf(transactions.begun);
		});
	}

	@Test
	void otherAspectsWithArgumentBindingRunAtExecutionTimeWithTheCallsArguments() {
		this.contextRunner.run((context) -> {
			PaymentService payments = context.getBean(PaymentService.class);
			AuditAspect audit = context.getBean(AuditAspect.class);
			payments.refund("order-2").get(10, TimeUnit.SECONDS);
			assertThat(audit.events).hasSize(2)
				.anySatisfy((event) -> assertThat(event).startsWith("before order-2 on task-"))
				.anySatisfy((event) -> assertThat(event).startsWith("around order-2 on task-"));
		});
	}

	@Test
	void aRetryableDelayedMethodIsRetriedWhenItRunsNotWhenItIsCalled() {
		this.contextRunner.withUserConfiguration(RetryConfiguration.class).run((context) -> {
			FlakyWarehouse warehouse = context.getBean(FlakyWarehouse.class);
			CompletableFuture<String> shipped = warehouse.ship("order-3");
			assertThat(warehouse.attempts()).as("nothing at call time").isEmpty();
			assertThat(shipped.get(10, TimeUnit.SECONDS)).isEqualTo("shipped order-3 at attempt 3");
			assertThat(warehouse.attempts()).hasSize(3).allSatisfy((thread) -> assertThat(thread).startsWith("task-"));
		});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableResilientMethods
	static class RetryConfiguration {

		@Bean
		FlakyWarehouse flakyWarehouse() {
			return new FlakyWarehouse();
		}

	}

	static class FlakyWarehouse {

		private final List<String> attempts = new CopyOnWriteArrayList<>();

		@DelayedExecution(delay = 500)
		@Retryable(maxRetries = 4, delay = 10)
		public CompletableFuture<String> ship(String orderId) {
			this.attempts.add(Thread.currentThread().getName());
			if (this.attempts.size() < 3) {
				throw new IllegalStateException("the warehouse is busy");
			}
			return CompletableFuture.completedFuture("shipped " + orderId + " at attempt " + this.attempts.size());
		}

		public List<String> attempts() {
			return this.attempts;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement
	static class PaymentConfiguration {

		@Bean
		PaymentService paymentService() {
			return new PaymentService();
		}

		@Bean
		RecordingTransactionManager transactionManager() {
			return new RecordingTransactionManager();
		}

		@Bean
		AuditAspect auditAspect() {
			return new AuditAspect();
		}

	}

	static class PaymentService {

		// Long enough that a loaded machine asserts nothing began at call time before the call falls due.
		@DelayedExecution(delay = 500)
		@Transactional
		public CompletableFuture<String> refund(String orderId) {
			String transaction = TransactionSynchronizationManager.isActualTransactionActive() ? " in a transaction"
					: " without a transaction";
			return CompletableFuture
				.completedFuture("refunded " + orderId + transaction + " on " + Thread.currentThread().getName());
		}

	}

	/** Binds the call's argument, which needs the invocation exposed on the thread that runs it. */
	@Aspect
	static class AuditAspect {

		final List<String> events = new CopyOnWriteArrayList<>();

		@Before("execution(* *..PaymentService.refund(..)) && args(orderId)")
		public void before(String orderId) {
			this.events.add("before " + orderId + " on " + Thread.currentThread().getName());
		}

		@Around("execution(* *..PaymentService.refund(..)) && args(orderId)")
		public Object around(ProceedingJoinPoint joinPoint, String orderId) throws Throwable {
			this.events.add("around " + orderId + " on " + Thread.currentThread().getName());
			return joinPoint.proceed();
		}

	}

	static class RecordingTransactionManager extends AbstractPlatformTransactionManager
			implements PlatformTransactionManager {

		final List<String> begun = new CopyOnWriteArrayList<>();

		final List<String> committed = new CopyOnWriteArrayList<>();

		@Override
		protected Object doGetTransaction() {
			return new Object();
		}

		@Override
		protected void doBegin(Object transaction, TransactionDefinition definition) {
			this.begun.add(Thread.currentThread().getName());
		}

		@Override
		protected void doCommit(DefaultTransactionStatus status) {
			this.committed.add(Thread.currentThread().getName());
		}

		@Override
		protected void doRollback(DefaultTransactionStatus status) {
		}

	}

}
