package io.github.wheeltimer.benchmarks.durable;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import javax.sql.DataSource;

import ch.qos.logback.classic.Level;
import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerBuilder;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariDataSource;
import io.github.wheeltimer.annotation.DelayedExecution;
import io.github.wheeltimer.durable.DurableCalls;
import io.github.wheeltimer.durable.engine.DurableEngine;
import io.github.wheeltimer.durable.run.CallCounts;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;

/**
 * One instance of a system of durable calls, alone in its JVM, started by {@link ClusterBenchmark}
 * so that it can be killed with SIGKILL: ours (a Spring Boot application, no web server, with
 * {@code @DelayedExecution(durable = true)} methods) or db-scheduler (the plain library).
 * <p>
 * Arguments: {@code ours|db-scheduler <jdbc url> <instance name> <run log file> [key=value...]}.
 * For both, {@code work=<ms>} sets each run's work from the start, as the {@code work} command
 * does later. For ours, every other {@code key=value} is a Spring property
 * ({@code wheel-timer.durable.lease=3s}); the instance name is its
 * {@code wheel-timer.durable.instance-name} unless that property is given, and given blank
 * ({@code wheel-timer.durable.instance-name=}) it leaves the engine to make one up, as an
 * application that does not set it. For db-scheduler: {@code poll=100ms},
 * {@code lock-and-fetch=true}, {@code heartbeat=2s}.
 * <p>
 * It talks to the parent over its standard input and output, one line each way; replies start
 * with {@code @}, and logging goes to standard error (a file of the parent's):
 * <pre>
 * (start)            -&gt; &#64;ready &lt;what the database knows it by: ours' instance id, db-scheduler's name&gt;
 * work &lt;ms&gt;          every run from now on sleeps this long (the call's work)
 * load &lt;first&gt; &lt;max&gt; &lt;threads&gt; &lt;per second&gt; &lt;ms&gt; &lt;delays&gt;
 *                    callers make calls numbered from first, flat out (0 per second) or paced,
 *                    until max calls or ms have passed; delays cycle by number -&gt; &#64;loaded &lt;made&gt; &lt;failed&gt;
 * halt               ends the load early
 * counts             -&gt; &#64;counts &lt;statements&gt; &lt;commits&gt; &lt;ours' counts: scheduled claimed started ran failed
 *                    fenced takenOver handedBack&gt; (statements by SQL go to the log)
 * stop               closes the instance gracefully -&gt; &#64;stopped, and the JVM exits
 * </pre>
 * The end of its standard input (the parent died) exits at once. Every call it makes and every
 * run goes to its {@link RunLog} file.
 */
public final class ClusterInstance {

	/** The work each run does, ms: none for throughput, some for runs in flight at a kill. */
	private static volatile long workMillis;

	private static final AtomicBoolean halted = new AtomicBoolean();

	private static PrintStream protocol;

	private ClusterInstance() {
	}

