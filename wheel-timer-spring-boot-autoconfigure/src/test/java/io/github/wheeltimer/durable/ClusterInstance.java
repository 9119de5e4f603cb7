package io.github.wheeltimer.durable;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import javax.sql.DataSource;

import io.github.wheeltimer.annotation.DelayedExecution;
import io.github.wheeltimer.durable.engine.DurableEngine;
import io.github.wheeltimer.durable.run.CallCounts;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/**
 * The main class of one instance of the cluster that {@link DurableCallsClusterTests} runs, each
 * in a JVM of its own ({@link Cluster} starts them): an application on the database and with the
 * properties given as arguments ({@code key=value}), whose durable methods record each run in the
 * table {@code cluster_run} of the same database, in the method's own transaction. That table has
 * no primary key: a call that ran twice shows as two rows, while a run killed before its commit
 * leaves none.
 * <p>
 * The durable methods, all keyed by their first argument, with their delays from properties (so
 * that each test chooses them; every instance of a test gets the same):
 * <ul>
 * <li>{@code cluster.far}, {@code cluster.far-delay}: longer than the horizon, so its calls wait as
 * pending rows and any instance's poll may claim them;
 * <li>{@code cluster.near}, {@code cluster.near-delay}: within the horizon, so the calling instance
 * holds its calls from birth;
 * <li>{@code cluster.slow}, {@code cluster.slow-delay}: near too, and its first attempt sleeps
 * {@code cluster.slow-sleep} inside its transaction, so that it is running when the instance dies;
 * <li>{@code cluster.extra}, {@code cluster.extra-delay}: only in instances started with
 * {@code cluster.extra.enabled=true}, the new code of a rolling deploy;
 * <li>{@code cluster.versioned}, {@code cluster.far-delay}: only in instances started with
 * {@code cluster.versioned=1} or {@code 2}, two versions of one method whose parameter the deploy
 * changed (version 2's has a property more); each records the version of the code that ran it.
 * </ul>
 * Its {@link DataSource} can be cut off, a simulated network cut: while cut, borrowing a connection
 * and every operation on a connection (or statement) already borrowed fail with an
 * {@link SQLException}, as they would with the database unreachable.
 * <p>
 * It reads commands on its standard input, one a line, {@code <id> <verb> [key=value...]}, runs each
 * on a thread of its own (so that a long one does not hold up the others) and answers each with one
 * line on its standard output, {@code @@ <id> OK <json>} or {@code @@ <id> ERR <text>}; everything
 * else it prints (Spring's log) goes to its standard error. Once started it answers command
 * {@code 0}. The verbs:
 * <ul>
 * <li>{@code schedule method=far|near|slow|extra|versioned prefix=k- count=n [version=1]} and the pacing
 * options below: calls the method for each key, with {@code Instant.now()} as the time of the call;
 * answers the keys accepted and, for each call that threw, its key and exception;
 * <li>{@code cancel methodId=cluster.far prefix=k- count=n} and the pacing options: cancels each
 * key through {@link DurableCalls}; answers the keys whose cancel returned {@code true};
 * <li>pacing: {@code from=0 step=1} which indexes, {@code offset=0 pace=0} item {@code i} at
 * {@code offset + i * pace} ms after the command arrives, plus a random {@code jitter=a..b} ms
 * ({@code seed=}), on {@code threads=1} threads;
 * <li>{@code counts}, {@code report}, {@code health}, {@code held}: what {@link DurableEngine} and
 * the health indicator say;
 * <li>{@code cut}, {@code restore}: cuts the database off, and back;
 * <li>{@code stop}: closes the application (a graceful shutdown), answers, and exits with 0.
 * </ul>
 * When its standard input ends (the test JVM died), it halts.
 */
@SpringBootConfiguration
@DurableAutoConfiguration
@Import(WithActuator.class)
public class ClusterInstance {

	/** Whether the database is cut off: one application per JVM. */
	static final AtomicBoolean cut = new AtomicBoolean();

