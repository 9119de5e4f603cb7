package io.github.wheeltimer.observation;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.github.wheeltimer.annotation.DelayedCallObserver.CallerContext;
import io.github.wheeltimer.annotation.DelayedCallObserver.Run;
import io.github.wheeltimer.annotation.DelayedExecution;
import io.github.wheeltimer.annotation.DelayedMethod;
import io.github.wheeltimer.annotation.DelayedMethodRegistry;
import io.github.wheeltimer.autoconfigure.WheelTimerAutoConfiguration;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@link CallerContext} made on the caller's thread puts the caller's MDC back on the thread
 * that runs the call, and {@code none()} puts back nothing: the observer alone, on two plain
 * threads, with a real {@link DelayedMethod} from a minimal context.
 */
class PropagatingCallObserverTests {

	private final ExecutorService caller = Executors.newSingleThreadExecutor();

	private final ExecutorService runner = Executors.newSingleThreadExecutor();

	@AfterEach
	void stopThreads() {
		this.caller.shutdownNow();
		this.runner.shutdownNow();
	}

	@Test
	void aContextCapturedOnTheCallersThreadPutsItsMdcBackOnTheRunningThreadAndNonePutsBackNothing() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
					WheelTimerAutoConfiguration.class))
			.withBean(Reminders.class)
			.run((context) -> {
				DelayedMethod method = context.getBean(DelayedMethodRegistry.class).methods().get(0);
				PropagatingCallObserver observer = new PropagatingCallObserver(true, false);
				assertThat(observer.capture()).as("a caller with nothing to carry gets the shared context")
					.isSameAs(observer.none());
				CallerContext captured = CompletableFuture.supplyAsync(() -> {
					MDC.put("user", "erin");
					try {
						return observer.capture();
					}
					finally {
						MDC.remove("user");
					}
				}, this.caller).join();
				assertThat(around(captured, method)).as("the caller's MDC in place of the runner's, then the runner's")
					.containsExactly(Map.of("user", "erin"), Map.of("thread", "runner"));
				assertThat(around(observer.none(), method)).as("the runner's MDC, untouched")
					.containsExactly(Map.of("thread", "runner"), Map.of("thread", "runner"));
			});
	}

	/** On the runner's thread, whose own MDC has one entry: the MDC while the call runs, and after it. */
	private Map<?, ?>[] around(CallerContext caller, DelayedMethod method) {
		return CompletableFuture.supplyAsync(() -> {
			MDC.setContextMap(Map.of("thread", "runner"));
			try {
				Run run = caller.start(method, 0, 1, null, null);
				Map<String, String> during = MDC.getCopyOfContextMap();
				run.stop(null);
				run.leave();
				return new Map<?, ?>[] { during, MDC.getCopyOfContextMap() };
			}
			finally {
				MDC.clear();
			}
		}, this.runner).join();
	}

	static class Reminders {

		@DelayedExecution(delay = 1, timeUnit = TimeUnit.HOURS)
		public void remind(@Nullable String order) {
		}

	}

}
