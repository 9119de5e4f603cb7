package io.github.wheeltimer.benchmarks.durable;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.github.wheeltimer.annotation.DelayedExecution;
import io.github.wheeltimer.durable.DurableCalls;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.resilience.annotation.Retryable;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Ours: {@code @DelayedExecution(durable = true)} in a Spring Boot application (no web server)
 * with everything at its defaults, its DataSource configured from {@code spring.datasource.*} as
 * an application's would be. The only settings: the database, and creating our tables in it. The
 * starter finds its dialect from the DataSource (PostgreSQL's, or MySQL's under MariaDB's name),
 * and creates the tables from that dialect's script.
 * <p>
 * Our delay is fixed per method, so each {@link Delay} is a method of {@link Targets}. A bean
 * post-processor wraps the application's DataSource in a {@link CountingDataSource}: every
 * statement of ours, and of the transaction manager the benchmark's transactions use, is counted.
 * <p>
 * F1's calls go to {@link Targets#failsTwice}, a durable method with Spring's own
 * {@code @Retryable}, which the wheel honours as it is, with no {@code @EnableResilientMethods}.
 */
public final class OursSystem implements DurableSystem {

	/** Beyond {@code wheel-timer.durable.horizon} (10 s): the scheduling instance only writes rows. */
	private static final Delay BACKLOG_DELAY = Delay.TWENTY_SECONDS;

	/** Our default tick: how long after its due time a call on the wheel may wait for it. */
	private static final Duration TICK = Duration.ofMillis(100);

	private final String url;

	private ConfigurableApplicationContext instance;

	private Targets targets;

	public OursSystem(String url) {
		this.url = url;
	}

	@Override
	public String label() {
		return "ours";
	}

	@Override
	public Backlog prepareBacklog(long firstCall, int count) {
		// One instance writes the calls and stops: the calls it still holds go back to the database
		// (none should, being due beyond its horizon). The measured instance then starts with all
		// of them overdue.
		try (ConfigurableApplicationContext scheduling = startApplication()) {
			CountingDataSource counter = counter(scheduling);
			Targets targets = scheduling.getBean(Targets.class);
			CountingDataSource.Counts before = counter.counts();
			for (int i = 0; i < count; i++) {
				long callNumber = firstCall + i;
				targets.twentySeconds(callNumber, CallLog.nowMicros() + BACKLOG_DELAY.micros());
			}
			CountingDataSource.Counts scheduled = counter.counts().minus(before);
			return new Backlog(Instant.now().plus(BACKLOG_DELAY.duration()).plus(TICK), scheduled);
		}
	}

	@Override
	public void start() {
		this.instance = startApplication();
		this.targets = this.instance.getBean(Targets.class);
	}

	@Override
	public void schedule(long callNumber, Delay delay, long dueAtEpochMicros) {
		switch (delay) {
			case HALF_SECOND -> this.targets.halfSecond(callNumber, dueAtEpochMicros);
			case ONE_SECOND -> this.targets.oneSecond(callNumber, dueAtEpochMicros);
			case TWO_SECONDS -> this.targets.twoSeconds(callNumber, dueAtEpochMicros);
			case FIVE_SECONDS -> this.targets.fiveSeconds(callNumber, dueAtEpochMicros);
			case TEN_SECONDS -> this.targets.tenSeconds(callNumber, dueAtEpochMicros);
			case TWENTY_SECONDS -> this.targets.twentySeconds(callNumber, dueAtEpochMicros);
			case ONE_HOUR -> this.targets.oneHour(callNumber, dueAtEpochMicros);
		}
	}

	@Override
	public void scheduleRetried(long callNumber, long dueAtEpochMicros) {
		this.targets.failsTwice(callNumber, dueAtEpochMicros);
	}

	@Override
	public String retriedRowsQuery() {
		// CONCAT reads the same on PostgreSQL and MariaDB; the prefix is the default one.
		return "SELECT CONCAT(state, ', ', attempts, ' runs'), COUNT(*) FROM WHEEL_TIMER_CALL WHERE method_id = '"
				+ Targets.FAILS_TWICE + "' GROUP BY 1";
	}

	@Override
	public boolean isRetryFrame(StackTraceElement frame) {
		// The policy, and the runner's steps that turn a failure into the next attempt's due time.
		String type = frame.getClassName();
		return type.startsWith("io.github.wheeltimer.annotation.DelayedRetry")
				|| (type.equals("io.github.wheeltimer.durable.run.CallRunner")
						&& (frame.getMethodName().startsWith("retry") || frame.getMethodName().equals("waitForRetry")));
	}

	@Override
	public TransactionTemplate transactions() {
		// Spring Boot's own transaction manager, on the application's (counting) DataSource.
		return new TransactionTemplate(this.instance.getBean(PlatformTransactionManager.class));
	}

	@Override
	public CountingDataSource counter() {
		return (this.instance != null) ? counter(this.instance) : null;
	}

	@Override
	public Duration lookInterval() {
		// wheel-timer.durable.poll-interval's default: calls beyond the horizon are looked for this often.
		return Duration.ofSeconds(2);
	}

	@Override
	public void close() {
		if (this.instance != null) {
			this.instance.close();
		}
	}

	private ConfigurableApplicationContext startApplication() {
		return new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
			.logStartupInfo(false)
			.run("--spring.main.banner-mode=off", "--spring.datasource.url=" + this.url,
					"--spring.datasource.username=" + Database.user(this.url), "--spring.datasource.password=",
					"--wheel-timer.durable.jdbc.initialize-schema=always");
	}

	private static CountingDataSource counter(ConfigurableApplicationContext context) {
		return (CountingDataSource) context.getBean(DataSource.class);
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

		@Bean
		Targets targets() {
			return new Targets();
		}

		/** Static: a post-processor must exist before the beans it processes. */
		@Bean
		static BeanPostProcessor countingDataSource() {
			return CountingDataSource.wrapping();
		}

	}

	/** The durable methods, one per delay; each reports its run to the harness. */
	public static class Targets {

		static final String FAILS_TWICE = "bench.failsTwice";

		@DelayedExecution(delay = 500, timeUnit = TimeUnit.MILLISECONDS, durable = true, id = "bench.halfSecond")
		public void halfSecond(long callNumber, long dueAtEpochMicros) {
			CallLog.ran(callNumber, dueAtEpochMicros);
		}

		@DelayedExecution(delay = 1, timeUnit = TimeUnit.SECONDS, durable = true, id = "bench.oneSecond")
		public void oneSecond(long callNumber, long dueAtEpochMicros) {
			CallLog.ran(callNumber, dueAtEpochMicros);
		}

		@DelayedExecution(delay = 2, timeUnit = TimeUnit.SECONDS, durable = true, id = "bench.twoSeconds")
		public void twoSeconds(long callNumber, long dueAtEpochMicros) {
			CallLog.ran(callNumber, dueAtEpochMicros);
		}

		@DelayedExecution(delay = 5, timeUnit = TimeUnit.SECONDS, durable = true, id = "bench.fiveSeconds")
		public void fiveSeconds(long callNumber, long dueAtEpochMicros) {
			CallLog.ran(callNumber, dueAtEpochMicros);
		}

		@DelayedExecution(delay = 10, timeUnit = TimeUnit.SECONDS, durable = true, id = "bench.tenSeconds")
		public void tenSeconds(long callNumber, long dueAtEpochMicros) {
			CallLog.ran(callNumber, dueAtEpochMicros);
		}

		@DelayedExecution(delay = 20, timeUnit = TimeUnit.SECONDS, durable = true, id = "bench.twentySeconds")
		public void twentySeconds(long callNumber, long dueAtEpochMicros) {
			CallLog.ran(callNumber, dueAtEpochMicros);
		}

		@DelayedExecution(delay = 1, timeUnit = TimeUnit.HOURS, durable = true, id = "bench.oneHour")
		public void oneHour(long callNumber, long dueAtEpochMicros) {
			CallLog.ran(callNumber, dueAtEpochMicros);
		}

		/**
		 * F1: fails on its first two runs, by the attempt the wheel tells it (an application would
		 * decide so too), and succeeds on its third; the wheel retries it after a fixed backoff, as
		 * db-scheduler's failure handler does its task.
		 */
		@DelayedExecution(delay = RetriedCalls.FIRST_DELAY_MILLIS, timeUnit = TimeUnit.MILLISECONDS, durable = true,
				id = FAILS_TWICE)
		@Retryable(maxRetries = RetriedCalls.MAX_RETRIES, delay = RetriedCalls.BACKOFF_MILLIS)
		public void failsTwice(long callNumber, long dueAtEpochMicros) {
			RetriedCalls.run(callNumber, DurableCalls.currentAttempt(), dueAtEpochMicros);
		}

	}

}