	public static void main(String[] args) throws IOException {
		PrintStream answers = new PrintStream(System.out, true, StandardCharsets.UTF_8);
		// Only answers go to the standard output: no log line can be taken for one.
		System.setOut(System.err);
		ConfigurableApplicationContext context;
		try {
			context = new SpringApplicationBuilder(ClusterInstance.class).web(WebApplicationType.NONE)
				.properties("spring.main.banner-mode=off")
				.properties(args)
				.run();
		}
		catch (Throwable ex) {
			ex.printStackTrace();
			answers.println("@@ 0 ERR " + Server.oneLine(ex.toString()));
			System.exit(1);
			return;
		}
		new Server(context, answers).serve();
	}

	/** Runs the commands read on the standard input against the started application. */
	private static final class Server {

		private static final JsonMapper json = JsonMapper.builder().build();

		private final ConfigurableApplicationContext context;

		private final PrintStream answers;

		Server(ConfigurableApplicationContext context, PrintStream answers) {
			this.context = context;
			this.answers = answers;
		}

		void serve() throws IOException {
			DurableEngine calls = this.context.getBean(DurableEngine.class);
			Map<String, Object> ready = new LinkedHashMap<>();
			ready.put("instance", calls.instance().toString());
			ready.put("pid", ProcessHandle.current().pid());
			ready.put("methods", calls.methodIds());
			answer("0", true, json.writeValueAsString(ready));
			ExecutorService commands = Executors.newCachedThreadPool((task) -> {
				Thread thread = new Thread(task, "cluster-command");
				thread.setDaemon(true);
				return thread;
			});
			BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
			String line;
			while ((line = input.readLine()) != null) {
				String[] words = line.trim().split("\\s+");
				if (words.length < 2) {
					continue;
				}
				commands.execute(() -> {
					String payload;
					try {
						payload = run(words[1], options(words));
					}
					catch (Throwable ex) {
						ex.printStackTrace();
						answer(words[0], false, ex.toString());
						return;
					}
					answer(words[0], true, payload);
					if (words[1].equals("stop")) {
						System.exit(0);
					}
				});
			}
			// The test JVM is gone: nobody will stop or kill this one.
			Runtime.getRuntime().halt(3);
		}

		private void answer(String id, boolean ok, String payload) {
			synchronized (this.answers) {
				this.answers.println("@@ " + id + (ok ? " OK " : " ERR ") + oneLine(payload));
				this.answers.flush();
			}
		}

		static String oneLine(String text) {
			return text.replace('\n', ' ').replace('\r', ' ');
		}

		private static Map<String, String> options(String[] words) {
			Map<String, String> options = new HashMap<>();
			for (int i = 2; i < words.length; i++) {
				int equals = words[i].indexOf('=');
				if (equals < 0) {
					throw new IllegalArgumentException("Not key=value: " + words[i]);
				}
				options.put(words[i].substring(0, equals), words[i].substring(equals + 1));
			}
			return options;
		}

		private String run(String verb, Map<String, String> options) throws Exception {
			DurableEngine calls = this.context.getBean(DurableEngine.class);
			switch (verb) {
				case "schedule":
					return json.writeValueAsString(schedule(options));
				case "cancel":
					return json.writeValueAsString(cancel(options));
				case "counts":
					return json.writeValueAsString(counts(calls));
				case "report":
					return json.writeValueAsString(calls.admin().report(50));
				case "held":
					return String.valueOf(calls.held());
				case "health":
					Health health = this.context.getBean("wheelTimerDurableHealthIndicator", HealthIndicator.class)
						.health();
					Map<String, Object> answer = new LinkedHashMap<>();
					answer.put("status", health.getStatus().getCode());
					answer.put("details", health.getDetails());
					return json.writeValueAsString(answer);
				case "cut":
					cut.set(true);
					return "true";
				case "restore":
					cut.set(false);
					return "false";
				case "stop":
					// The caller exits once this is answered.
					Map<String, Object> stopped = new LinkedHashMap<>();
					stopped.put("closeStartedAt", Instant.now().toString());
					this.context.close();
					stopped.put("closeEndedAt", Instant.now().toString());
					stopped.put("counts", counts(calls));
					return json.writeValueAsString(stopped);
				default:
					throw new IllegalArgumentException("Unknown command " + verb);
			}
		}

