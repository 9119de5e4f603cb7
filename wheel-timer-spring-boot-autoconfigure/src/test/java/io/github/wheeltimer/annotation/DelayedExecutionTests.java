package io.github.wheeltimer.annotation;

import java.io.IOException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.Collectors;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.VirtualTime;
import io.github.wheeltimer.WheelSnapshot;
import io.github.wheeltimer.annotation.Invocations.Invocation;
import io.github.wheeltimer.autoconfigure.WheelTimerAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.TaskRejectedException;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

@ExtendWith(OutputCaptureExtension.class)
class DelayedExecutionTests {

	/** The timer's tick. */
	private static final Duration TICK = Duration.ofMillis(10);

	private final ApplicationContextRunner onRealTime = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
				WheelTimerAutoConfiguration.class))
		.withPropertyValues("wheel-timer.tick-duration=10ms", "orders.reminder-delay=300ms")
		.withUserConfiguration(OrderServiceConfiguration.class);

	/** On virtual time: a test advances the timer's clock and asserts right after. */
	private final ApplicationContextRunner contextRunner = this.onRealTime.withUserConfiguration(VirtualTime.class);

	@Test
	void aVoidCallReturnsAtOnceAndTheMethodRunsAfterTheDelayWithTheCallsArguments() {
		this.contextRunner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			orders.cancelIfUnpaid("order-1");
			assertThat(orders.invocations().isEmpty()).as("the call returned before the method ran").isTrue();
			VirtualTime.advance(context, OrderService.CANCEL_DELAY.minus(TICK));
			assertThat(orders.invocations().isEmpty()).as("never early").isTrue();
			VirtualTime.advance(context, TICK);
			assertThat(orders.invocations().all()).as("on its tick").singleElement().satisfies((run) -> {
				assertThat(run.method()).isEqualTo("cancelIfUnpaid");
				assertThat(run.arguments()).containsExactly("order-1");
			});
		});
	}

	@Test
	void delayedMethodsRunOnTheApplicationTaskExecutorNotOnTheTimersThread() {
		this.contextRunner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			orders.cancelIfUnpaid("order-1");
			VirtualTime.advance(context, OrderService.CANCEL_DELAY);
			assertThat(orders.invocations().all()).singleElement()
				.satisfies((run) -> assertThat(run.thread()).startsWith("task-").isNotEqualTo("wheel-timer"));
		});
	}

	@Test
	void delayedMethodsRunOnTheExecutorThePropertiesName() {
		this.contextRunner.withPropertyValues("wheel-timer.executor=ordersPool")
			.withBean("ordersPool", ThreadPoolTaskExecutor.class, () -> {
				ThreadPoolTaskExecutor pool = new ThreadPoolTaskExecutor();
				pool.setThreadNamePrefix("orders-pool-");
				return pool;
			})
			.run((context) -> {
				OrderService orders = context.getBean(OrderService.class);
				orders.cancelIfUnpaid("order-1");
				VirtualTime.advance(context, OrderService.CANCEL_DELAY);
				assertThat(orders.invocations().all()).singleElement()
					.satisfies((run) -> assertThat(run.thread()).startsWith("orders-pool-"));
			});
	}

	@Test
	@EnabledForJreRange(min = JRE.JAVA_21)
	void withVirtualThreadsEnabledDelayedMethodsRunOnVirtualThreads() {
		this.contextRunner.withPropertyValues("spring.threads.virtual.enabled=true").run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			CompletableFuture<Boolean> virtual = orders.runningThreadIsVirtual();
			// A zero delay: due at the end of the tick that starts now.
			VirtualTime.advance(context, TICK);
			assertThat(virtual).isCompletedWithValue(true);
		});
	}

	@Test
	void aCompletableFutureCompletesWithTheMethodsOwnResultAfterAPlaceholderDelay() {
		this.contextRunner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			CompletableFuture<String> reminder = orders.remind("order-2");
			VirtualTime.advance(context, Duration.ofMillis(300).minus(TICK));
			assertThat(reminder).as("never early").isNotDone();
			VirtualTime.advance(context, TICK);
			assertThat(reminder).isCompletedWithValue("reminded order-2");
			assertThat(orders.invocations().all()).hasSize(1);
		});
	}

	@Test
	void aCompletionStageCompletesWithTheResultAfterASpelDelay() {
		this.contextRunner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			CompletionStage<Integer> total = orders.total(20, 22);
			VirtualTime.advance(context, Duration.ofMillis(200).minus(TICK));
			assertThat(orders.invocations().isEmpty()).as("never early").isTrue();
			VirtualTime.advance(context, TICK);
			assertThat(orders.invocations().all()).extracting(Invocation::arguments).containsExactly(List.of(20, 22));
			// Real time: the method's own stage completes on the common pool, which no advance waits for.
			assertThat(total.toCompletableFuture().get(10, TimeUnit.SECONDS)).isEqualTo(42);
		});
	}

	@Test
	void aFutureIsUnwrappedFromTheFutureTheMethodReturnsAfterAnIsoDelay() {
		this.contextRunner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			Future<String> status = orders.status("order-3");
			VirtualTime.advance(context, Duration.ofMillis(250).minus(TICK));
			assertThat(status).as("never early").isNotDone();
			VirtualTime.advance(context, TICK);
			assertThat(status).succeedsWithin(Duration.ZERO).isEqualTo("order-3: paid");
			assertThat(orders.invocations().all()).hasSize(1);
		});
	}

	@Test
	void eachDelayFormIsResolvedOnceAtStartup() {
		this.contextRunner.run((context) -> {
			Map<String, Duration> delays = context.getBean(DelayedMethodRegistry.class)
				.methods()
				.stream()
				.collect(Collectors.toMap(DelayedMethod::description, DelayedMethod::delay));
			assertThat(delays).containsEntry("DelayedExecutionTests.OrderService.cancelIfUnpaid(String)", Duration.ofMillis(500))
				.containsEntry("DelayedExecutionTests.OrderService.remind(String)", Duration.ofMillis(300))
				.containsEntry("DelayedExecutionTests.OrderService.total(int, int)", Duration.ofMillis(200))
				.containsEntry("DelayedExecutionTests.OrderService.status(String)", Duration.ofMillis(250))
				.containsEntry("DelayedExecutionTests.OrderService.renewLease(String)", Duration.ofSeconds(2))
				.containsEntry("DelayedExecutionTests.OrderService.archive(String)", Duration.ofMinutes(30));
			assertThat(context.getBean(DelayedMethodRegistry.class).methods())
				.allSatisfy((method) -> assertThat(method.timerBeanName()).isEqualTo("wheelTimer"));
		});
	}

	@Test
	void aMethodThatThrowsCompletesItsFutureWithThatException() {
		this.contextRunner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			CompletableFuture<String> failsNow = orders.failNow();
			CompletableFuture<String> failsLater = orders.failLater();
			VirtualTime.advance(context, OrderService.FAILURE_DELAY.minus(TICK));
			assertThat(failsNow).as("never early").isNotDone();
			assertThat(failsLater).as("never early").isNotDone();
			VirtualTime.advance(context, TICK);
			assertThat(failsNow).failsWithin(Duration.ZERO)
				.withThrowableOfType(ExecutionException.class)
				.havingCause()
				.isInstanceOf(IllegalStateException.class)
				.withMessage("payment service down");
			assertThat(failsLater).failsWithin(Duration.ZERO)
				.withThrowableOfType(ExecutionException.class)
				.havingCause()
				.isInstanceOf(IOException.class)
				.withMessage("connection reset");
		});
	}

	@Test
	void aVoidMethodsExceptionGoesToTheExceptionHandlerBeanWithTheMethodAndArguments() {
		this.contextRunner.withUserConfiguration(RecordingHandlerConfiguration.class).run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			BlockingQueue<HandledFailure> failures = context.getBean(RecordingHandlerConfiguration.class).failures;
			orders.failVoid("order-4");
			VirtualTime.advance(context, OrderService.FAILURE_DELAY.minus(TICK));
			assertThat(failures).as("never early").isEmpty();
			VirtualTime.advance(context, TICK);
			HandledFailure failure = failures.poll();
			assertThat(failure).isNotNull();
			assertThat(failure.ex()).isInstanceOf(IllegalStateException.class).hasMessage("cannot cancel order-4");
			assertThat(failure.method().getName()).isEqualTo("failVoid");
			assertThat(failure.arguments()).containsExactly("order-4");
			// The wheel survives user exceptions.
			orders.cancelIfUnpaid("order-5");
			VirtualTime.advance(context, OrderService.CANCEL_DELAY);
			assertThat(orders.invocations().all()).singleElement()
				.satisfies((run) -> assertThat(run.arguments()).containsExactly("order-5"));
		});
	}

	@Test
	void withoutAHandlerAVoidMethodsExceptionIsLoggedAtErrorWithTheMethod(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			context.getBean(OrderService.class).failVoid("order-6");
			VirtualTime.advance(context, OrderService.FAILURE_DELAY);
			assertThat(output).contains("ERROR")
				.contains("Delayed call to DelayedExecutionTests.OrderService.failVoid(String) failed")
				.contains("cannot cancel order-6");
		});
	}

	@Test
	void aFailingExceptionHandlerIsLoggedAndTheFailureStillReported(CapturedOutput output) {
		this.contextRunner.withBean(DelayedExecutionExceptionHandler.class, () -> (ex, method, params) -> {
			throw new IllegalArgumentException("handler broke");
		}).run((context) -> {
			context.getBean(OrderService.class).failVoid("order-7");
			VirtualTime.advance(context, OrderService.FAILURE_DELAY);
			assertThat(output).contains("handler broke").contains("cannot cancel order-7");
		});
	}

	@Test
	void cancellingTheFutureBeforeTheDelayCancelsTheCall() {
		this.contextRunner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			HashedWheelTimer timer = context.getBean(HashedWheelTimer.class);
			CompletableFuture<String> reminder = orders.remind("order-8");
			assertThat(reminder.cancel(false)).isTrue();
			assertThat(timer.snapshot().counters().cancelled()).isEqualTo(1);
			VirtualTime.advance(context, Duration.ofSeconds(1));
			assertThat(orders.invocations().isEmpty()).as("never ran, well past its 300 ms delay").isTrue();
			assertThat(reminder).isCancelled();
		});
	}

	@Test
	void callsFromInsideTheBeanAreNotDelayed() {
		this.contextRunner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			orders.cancelFromInside("order-10");
			assertThat(orders.invocations().all()).as("ran at once, in the caller's thread")
				.singleElement()
				.satisfies((run) -> assertThat(run.thread()).isEqualTo(Thread.currentThread().getName()));
		});
	}

	@Test
	void aStoppedTimerRefusesCallsAtOnceInTheCallersThreadNamingTheTimer() {
		this.contextRunner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			context.getBean(HashedWheelTimer.class).stop();
			assertThatExceptionOfType(TaskRejectedException.class).isThrownBy(() -> orders.cancelIfUnpaid("order-11"))
				.withMessageContaining("Timer 'wheelTimer' refused the delayed call to DelayedExecutionTests.OrderService.cancelIfUnpaid")
				.withMessageContaining("stopped");
			assertThatExceptionOfType(TaskRejectedException.class).as("thrown, not hidden in a future")
				.isThrownBy(() -> orders.remind("order-12"))
				.withMessageContaining("DelayedExecutionTests.OrderService.remind(String)");
		});
	}

	@Test
	void stoppingTheTimerDirectlyCancelsTheFuturesOfTheCallsThatNeverRan() {
		this.contextRunner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			CompletableFuture<String> reminder = orders.remind("order-13");
			CompletableFuture<String> dependant = reminder.thenApply(String::toUpperCase);

			assertThat(context.getBean(HashedWheelTimer.class).stop()).hasSize(1);

			assertThat(reminder).as("cancelled before stop() returned").isCancelled();
			assertThat(dependant).isCompletedExceptionally();
			assertThat(orders.invocations().isEmpty()).isTrue();
		});
	}

	@Test
	void beyondMaxPendingTimeoutsACallIsRefusedAtOnce() {
		this.contextRunner.withPropertyValues("wheel-timer.max-pending-timeouts=1").run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			orders.archive("order-13");
			assertThatExceptionOfType(TaskRejectedException.class).isThrownBy(() -> orders.remind("order-14"))
				.withMessageContaining("Timer 'wheelTimer'")
				.withMessageContaining("maxPendingTimeouts = 1");
			assertThat(context.getBean(HashedWheelTimer.class).snapshot().counters().rejected()).isEqualTo(1);
			DelayedMethod remind = context.getBean(DelayedMethodRegistry.class)
				.methods()
				.stream()
				.filter((method) -> method.method().getName().equals("remind"))
				.findFirst()
				.orElseThrow();
			assertThat(remind.calls()).as("a refused call is not counted as accepted").isZero();
		});
	}

	@Test
	void aDelayedMethodThatBlocksDoesNotMakeOtherDelayedCallsLate() {
		// Real time: the blocked method holds its executor thread, which an advance of virtual time would wait for.
		this.onRealTime.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			CountDownLatch release = new CountDownLatch(1);
			try {
				orders.block(release);
				await().atMost(Invocations.WAIT).until(() -> orders.blocked().get() == 1);
				long calledAt = System.nanoTime();
				orders.cancelIfUnpaid("order-15");
				Invocation run = orders.invocations().next();
				assertThat(run.since(calledAt)).isGreaterThanOrEqualTo(OrderService.CANCEL_DELAY)
					.isLessThan(OrderService.CANCEL_DELAY.plus(Duration.ofSeconds(2)));
				assertThat(orders.blocked().get()).as("still blocked meanwhile").isEqualTo(1);
			}
			finally {
				release.countDown();
			}
		});
	}

	@Test
	void callsFromSeveralThreadsEachRunExactlyOnce() {
		int threads = 4;
		int callsPerThread = 250;
		this.contextRunner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			AtomicIntegerArray runs = orders.renewals(threads * callsPerThread);
			CyclicBarrier start = new CyclicBarrier(threads);
			List<Thread> callers = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int first = t * callsPerThread;
				Thread caller = new Thread(() -> {
					awaitQuietly(start);
					for (int i = first; i < first + callsPerThread; i++) {
						orders.renew(i, ThreadLocalRandom.current().nextInt(0, 50));
					}
				});
				callers.add(caller);
				caller.start();
			}
			for (Thread caller : callers) {
				caller.join(Invocations.WAIT.toMillis());
			}
			VirtualTime.advance(context, OrderService.RENEW_DELAY.minus(TICK));
			assertThat(orders.renewed().get()).as("never early").isZero();
			VirtualTime.advance(context, TICK);
			assertThat(orders.renewed().get()).isEqualTo(threads * callsPerThread);
			for (int i = 0; i < threads * callsPerThread; i++) {
				assertThat(runs.get(i)).as("runs of call %d", i).isEqualTo(1);
			}
			WheelSnapshot.Counters counters = context.getBean(HashedWheelTimer.class).snapshot().counters();
			assertThat(counters.scheduled()).isEqualTo(threads * callsPerThread);
			assertThat(counters.completed()).isEqualTo(threads * callsPerThread);
			assertThat(context.getBean(DelayedMethodRegistry.class).methods())
				.filteredOn((method) -> method.method().getName().equals("renew"))
				.singleElement()
				.satisfies((renew) -> assertThat(renew.calls()).isEqualTo(threads * callsPerThread));
		});
	}

	private static void awaitQuietly(CyclicBarrier barrier) {
		try {
			barrier.await(10, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class OrderServiceConfiguration {

		@Bean
		OrderService orderService() {
			return new OrderService();
		}

	}

	record HandledFailure(Throwable ex, Method method, List<Object> arguments) {
	}

	@Configuration(proxyBeanMethods = false)
	static class RecordingHandlerConfiguration {

		final BlockingQueue<HandledFailure> failures = new LinkedBlockingQueue<>();

		@Bean
		DelayedExecutionExceptionHandler recordingHandler() {
			return (ex, method, params) -> this.failures.add(new HandledFailure(ex, method, List.of(params)));
		}

	}

	static class OrderService {

		static final Duration CANCEL_DELAY = Duration.ofMillis(500);

		/** The delay of {@link #failNow}, {@link #failLater} and {@link #failVoid}. */
		static final Duration FAILURE_DELAY = Duration.ofMillis(50);

		/** {@link #renew}'s delay. */
		static final Duration RENEW_DELAY = Duration.ofMillis(20);

		final Invocations invocations = new Invocations();

		final AtomicInteger blocked = new AtomicInteger();

		final AtomicInteger renewed = new AtomicInteger();

		private volatile AtomicIntegerArray renewals = new AtomicIntegerArray(0);

		// Tests reach the state through methods: a class-based proxy has its own, empty fields.
		public Invocations invocations() {
			return this.invocations;
		}

		public AtomicInteger blocked() {
			return this.blocked;
		}

		public AtomicInteger renewed() {
			return this.renewed;
		}

		@DelayedExecution(delay = 500)
		public void cancelIfUnpaid(String orderId) {
			this.invocations.record("cancelIfUnpaid", orderId);
		}

		public void cancelFromInside(String orderId) {
			cancelIfUnpaid(orderId);
		}

		@DelayedExecution(delayString = "${orders.reminder-delay}")
		public CompletableFuture<String> remind(String orderId) {
			this.invocations.record("remind", orderId);
			return CompletableFuture.completedFuture("reminded " + orderId);
		}

		@DelayedExecution(delayString = "#{2 * 100}")
		public CompletionStage<Integer> total(int a, int b) {
			this.invocations.record("total", a, b);
			return CompletableFuture.supplyAsync(() -> a + b);
		}

		@DelayedExecution(delayString = "PT0.25S")
		public Future<String> status(String orderId) {
			this.invocations.record("status", orderId);
			return CompletableFuture.completedFuture(orderId + ": paid");
		}

		@DelayedExecution(delayString = "2", timeUnit = TimeUnit.SECONDS)
		public void renewLease(String lease) {
			this.invocations.record("renewLease", lease);
		}

		@DelayedExecution(delay = 30, timeUnit = TimeUnit.MINUTES)
		public void archive(String orderId) {
			this.invocations.record("archive", orderId);
		}

		@DelayedExecution(delay = 50)
		public CompletableFuture<String> failNow() {
			throw new IllegalStateException("payment service down");
		}

		@DelayedExecution(delay = 50)
		public CompletableFuture<String> failLater() {
			return CompletableFuture.failedFuture(new IOException("connection reset"));
		}

		@DelayedExecution(delay = 50)
		public void failVoid(String orderId) {
			throw new IllegalStateException("cannot cancel " + orderId);
		}

		@DelayedExecution(delay = 50)
		public void block(CountDownLatch release) throws InterruptedException {
			this.blocked.incrementAndGet();
			try {
				release.await(30, TimeUnit.SECONDS);
			}
			finally {
				this.blocked.decrementAndGet();
			}
		}

		@DelayedExecution(delay = 0)
		public CompletableFuture<Boolean> runningThreadIsVirtual() throws ReflectiveOperationException {
			Object virtual = Thread.class.getMethod("isVirtual").invoke(Thread.currentThread());
			return CompletableFuture.completedFuture((Boolean) virtual);
		}

		public AtomicIntegerArray renewals(int calls) {
			this.renewals = new AtomicIntegerArray(calls);
			return this.renewals;
		}

		@DelayedExecution(delay = 20)
		public void renew(int call, int unused) {
			this.renewals.incrementAndGet(call);
			this.renewed.incrementAndGet();
		}

	}

}