	public static void main(String[] args) throws Exception {
		// Replies only on the real standard output; everything that logs goes to standard error.
		protocol = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.US_ASCII);
		System.setOut(System.err);
		String system = args[0];
		String url = args[1];
		String name = args[2];
		RunLog.open(Path.of(args[3]));
		Map<String, String> options = new LinkedHashMap<>();
		for (String option : Arrays.copyOfRange(args, 4, args.length)) {
			int equals = option.indexOf('=');
			options.put(option.substring(0, equals), option.substring(equals + 1));
		}
		// Before the node starts: a restarted instance may run its predecessor's calls at its first poll.
		workMillis = Long.parseLong(Objects.requireNonNullElse(options.remove("work"), "0"));
		Node node = system.equals("ours") ? new OursNode(url, name, options) : new DbSchedulerNode(url, name, options);
		reply("@ready " + node.instance());
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
		String line;
		while ((line = in.readLine()) != null) {
			String[] f = line.trim().split(" ");
			switch (f[0]) {
				case "work" -> workMillis = Long.parseLong(f[1]);
				case "load" -> load(node, Long.parseLong(f[1]), Integer.parseInt(f[2]), Integer.parseInt(f[3]),
						Double.parseDouble(f[4]), Long.parseLong(f[5]), delays(f[6]));
				case "halt" -> halted.set(true);
				case "counts" -> reply(node.counts());
				case "stop" -> {
					node.close();
					reply("@stopped");
					System.exit(0);
				}
				default -> System.err.println("Unknown command: " + line);
			}
		}
		// The parent is gone.
		Runtime.getRuntime().halt(1);
	}

	private static synchronized void reply(String line) {
		protocol.println(line);
	}

	private static Delay[] delays(String list) {
		return Arrays.stream(list.split(",")).map(Delay::valueOf).toArray(Delay[]::new);
	}

	/**
	 * Callers on {@code threads} threads make calls numbered from {@code first}: flat out when
	 * {@code perSecond} is 0, else call i is made at the load's start plus i / perSecond (against
	 * absolute times, so a late thread catches up rather than drifts). Runs in the background; the
	 * reply comes when it ends.
	 */
	private static void load(Node node, long first, int max, int threads, double perSecond, long millis,
			Delay[] delays) {
		halted.set(false);
		AtomicLong next = new AtomicLong();
		AtomicLong made = new AtomicLong();
		AtomicLong failed = new AtomicLong();
		long start = System.nanoTime();
		long end = start + TimeUnit.MILLISECONDS.toNanos(millis);
		List<Thread> callers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			Thread caller = new Thread(() -> {
				long i;
				while (!halted.get() && (i = next.getAndIncrement()) < max) {
					if (perSecond > 0) {
						long target = start + (long) (i * 1e9 / perSecond);
						long wait;
						while ((wait = target - System.nanoTime()) > 0) {
							LockSupport.parkNanos(wait);
						}
					}
					if (System.nanoTime() >= end) {
						break;
					}
					long call = first + i;
					Delay delay = delays[(int) (call % delays.length)];
					long due = CallLog.nowMicros() + delay.micros();
					try {
						node.schedule(call, delay, due);
						RunLog.made(call, due);
						made.incrementAndGet();
					}
					catch (RuntimeException ex) {
						// Counted, and the load goes on: a database hiccup must not end a measurement.
						if (failed.getAndIncrement() < 5) {
							ex.printStackTrace();
						}
					}
				}
			}, "caller-" + t);
			caller.start();
			callers.add(caller);
		}
		new Thread(() -> {
			for (Thread caller : callers) {
				try {
					caller.join();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			reply("@loaded " + made.get() + " " + failed.get());
		}, "load").start();
	}

	/** {@code 100ms} or {@code 2s}. */
	static Duration duration(String text) {
		return text.endsWith("ms") ? Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)))
				: Duration.ofSeconds(Long.parseLong(text.substring(0, text.length() - 1)));
	}

	/** A run: recorded when it starts, then the work, then recorded when it ends. */
	static void run(long call, long attempt, long dueMicros) {
		RunLog.started(call, attempt, dueMicros);
		long work = workMillis;
		if (work > 0) {
			try {
				Thread.sleep(work);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		RunLog.ended(call);
	}

	/** One instance of a system. */
	private interface Node extends AutoCloseable {

		void schedule(long call, Delay delay, long dueMicros);

		/**
		 * What the database knows this instance by, for the parent to find the calls it holds:
		 * ours, its instance id (its name may be its predecessor's, or made up by the engine);
		 * db-scheduler, its scheduler name ({@code picked_by}).
		 */
		String instance();

		/** The {@code @counts} reply. */
		String counts();

		@Override
		void close();

	}

	private static String counts(CountingDataSource counter, String extra) {
		CountingDataSource.Counts counts = counter.counts();
		System.err.printf("Statements so far:%n%s", counts.describe("  "));
		return "@counts " + counts.statements() + " " + counts.commits() + extra;
	}

	/**
	 * Ours: a Spring Boot application with its defaults, but for the {@code wheel-timer.*}
	 * properties the parent gives; the DataSource from {@code spring.datasource.*}, wrapped in a
	 * {@link CountingDataSource} as in {@link OursSystem}. Its instance name is the parent's name
	 * for it unless the parent gives {@code wheel-timer.durable.instance-name} itself: a restart
	 * under its predecessor's name, or a blank one for a name the engine makes up.
	 */
	private static final class OursNode implements Node {

		private final ConfigurableApplicationContext context;

		private final Targets targets;

		private final DurableEngine calls;

		OursNode(String url, String name, Map<String, String> options) {
			Map<String, String> properties = new LinkedHashMap<>();
			properties.put("wheel-timer.durable.instance-name", name);
			// Replaced, not added: a property given twice on the command line binds as both values, joined.
			properties.putAll(options);
			List<String> arguments = new ArrayList<>(List.of("--spring.main.banner-mode=off",
					"--spring.datasource.url=" + url, "--spring.datasource.username=" + Database.user(url),
					"--spring.datasource.password=", "--wheel-timer.durable.jdbc.initialize-schema=always"));
			properties.forEach((key, value) -> arguments.add("--" + key + "=" + value));
			this.context = new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
				.logStartupInfo(false)
				.run(arguments.toArray(String[]::new));
			this.targets = this.context.getBean(Targets.class);
			this.calls = this.context.getBean(DurableEngine.class);
		}

		@Override
		public void schedule(long call, Delay delay, long dueMicros) {
			switch (delay) {
				case ONE_SECOND -> this.targets.oneSecond(call, dueMicros);
				case TWO_SECONDS -> this.targets.twoSeconds(call, dueMicros);
				case FIVE_SECONDS -> this.targets.fiveSeconds(call, dueMicros);
				default -> throw new IllegalArgumentException("No durable method for " + delay);
			}
		}

		@Override
		public String instance() {
			return this.calls.instance().toString();
		}

		@Override
		public String counts() {
			CallCounts c = this.calls.counts();
			return ClusterInstance.counts((CountingDataSource) this.context.getBean(DataSource.class),
					String.format(Locale.ROOT, " %d %d %d %d %d %d %d %d", c.scheduled(), c.claimed(), c.started(),
							c.ran(), c.failed(), c.fenced(), c.takenOver(), c.handedBack()));
		}

		@Override
		public void close() {
			this.context.close();
		}

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

	/**
	 * Our durable methods, one per delay. {@link ClusterSql} writes the burst's rows for
	 * {@code cluster.oneSecond} straight into the table, with their own due time.
	 */
	public static class Targets {

		@DelayedExecution(delay = 1, timeUnit = TimeUnit.SECONDS, durable = true, id = "cluster.oneSecond")
		public void oneSecond(long call, long dueMicros) {
			run(call, DurableCalls.currentAttempt(), dueMicros);
		}

		@DelayedExecution(delay = 2, timeUnit = TimeUnit.SECONDS, durable = true, id = "cluster.twoSeconds")
		public void twoSeconds(long call, long dueMicros) {
			run(call, DurableCalls.currentAttempt(), dueMicros);
		}

		@DelayedExecution(delay = 5, timeUnit = TimeUnit.SECONDS, durable = true, id = "cluster.fiveSeconds")
		public void fiveSeconds(long call, long dueMicros) {
			run(call, DurableCalls.currentAttempt(), dueMicros);
		}

	}

	/**
	 * db-scheduler, the plain library, as in {@link DbSchedulerSystem}: one one-time task, a pool
	 * like Spring Boot's behind a counting DataSource and Spring's transaction-aware proxy, 10
	 * threads. The instance's name is its scheduler name ({@code picked_by}), so that the parent
	 * can tell which executions a killed instance had picked; by default it is the host name,
	 * the same for every instance of this machine.
	 */
	private static final class DbSchedulerNode implements Node {

		/** db-scheduler logs through SLF4J; without Spring Boot to configure it, Logback logs DEBUG. */
		static {
			((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME))
				.setLevel(Level.INFO);
		}

		private final HikariDataSource pool;

		private final CountingDataSource counter;

		private final String name;

		private final Scheduler scheduler;

		private final OneTimeTask<DbSchedulerSystem.CallData> task = Tasks
			.oneTime(DbSchedulerSystem.TASK, DbSchedulerSystem.CallData.class)
			.execute((instance, context) -> run(instance.getData().callNumber(), context.getExecution().version,
					instance.getData().dueAtEpochMicros()));

		DbSchedulerNode(String url, String name, Map<String, String> options) {
			this.name = name;
			this.pool = Database.pool(url, name);
			this.counter = new CountingDataSource(this.pool);
			boolean lockAndFetch = Boolean.parseBoolean(options.getOrDefault("lock-and-fetch", "false"));
			SchedulerBuilder builder = DbSchedulerSystem
				.scheduler(new TransactionAwareDataSourceProxy(this.counter), url, List.of(this.task), lockAndFetch)
				.schedulerName(new SchedulerName.Fixed(name))
				.shutdownMaxWait(Duration.ofSeconds(10));
			if (options.containsKey("poll")) {
				builder.pollingInterval(duration(options.get("poll")));
			}
			if (options.containsKey("heartbeat")) {
				builder.heartbeatInterval(duration(options.get("heartbeat")));
			}
			this.scheduler = builder.build();
			this.scheduler.start();
		}

		@Override
		public void schedule(long call, Delay delay, long dueMicros) {
			this.scheduler.scheduleIfNotExists(
					this.task.instance(Long.toString(call), new DbSchedulerSystem.CallData(call, dueMicros)),
					Instant.now().plus(delay.duration()));
		}

		@Override
		public String instance() {
			return this.name;
		}

		@Override
		public String counts() {
			return ClusterInstance.counts(this.counter, " 0 0 0 0 0 0 0 0");
		}

		@Override
		public void close() {
			this.scheduler.stop();
			this.pool.close();
		}

	}

}