		/** Every component of the counts, by name: the test reads those it knows. */
		private static Map<String, Object> counts(DurableEngine calls) throws ReflectiveOperationException {
			CallCounts counts = calls.counts();
			Map<String, Object> values = new LinkedHashMap<>();
			for (RecordComponent component : CallCounts.class.getRecordComponents()) {
				values.put(component.getName(), component.getAccessor().invoke(counts));
			}
			return values;
		}

		private Map<String, Object> schedule(Map<String, String> options) throws Exception {
			Work work = this.context.getBean(Work.class);
			String method = options.get("method");
			int version = Integer.parseInt(options.getOrDefault("version", "1"));
			Extra extra = "extra".equals(method) ? this.context.getBean(Extra.class) : null;
			VersionOne one = this.context.getBeanProvider(VersionOne.class).getIfAvailable();
			VersionTwo two = this.context.getBeanProvider(VersionTwo.class).getIfAvailable();
			List<String> accepted = Collections.synchronizedList(new ArrayList<>());
			List<Map<String, Object>> failures = Collections.synchronizedList(new ArrayList<>());
			pace(options, (key) -> {
				try {
					Instant calledAt = Instant.now();
					switch (method) {
						case "far" -> work.far(key, version, calledAt);
						case "near" -> work.near(key, version, calledAt);
						case "slow" -> work.slow(key, version, calledAt);
						case "extra" -> extra.extra(key, version, calledAt);
						case "versioned" -> {
							if (one != null) {
								one.versioned(new Ticket(key, 100), calledAt);
							}
							else {
								two.versioned(new TicketWithCurrency(key, 100, "EUR"), calledAt);
							}
						}
						default -> throw new IllegalArgumentException("Unknown method " + method);
					}
					accepted.add(key);
				}
				catch (RuntimeException ex) {
					Map<String, Object> failure = new LinkedHashMap<>();
					failure.put("key", key);
					failure.put("type", ex.getClass().getName());
					failure.put("message", String.valueOf(ex.getMessage()));
					failure.put("dataAccess", ex instanceof DataAccessException);
					failures.add(failure);
				}
			});
			Map<String, Object> answer = new LinkedHashMap<>();
			answer.put("accepted", accepted);
			answer.put("failures", failures);
			return answer;
		}

		private Map<String, Object> cancel(Map<String, String> options) throws Exception {
			DurableCalls durableCalls = this.context.getBean(DurableCalls.class);
			String methodId = options.get("methodId");
			List<String> cancelled = Collections.synchronizedList(new ArrayList<>());
			List<String> notCancelled = Collections.synchronizedList(new ArrayList<>());
			List<String> errors = Collections.synchronizedList(new ArrayList<>());
			pace(options, (key) -> {
				try {
					(durableCalls.cancel(methodId, key) ? cancelled : notCancelled).add(key);
				}
				catch (RuntimeException ex) {
					errors.add(key + ": " + ex);
				}
			});
			Map<String, Object> answer = new LinkedHashMap<>();
			answer.put("cancelled", cancelled);
			answer.put("notCancelled", notCancelled);
			answer.put("errors", errors);
			return answer;
		}

