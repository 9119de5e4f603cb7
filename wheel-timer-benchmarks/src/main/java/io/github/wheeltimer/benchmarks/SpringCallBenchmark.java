package io.github.wheeltimer.benchmarks;

import java.time.Instant;
import java.util.concurrent.TimeUnit;

import io.github.wheeltimer.annotation.DelayedCallObserver;
import io.github.wheeltimer.annotation.DelayedExecution;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * Row A1: what a Spring application pays to have a call run an hour later, the two ways it can
 * ask for it. {@code delayed-execution} calls a {@code @DelayedExecution} method through its proxy,
 * with Micrometer's observation and context-propagation on the class path (so each call captures
 * its caller's context, here empty, as an application with Actuator and tracing does);
 * {@code delayed-execution-no-context} is the same call with the capture left out (the observer of
 * an application without Micrometer), to show what the capture costs;
 * {@code task-scheduler} hands the same call to a one-thread {@link ThreadPoolTaskScheduler}, as a
 * lambda that captures the argument, the way application code writes it. Each iteration starts a
 * fresh application context, so the pending calls of one do not weigh on the next.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = { ForkedJvm.HEAP_MIN, ForkedJvm.HEAP_MAX, ForkedJvm.YOUNG, ForkedJvm.GC })
public class SpringCallBenchmark {

	@Param({ "delayed-execution", "delayed-execution-no-context", "task-scheduler" })
	public String way;

	private ConfigurableApplicationContext context;

	private Calls calls;

	private ThreadPoolTaskScheduler scheduler;

	private PlainCalls plainCalls;

	private int argument;

	@Setup(Level.Iteration)
	public void startApplication() {
		// Spring Boot warms some classes up on a thread of its own after startup: not while we measure.
		System.setProperty("spring.backgroundpreinitializer.ignore", "true");
		SpringApplicationBuilder application = new SpringApplicationBuilder(Application.class)
			.web(WebApplicationType.NONE);
		if (this.way.equals("delayed-execution-no-context")) {
			application.initializers((context) -> context.getBeanFactory()
				.registerSingleton("wheelTimerDelayedCallObserver", DelayedCallObserver.NONE));
		}
		this.context = application.logStartupInfo(false)
			.run("--logging.level.root=ERROR", "--spring.main.banner-mode=off");
		this.calls = this.context.getBean(Calls.class);
		this.scheduler = this.context.getBean(ThreadPoolTaskScheduler.class);
		this.plainCalls = this.context.getBean(PlainCalls.class);
	}

	@TearDown(Level.Iteration)
	public void stopApplication() {
		this.context.close();
	}

	@Benchmark
	public Object call() {
		int argument = ++this.argument;
		if (this.way.startsWith("delayed-execution")) {
			this.calls.remind(argument);
			return null;
		}
		PlainCalls target = this.plainCalls;
		return this.scheduler.schedule(() -> target.remind(argument), Instant.now().plusSeconds(3600));
	}

	// In memory, no database: the module carries JDBC and PostgreSQL for the durable rows, and a
	// DataSource with no URL would fail the start.
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration(excludeName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
	static class Application {

		@Bean
		Calls calls() {
			return new Calls();
		}

		@Bean
		PlainCalls plainCalls() {
			return new PlainCalls();
		}

		@Bean
		ThreadPoolTaskScheduler benchmarkScheduler() {
			ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
			scheduler.setPoolSize(1);
			return scheduler;
		}

	}

	/** The delayed method. */
	public static class Calls {

		@DelayedExecution(delay = 1, timeUnit = TimeUnit.HOURS)
		public void remind(int customer) {
		}

	}

	/** The same method, without the annotation, for the task scheduler to call. */
	public static class PlainCalls {

		public void remind(int customer) {
		}

	}

}
