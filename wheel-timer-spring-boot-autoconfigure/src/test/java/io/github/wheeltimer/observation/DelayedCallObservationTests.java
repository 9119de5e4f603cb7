package io.github.wheeltimer.observation;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.VirtualTime;
import io.github.wheeltimer.annotation.DelayedCallObserver;
import io.github.wheeltimer.annotation.DelayedExecution;
import io.github.wheeltimer.autoconfigure.WheelTimerAutoConfiguration;
import io.github.wheeltimer.autoconfigure.WheelTimerObservationAutoConfiguration;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.slf4j.MDC;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Each delayed call observed, and its caller's trace and MDC carried to it: through the
 * annotation, with Spring Boot's own observation and tracing auto-configuration, a test
 * registry that fails on a double start or stop, and Micrometer Tracing's test tracer.
 */
class DelayedCallObservationTests {

	private static final String NAME = "wheel.timer.delayed.call";

	private static final Duration TICK = Duration.ofMillis(10);

	/** The delay of {@link Reminders#remind}, {@link Reminders#fail} and {@link Reminders#failLater}. */
	private static final Duration DELAY = Duration.ofMillis(50);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
				ObservationAutoConfiguration.class, MicrometerTracingAutoConfiguration.class,
				WheelTimerAutoConfiguration.class, WheelTimerObservationAutoConfiguration.class))
		.withPropertyValues("wheel-timer.tick-duration=10ms")
		.withUserConfiguration(TracedApplication.class);

	/** The timer on the tests' virtual clock (time, not threads): a test advances it, then asserts. */
	private final ApplicationContextRunner onVirtualTime = this.contextRunner.withUserConfiguration(VirtualTime.class);

	@Test
	void aCallThatRanIsObservedOnceAsAChildOfItsCallersSpanWithItsTimerMethodAndOutcome() {
		this.onVirtualTime.run((context) -> {
			Reminders reminders = context.getBean(Reminders.class);
			SimpleTracer tracer = context.getBean(SimpleTracer.class);
			TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);
			Span caller = inSpan(context, () -> reminders.remind("order-1"));
			VirtualTime.advance(context, DELAY.minus(TICK));
			assertThat(reminders.hasRun()).as("never early").isFalse();
			assertThat(registry).hasNumberOfObservationsWithNameEqualTo(NAME, 0);
			VirtualTime.advance(context, TICK);
			Seen seen = reminders.ran();
			assertThat(seen.traceId()).isEqualTo(caller.context().traceId());
			assertThat(seen.parentSpanId()).as("the call's span is a child of its caller's")
				.isEqualTo(caller.context().spanId());
			assertThat(seen.observation()).isEqualTo(NAME);
			assertThat(registry).hasNumberOfObservationsWithNameEqualTo(NAME, 1)
				.hasObservationWithNameEqualTo(NAME)
				.that()
				.hasBeenStarted()
				.hasBeenStopped()
				.hasLowCardinalityKeyValue("timer", "wheelTimer")
				.hasLowCardinalityKeyValue("code.namespace", Reminders.class.getName())
				.hasLowCardinalityKeyValue("code.function", "remind")
				.hasLowCardinalityKeyValue("outcome", "ran")
				.hasLowCardinalityKeyValue("exception", "none")
				.hasLowCardinalityKeyValue("durable", "false")
				.hasHighCardinalityKeyValueWithKey("wheel.timer.lateness")
				.hasContextualNameEqualTo("delayed reminders.remind");
			SimpleSpan span = tracer.getSpans()
				.stream()
				.filter((finished) -> finished.getName().equals("delayed reminders.remind"))
				.findFirst()
				.orElseThrow();
			assertThat(span.getParentId()).isEqualTo(caller.context().spanId());
			assertThat(span.getTags()).containsEntry("outcome", "ran");
		});
	}

	@Test
	void aCallThatThrowsOrWhoseFutureFailsIsObservedAsFailedWithItsException() {
		this.onVirtualTime.run((context) -> {
			Reminders reminders = context.getBean(Reminders.class);
			TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);
			reminders.fail("order-2");
			CompletableFuture<String> future = reminders.failLater("order-3");
			VirtualTime.advance(context, DELAY.minus(TICK));
			assertThat(future).as("never early").isNotDone();
			assertThat(registry).hasNumberOfObservationsWithNameEqualTo(NAME, 0);
			VirtualTime.advance(context, TICK);
			assertThat(future).isCompletedExceptionally();
			assertThat(registry).hasNumberOfObservationsWithNameEqualTo(NAME, 2)
				.forAllObservationsWithNameEqualTo(NAME, (observation) -> observation.hasLowCardinalityKeyValue("outcome", "failed")
					.hasLowCardinalityKeyValue("exception", "IllegalStateException"));
		});
	}

	@Test
	void aCallCancelledThroughItsFutureIsObservedOnceAsCancelledInItsCallersTrace() {
		this.onVirtualTime.run((context) -> {
			Reminders reminders = context.getBean(Reminders.class);
			SimpleTracer tracer = context.getBean(SimpleTracer.class);
			TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);
			CompletableFuture<?>[] future = new CompletableFuture<?>[1];
			Span caller = inSpan(context, () -> future[0] = reminders.later("order-4"));
			assertThat(future[0].cancel(false)).isTrue();
			assertThat(registry).hasNumberOfObservationsWithNameEqualTo(NAME, 1)
				.hasObservationWithNameEqualTo(NAME)
				.that()
				.hasBeenStopped()
				.hasLowCardinalityKeyValue("outcome", "cancelled")
				.doesNotHaveHighCardinalityKeyValueWithKey("wheel.timer.lateness");
			assertThat(tracer.getSpans()).filteredOn((span) -> span.getName().equals("delayed reminders.later"))
				.singleElement()
				.satisfies((span) -> assertThat(span.getParentId()).isEqualTo(caller.context().spanId()));
			VirtualTime.advance(context, Duration.ofHours(2));
			assertThat(context.getBean(HashedWheelTimer.class).pendingTimeouts()).isZero();
			assertThat(registry).as("past its delay: neither the worker's cancelled callback nor a run observes it again")
				.hasNumberOfObservationsWithNameEqualTo(NAME, 1);
		});
	}

	@Test
	void aCallCancelledThroughItsTimeoutCancelsItsFutureAndIsObservedOnce() {
		this.onVirtualTime.run((context) -> {
			Reminders reminders = context.getBean(Reminders.class);
			TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);
			HashedWheelTimer timer = context.getBean(HashedWheelTimer.class);
			CompletableFuture<String> future = reminders.later("order-5");
			assertThat(timer.nextTimeouts(1, Duration.ofHours(2)).get(0).cancel()).isTrue();
			// The worker's cancelled callback cancels the future, and hands the observation to the
			// executor, in flight until it ends: the advance waits for it.
			VirtualTime.advance(context, TICK);
			assertThat(future).isCancelled();
			assertThat(registry).hasNumberOfObservationsWithNameEqualTo(NAME, 1)
				.hasObservationWithNameEqualTo(NAME)
				.that()
				.hasBeenStopped()
				.hasLowCardinalityKeyValue("outcome", "cancelled");
		});
	}

	@Test
	void aCallTheTimerStoppedBeforeItFellDueIsObservedAsUnprocessed() {
		this.contextRunner.run((context) -> {
			Reminders reminders = context.getBean(Reminders.class);
			TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);
			CompletableFuture<String> future = reminders.later("order-6");
			context.getBean(HashedWheelTimer.class).stop();
			assertThat(future).isCancelled();
			assertThat(registry).hasNumberOfObservationsWithNameEqualTo(NAME, 1)
				.hasObservationWithNameEqualTo(NAME)
				.that()
				.hasBeenStopped()
				.hasLowCardinalityKeyValue("outcome", "unprocessed");
		});
	}

	@Test
	void theCallersMdcIsVisibleInTheMethodAndGoneAfterItSoNothingLeaksToTheThreadsNextTask() {
		this.onVirtualTime.withUserConfiguration(OneThread.class)
			.withPropertyValues("wheel-timer.executor=oneThread")
			.run((context) -> {
				Reminders reminders = context.getBean(Reminders.class);
				Span caller = inSpanAs("alice", context, () -> reminders.remind("order-7"));
				VirtualTime.advance(context, DELAY);
				Seen first = reminders.ran();
				assertThat(first.thread()).isEqualTo("one-thread-1");
				assertThat(first.mdc()).containsEntry("user", "alice");
				assertThat(first.parentSpanId()).isEqualTo(caller.context().spanId());
				reminders.remind("order-8");
				VirtualTime.advance(context, DELAY);
				Seen next = reminders.ran();
				assertThat(next.thread()).isEqualTo("one-thread-1");
				assertThat(next.mdc()).as("the method put 'step' in the MDC; neither it nor alice is left")
					.doesNotContainKeys("user", "step");
				assertThat(next.parentSpanId()).as("a root span: no caller's trace left").isNullOrEmpty();
				ThreadPoolTaskExecutor oneThread = context.getBean("oneThread", ThreadPoolTaskExecutor.class);
				// Real time: plain tasks on the executor's thread, which no timer holds.
				Map<String, String> after = oneThread.submit(() -> MDC.getCopyOfContextMap()).get(10, TimeUnit.SECONDS);
				assertThat((after != null) ? after : Map.of()).isEmpty();
				assertThat(oneThread.submit(() -> context.getBean(Tracer.class).currentSpan()).get(10, TimeUnit.SECONDS))
					.isNull();
			});
	}

	@Test
	@EnabledForJreRange(min = JRE.JAVA_21)
	void onVirtualThreadsTheCallRunsInItsCallersTraceAndMdc() {
		this.contextRunner.withPropertyValues("spring.threads.virtual.enabled=true").run((context) -> {
			Reminders reminders = context.getBean(Reminders.class);
			Span caller = inSpanAs("bob", context, () -> reminders.remind("order-9"));
			Seen seen = reminders.next();
			assertThat(seen.virtual()).isTrue();
			assertThat(seen.mdc()).containsEntry("user", "bob");
			assertThat(seen.parentSpanId()).isEqualTo(caller.context().spanId());
		});
	}

	@Test
	void withoutContextPropagationTheCallStillRunsAsAChildOfItsCallersSpanWithItsMdc() {
		this.onVirtualTime.withClassLoader(new FilteredClassLoader("io.micrometer.context")).run((context) -> {
			Reminders reminders = context.getBean(Reminders.class);
			Span caller = inSpanAs("carol", context, () -> reminders.remind("order-10"));
			VirtualTime.advance(context, DELAY);
			Seen seen = reminders.ran();
			assertThat(seen.mdc()).containsEntry("user", "carol");
			assertThat(seen.parentSpanId()).isEqualTo(caller.context().spanId());
		});
	}

	@Test
	void withTheObservationSwitchedOffTheCallStillRunsInItsCallersTrace() {
		this.onVirtualTime.withPropertyValues("management.observations.enable.wheel.timer=false").run((context) -> {
			Reminders reminders = context.getBean(Reminders.class);
			Span caller = inSpan(context, () -> reminders.remind("order-11"));
			VirtualTime.advance(context, DELAY);
			Seen seen = reminders.ran();
			assertThat(seen.traceId()).isEqualTo(caller.context().traceId());
			assertThat(context.getBean(TestObservationRegistry.class)).hasNumberOfObservationsWithNameEqualTo(NAME, 0);
		});
	}

	@Test
	void anApplicationsConventionNamesAndTagsTheObservation() {
		this.onVirtualTime.withBean(DelayedCallObservationConvention.class, () -> new DefaultDelayedCallObservationConvention() {

			@Override
			public String getName() {
				return "orders.delayed";
			}

			@Override
			public KeyValues getLowCardinalityKeyValues(DelayedCallObservationContext context) {
				return super.getLowCardinalityKeyValues(context).and("team", "orders");
			}

		}).run((context) -> {
			context.getBean(Reminders.class).remind("order-12");
			VirtualTime.advance(context, DELAY);
			assertThat(context.getBean(TestObservationRegistry.class)).hasObservationWithNameEqualTo("orders.delayed")
				.that()
				.hasBeenStopped()
				.hasLowCardinalityKeyValue("team", "orders")
				.hasLowCardinalityKeyValue("outcome", "ran");
		});
	}

	@Test
	void withoutMicrometerTheStarterStartsAndStillCarriesTheMdc() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
					WheelTimerAutoConfiguration.class, WheelTimerObservationAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader("io.micrometer"))
			.withPropertyValues("wheel-timer.tick-duration=10ms")
			.withUserConfiguration(VirtualTime.class)
			.withBean(Reminders.class, () -> new Reminders(null))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(DelayedCallObserver.class)).isInstanceOf(PropagatingCallObserver.class);
				Reminders reminders = context.getBean(Reminders.class);
				MDC.put("user", "dave");
				try {
					reminders.remind("order-13");
				}
				finally {
					MDC.remove("user");
				}
				VirtualTime.advance(context, DELAY);
				assertThat(reminders.ran().mdc()).containsEntry("user", "dave");
			});
	}

	/** Calls {@code action} inside a span with {@code user} in the MDC, and returns the span. */
	private static Span inSpanAs(String user, AssertableApplicationContext context, Runnable action) {
		MDC.put("user", user);
		try {
			return inSpan(context, action);
		}
		finally {
			MDC.remove("user");
		}
	}

	/** Calls {@code action} inside a started, current observation, and returns its span. */
	private static Span inSpan(AssertableApplicationContext context, Runnable action) {
		ObservationRegistry registry = context.getBean(ObservationRegistry.class);
		Observation request = Observation.start("test.request", registry);
		try (Observation.Scope scope = request.openScope()) {
			Span span = context.getBean(Tracer.class).currentSpan();
			action.run();
			return span;
		}
		finally {
			request.stop();
		}
	}

	/** What a delayed method saw on the thread that ran it. */
	public record Seen(String thread, boolean virtual, Map<String, String> mdc, @Nullable String traceId,
			@Nullable String parentSpanId, @Nullable String observation) {
	}

	@Configuration(proxyBeanMethods = false)
	static class TracedApplication {

		@Bean
		SimpleTracer simpleTracer() {
			return new SimpleTracer();
		}

		@Bean
		TestObservationRegistry observationRegistry() {
			return TestObservationRegistry.create();
		}

		@Bean
		Reminders reminders(ObservationRegistry registry, Tracer tracer) {
			return new Reminders(new Probe(registry, tracer));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OneThread {

		@Bean
		ThreadPoolTaskExecutor oneThread() {
			ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
			executor.setCorePoolSize(1);
			executor.setMaxPoolSize(1);
			executor.setThreadNamePrefix("one-thread-");
			return executor;
		}

	}

	/** Reads, on the running thread, the tracer's and the registry's current state. */
	public record Probe(ObservationRegistry registry, Tracer tracer) {

		Seen see() {
			Map<String, String> mdc = MDC.getCopyOfContextMap();
			Span span = this.tracer.currentSpan();
			Observation observation = this.registry.getCurrentObservation();
			return new Seen(Thread.currentThread().getName(), isVirtual(), (mdc != null) ? mdc : Map.of(),
					(span != null) ? span.context().traceId() : null, (span != null) ? span.context().parentId() : null,
					(observation != null) ? observation.getContext().getName() : null);
		}

		private static boolean isVirtual() {
			try {
				return (boolean) Thread.class.getMethod("isVirtual").invoke(Thread.currentThread());
			}
			catch (ReflectiveOperationException ex) {
				return false;
			}
		}

	}

	public static class Reminders {

		private final @Nullable Probe probe;

		private final BlockingQueue<Seen> seen = new LinkedBlockingQueue<>();

		Reminders(@Nullable Probe probe) {
			this.probe = probe;
		}

		@DelayedExecution(delay = 50, timeUnit = TimeUnit.MILLISECONDS)
		public void remind(String orderId) {
			Map<String, String> mdc = MDC.getCopyOfContextMap();
			this.seen.add((this.probe != null) ? this.probe.see()
					: new Seen(Thread.currentThread().getName(), false, (mdc != null) ? mdc : Map.of(), null, null, null));
			MDC.put("step", "reminded " + orderId);
		}

		@DelayedExecution(delay = 50, timeUnit = TimeUnit.MILLISECONDS)
		public void fail(String orderId) {
			throw new IllegalStateException("cannot remind " + orderId);
		}

		@DelayedExecution(delay = 50, timeUnit = TimeUnit.MILLISECONDS)
		public CompletableFuture<String> failLater(String orderId) {
			return CompletableFuture.failedFuture(new IllegalStateException("cannot remind " + orderId));
		}

		@DelayedExecution(delay = 1, timeUnit = TimeUnit.HOURS)
		public CompletableFuture<String> later(String orderId) {
			return CompletableFuture.completedFuture("later " + orderId);
		}

		public Seen next() throws InterruptedException {
			Seen next = this.seen.poll(10, TimeUnit.SECONDS);
			assertThat(next).as("the delayed method ran within 10 s").isNotNull();
			return next;
		}

		/** What the method saw in a run that has ended: on virtual time, taken right after the advance. */
		public Seen ran() {
			Seen ran = this.seen.poll();
			assertThat(ran).as("the delayed method ran").isNotNull();
			return ran;
		}

		/** @return whether the method ran since what it saw was last taken */
		public boolean hasRun() {
			return !this.seen.isEmpty();
		}

	}

}