		/**
		 * Does {@code action} for each key of the options, item {@code i} at {@code offset + i *
		 * pace} ms after now plus its jitter, on {@code threads} threads; returns when every one is
		 * done.
		 */
		private static void pace(Map<String, String> options, Consumer<String> action) throws Exception {
			String prefix = options.get("prefix");
			int count = Integer.parseInt(options.get("count"));
			int from = Integer.parseInt(options.getOrDefault("from", "0"));
			int step = Integer.parseInt(options.getOrDefault("step", "1"));
			long offset = Long.parseLong(options.getOrDefault("offset", "0"));
			long pace = Long.parseLong(options.getOrDefault("pace", "0"));
			String[] jitter = options.getOrDefault("jitter", "0..0").split("\\.\\.");
			long jitterFrom = Long.parseLong(jitter[0]);
			long jitterTo = Long.parseLong(jitter[1]);
			Random random = new Random(Long.parseLong(options.getOrDefault("seed", "1")));
			int threads = Integer.parseInt(options.getOrDefault("threads", "1"));
			ScheduledExecutorService executor = Executors.newScheduledThreadPool(threads);
			try {
				long start = System.nanoTime();
				List<Future<?>> done = new ArrayList<>();
				for (int i = from; i < count; i += step) {
					String key = prefix + i;
					long at = offset + i * pace + jitterFrom + (long) (random.nextDouble() * (jitterTo - jitterFrom));
					long delayNanos = start + TimeUnit.MILLISECONDS.toNanos(at) - System.nanoTime();
					done.add(executor.schedule(() -> action.accept(key), Math.max(0, delayNanos),
							TimeUnit.NANOSECONDS));
				}
				for (Future<?> future : done) {
					future.get();
				}
			}
			finally {
				executor.shutdownNow();
			}
		}

	}

	@Bean
	Work work(JdbcTemplate jdbc, @Value("${wheel-timer.durable.instance-name}") String instance,
			@Value("${cluster.slow-sleep:30s}") Duration slowSleep) {
		createRunTable(jdbc);
		return new Work(new Recorder(jdbc, instance), slowSleep);
	}

	@Bean
	@ConditionalOnBooleanProperty("cluster.extra.enabled")
	Extra extra(JdbcTemplate jdbc, @Value("${wheel-timer.durable.instance-name}") String instance) {
		return new Extra(new Recorder(jdbc, instance));
	}

	@Bean
	@ConditionalOnProperty(name = "cluster.versioned", havingValue = "1")
	VersionOne versionOne(JdbcTemplate jdbc, @Value("${wheel-timer.durable.instance-name}") String instance) {
		return new VersionOne(new Recorder(jdbc, instance));
	}

	@Bean
	@ConditionalOnProperty(name = "cluster.versioned", havingValue = "2")
	VersionTwo versionTwo(JdbcTemplate jdbc, @Value("${wheel-timer.durable.instance-name}") String instance) {
		return new VersionTwo(new Recorder(jdbc, instance));
	}

	/** Wraps the {@link DataSource} so that the tests can cut it off. */
	@Bean
	static BeanPostProcessor cuttableDataSource() {
		return new BeanPostProcessor() {

			@Override
			public Object postProcessAfterInitialization(Object bean, String beanName) {
				return (bean instanceof DataSource dataSource) ? cuttable(dataSource, DataSource.class) : bean;
			}

		};
	}

	/** The test creates it before the instances start; here in case an instance runs alone. */
	static void createRunTable(JdbcTemplate jdbc) {
		jdbc.execute("CREATE TABLE IF NOT EXISTS cluster_run (call_key VARCHAR(100) NOT NULL,"
				+ " version INTEGER NOT NULL, instance VARCHAR(100) NOT NULL, attempt INTEGER NOT NULL,"
				+ " called_at BIGINT NOT NULL, ran_at BIGINT NOT NULL)");
	}

	/**
	 * A proxy of a JDBC object that fails while the database is cut off, and wraps the JDBC objects
	 * it hands out (connections, statements, result sets) likewise. Closing still works: a pool
	 * gets its connection back, as it would with the network down.
	 */
	@SuppressWarnings("unchecked")
	static <T> T cuttable(T target, Class<T> type) {
		InvocationHandler handler = (proxy, method, arguments) -> {
			String name = method.getName();
			if (name.equals("equals")) {
				return proxy == arguments[0];
			}
			if (name.equals("hashCode")) {
				return System.identityHashCode(proxy);
			}
			if (name.equals("toString")) {
				return "cuttable " + target;
			}
			boolean local = name.equals("close") || name.equals("isClosed") || name.equals("unwrap")
					|| name.equals("isWrapperFor");
			if (cut.get() && !local) {
				throw new SQLTransientConnectionException("The database cannot be reached (network cut by the test)",
						"08001");
			}
			Object result;
			try {
				result = method.invoke(target, arguments);
			}
			catch (InvocationTargetException ex) {
				throw ex.getTargetException();
			}
			Class<?> returned = method.getReturnType();
			if (result != null && returned.isInterface() && returned.getName().startsWith("java.sql.")) {
				return cuttable(result, (Class<Object>) returned);
			}
			return result;
		};
		return (T) Proxy.newProxyInstance(ClusterInstance.class.getClassLoader(), new Class<?>[] { type }, handler);
	}

	/** Writes one row of {@code cluster_run} per run, in the running method's transaction. */
	record Recorder(JdbcTemplate jdbc, String instance) {

		void record(String key, int version, Instant calledAt) {
			this.jdbc.update("INSERT INTO cluster_run (call_key, version, instance, attempt, called_at, ran_at)"
					+ " VALUES (?, ?, ?, ?, ?, ?)", key, version, this.instance, DurableCalls.currentAttempt(),
					TestDatabases.micros(calledAt), TestDatabases.micros(Instant.now()));
		}

	}

	public static class Work {

		private final Recorder recorder;

		private final Duration slowSleep;

		Work(Recorder recorder, Duration slowSleep) {
			this.recorder = recorder;
			this.slowSleep = slowSleep;
		}

		@DelayedExecution(delayString = "${cluster.far-delay:2s}", durable = true, id = "cluster.far", key = "#key")
		@Transactional
		public void far(String key, int version, Instant calledAt) {
			this.recorder.record(key, version, calledAt);
		}

		@DelayedExecution(delayString = "${cluster.near-delay:500ms}", durable = true, id = "cluster.near",
				key = "#key")
		@Transactional
		public void near(String key, int version, Instant calledAt) {
			this.recorder.record(key, version, calledAt);
		}

		/** Records its run, then (its first attempt only) takes long to commit it. */
		@DelayedExecution(delayString = "${cluster.slow-delay:200ms}", durable = true, id = "cluster.slow",
				key = "#key")
		@Transactional
		public void slow(String key, int version, Instant calledAt) {
			this.recorder.record(key, version, calledAt);
			if (DurableCalls.currentAttempt() == 1) {
				try {
					Thread.sleep(this.slowSleep.toMillis());
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException("Interrupted: the instance is stopping", ex);
				}
			}
		}

	}

	/** The durable method only the new code of a rolling deploy has. */
	public static class Extra {

		private final Recorder recorder;

		Extra(Recorder recorder) {
			this.recorder = recorder;
		}

		@DelayedExecution(delayString = "${cluster.extra-delay:2s}", durable = true, id = "cluster.extra",
				key = "#key")
		@Transactional
		public void extra(String key, int version, Instant calledAt) {
			this.recorder.record(key, version, calledAt);
		}

	}

	/** Version 1's parameter. */
	public record Ticket(String key, long amount) {
	}

	/** Version 2's: a property more. */
	public record TicketWithCurrency(String key, long amount, String currency) {
	}

	/** Version 1 of the code: records version 1. */
	public static class VersionOne {

		private final Recorder recorder;

		VersionOne(Recorder recorder) {
			this.recorder = recorder;
		}

		@DelayedExecution(delayString = "${cluster.far-delay:2s}", durable = true, id = "cluster.versioned",
				key = "#ticket.key")
		@Transactional
		public void versioned(Ticket ticket, Instant calledAt) {
			this.recorder.record(ticket.key(), 1, calledAt);
		}

	}

	/**
	 * Version 2 of the code: records version 2 for a call written with its currency, and 21 for
	 * one version 1 wrote (no currency: a property added reads as empty).
	 */
	public static class VersionTwo {

		private final Recorder recorder;

		VersionTwo(Recorder recorder) {
			this.recorder = recorder;
		}

		@DelayedExecution(delayString = "${cluster.far-delay:2s}", durable = true, id = "cluster.versioned",
				key = "#ticket.key")
		@Transactional
		public void versioned(TicketWithCurrency ticket, Instant calledAt) {
			this.recorder.record(ticket.key(), (ticket.currency() != null) ? 2 : 21, calledAt);
		}

	}

}
