package io.github.wheeltimer.durable.engine;

import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.LongConsumer;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.annotation.DelayedExecution;
import io.github.wheeltimer.annotation.DelayedMethod;
import io.github.wheeltimer.annotation.DurableCallScheduler;
import io.github.wheeltimer.durable.arguments.DurableMethod;
import io.github.wheeltimer.durable.arguments.DurableMethods;
import io.github.wheeltimer.durable.cooperation.ArgumentShapes;
import io.github.wheeltimer.durable.cooperation.ClaimPoller;
import io.github.wheeltimer.durable.cooperation.DurableSettings;
import io.github.wheeltimer.durable.cooperation.DurableThreads;
import io.github.wheeltimer.durable.cooperation.InstancesView;
import io.github.wheeltimer.durable.cooperation.Lease;
import io.github.wheeltimer.durable.cooperation.StrandedCalls;
import io.github.wheeltimer.durable.run.CallCounters;
import io.github.wheeltimer.durable.run.CallCounts;
import io.github.wheeltimer.durable.run.DurableClock;
import io.github.wheeltimer.durable.run.HeldCalls;
import io.github.wheeltimer.durable.run.RunPipeline;
import io.github.wheeltimer.durable.storage.CallRepository;
import io.github.wheeltimer.durable.storage.DatabaseProblems;
import io.github.wheeltimer.durable.storage.InstanceRepository;
import io.github.wheeltimer.durable.storage.RowWrites;
import io.github.wheeltimer.durable.storage.ShutdownBudget;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.dao.DataAccessException;
import org.springframework.scheduling.concurrent.ExecutorConfigurationSupport;

/**
 * This instance's share of the durable calls: the scheduler of
 * {@code @DelayedExecution(durable = true)} methods, and the lifecycle of the parts that keep
 * their promises (see the package's documentation for how a call travels through them). It starts
 * them in order, hands this instance's unstarted calls back when it stops, and answers what
 * monitoring asks.
 * <p>
 * Threads: {@link #start()}, {@link #stop()} and {@link #destroy()} run on the thread that
 * refreshes or closes the application; the stop's order, and its time budget against a database
 * gone away, are {@link Stopping}'s.
 */
public final class DurableEngine implements DurableCallScheduler, SmartLifecycle, DisposableBean {

	/**
	 * Stops after the web server's graceful shutdown, so requests still being served can write
	 * calls, and before the timers' lifecycle ({@code ExecutorConfigurationSupport.DEFAULT_PHASE +
	 * 1024}), so held calls are handed back before the timers drain.
	 */
	public static final int PHASE = ExecutorConfigurationSupport.DEFAULT_PHASE + 1536;

	private static final Log logger = LogFactory.getLog(DurableEngine.class);

	private final UUID instance = UUID.randomUUID();

	private final DurableSettings settings;

	private final DurableClock clock;

	private final DurableThreads scheduler;

	private final DatabaseProblems problems = new DatabaseProblems();

	private final CallCounters counters;

	private final DurableMethods methods;

	private final ArgumentShapes shapes;

	private final HeldCalls held;

	private final Lease lease;

	private final RowWrites writes;

	private final CallWriter client;

	private final InstancesView reports;

	private final ClaimPoller poller;

	private final RunPipeline pipeline;

	private final DurableCallsAdmin admin;

	private final Stopping stopping;

	private volatile boolean running;

	private volatile boolean stopped;

	/**
	 * Creates this instance's share of the durable calls.
	 * @param calls where the calls are kept
	 * @param instances where the instances beat
	 * @param settings the settings
	 * @param mapper the JSON mapper for arguments
	 * @param timers a builder of the application's timers, on their clock (a test's virtual clock
	 * too): the polls follow it
	 * @param beanFactory where the beans of durable methods are found when their calls run
	 */
	public DurableEngine(CallRepository calls, InstanceRepository instances, DurableSettings settings, JsonMapper mapper,
			HashedWheelTimer.Builder timers, BeanFactory beanFactory) {
		this.settings = settings;
		this.scheduler = new DurableThreads(timers);
		this.clock = new DurableClock(this.scheduler.ticker());
		this.counters = new CallCounters(settings.horizon());
		this.methods = new DurableMethods(mapper, beanFactory);
		this.shapes = new ArgumentShapes(this.methods);
		this.held = new HeldCalls(settings.batchSize());
		this.lease = new Lease(instances, this.scheduler, this.instance, settings, this.problems);
		this.writes = new RowWrites(this.problems, this.lease::disconnected, settings.shutdownTimeout());
		this.pipeline = new RunPipeline(calls, this.methods, this.held, this.writes, this.counters, this.clock,
				this.instance, settings.lease(), settings.horizon());
		this.reports = new InstancesView(calls, instances, this.methods, this.shapes, settings.lease(), this.instance);
		this.poller = new ClaimPoller(calls, instances, this.methods, this.shapes, this.held, this.pipeline, this.writes,
				this.reports, this.counters, this.clock, this.lease, this.scheduler, settings, this.instance);
		this.client = new CallWriter(calls, this.methods, this.shapes, this.held, this.pipeline, this.writes,
				this.counters, this.clock, this.instance, settings.instanceName(), settings.horizon(), () -> this.running,
				this.poller::doubtClaims);
		this.admin = new DurableCallsAdmin(calls, this.client, this.reports, this.clock);
		this.stopping = new Stopping(calls, this.held, this.pipeline, this.poller, this.writes, this.problems,
				this.counters, this.clock, settings, this.instance);
	}

	@Override
	public void register(DelayedMethod method, DelayedExecution annotation, String beanName) {
		this.methods.register(method, annotation, beanName);
	}

	/** The caller's thread: the row first, then (after its commit) the wheel. */
	@Override
	public @Nullable Object schedule(DelayedMethod method, MethodInvocation invocation) {
		return this.client.schedule(this.methods.of(method), invocation.getArguments());
	}

	/**
	 * Deletes the waiting and failed calls of a method that neither this instance nor any live
	 * instance knows (a method renamed or removed): they would wait for ever. Joins the caller's
	 * transaction on the database, if there is one.
	 * @param methodId the method's durable id
	 * @return how many calls were deleted
	 * @throws IllegalStateException if this instance or a live one knows the method
	 * @throws DataAccessException if the database cannot be reached
	 */
	public int deleteCallsOf(String methodId) {
		return this.client.deleteCallsOf(methodId, this.reports.instances());
	}

	@Override
	public void start() {
		if (this.stopped || this.running) {
			return;
		}
		this.scheduler.start();
		this.poller.notePredecessors();
		this.lease.begin(List.copyOf(this.methods.ids()), this.shapes);
		this.pipeline.start();
		this.running = true;
		this.poller.start();
	}

	/** Hands the calls this instance claimed and has not started back: see {@link Stopping}. */
	@Override
	public void stop() {
		if (!this.running) {
			return;
		}
		this.running = false;
		this.stopped = true;
		this.stopping.stop();
	}

	/**
	 * After the timers' lifecycle has waited for running calls: stops the heartbeat and leaves the
	 * instance table. A call still running now is taken over by another instance (at least once).
	 */
	@Override
	public void destroy() {
		this.stopped = true;
		this.running = false;
		this.poller.stop();
		this.lease.end();
		this.scheduler.end();
		ShutdownBudget budget = this.writes.stopping();
		try {
			// The rows of calls that ran go first: they must not run again.
			this.pipeline.stop(this.settings.shutdownTimeout());
			this.writes.retryDeferred();
			this.writes.run(() -> this.lease.leave());
		}
		catch (RuntimeException ex) {
			logger.debug("Durable calls could not leave the instance table: " + ex.getMessage());
		}
		finally {
			budget.close();
		}
		String skipped = budget.skipped();
		if (skipped != null) {
			logger.warn("Durable calls stopped without finishing their writes to the database, as " + skipped
					+ ". The calls this instance held stay claimed by it until its lease ("
					+ this.settings.lease() + ") runs out; then another instance, or the next start, takes them"
					+ " over (a call that ran and whose end could not be written runs again: at least once)");
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	/** @return the calls of this instance, as application code and operators change and read them */
	public DurableCallsAdmin admin() {
		return this.admin;
	}

	/**
	 * Returns the application's time as durable calls see it: the timers' clock (a test's virtual
	 * clock too) as an instant.
	 * @return the current time
	 */
	public Instant now() {
		return this.clock.now();
	}

	/**
	 * Says whether a poll is in progress, or calls wait for the batch of their start gate or of
	 * their finish: what {@code @VirtualWheelTime}'s clock waits for, besides the calls running on
	 * executors.
	 * @return {@code null} if idle, else what is in progress
	 */
	public @Nullable String busy() {
		String polling = this.poller.busy();
		return (polling != null) ? polling : this.pipeline.busy();
	}

	/**
	 * Records the lateness of each durable call that starts, in nanoseconds.
	 * @param recorder the recorder, such as a Micrometer timer's
	 */
	public void setLatenessRecorder(LongConsumer recorder) {
		this.counters.recordLatenessWith(recorder);
	}

	/**
	 * Returns whether the database is known to be unreachable now, as the last poll, heartbeat or
	 * call found it: a reader can answer at once instead of waiting for a connection.
	 * @return {@code true} during an outage
	 */
	public boolean unreachable() {
		return this.problems.unreachable();
	}

	/**
	 * Says what is wrong with the database, as the last poll, heartbeat or call found it.
	 * @return the problem, or {@code null} if the database answers as it should
	 */
	public @Nullable String problem() {
		return this.problems.describe();
	}

	/**
	 * Returns this instance's id in the instance table, new at each start.
	 * @return the id
	 */
	public UUID instance() {
		return this.instance;
	}

	/**
	 * Returns a durable method this instance knows, by its id.
	 * @param methodId the method's durable id
	 * @return the method, or {@code null} if this instance does not know it
	 */
	public @Nullable DelayedMethod method(String methodId) {
		DurableMethod method = this.methods.find(methodId);
		return (method != null) ? method.method() : null;
	}

	/**
	 * Returns the durable method ids this instance knows.
	 * @return the ids, sorted
	 */
	public Set<String> methodIds() {
		return this.methods.ids();
	}

	/**
	 * Returns how many calls this instance holds on its wheels.
	 * @return the held calls
	 */
	public int held() {
		return this.held.size();
	}

	/**
	 * Returns how many pending calls wait for an instance that is not running, as this instance's
	 * polls last counted them (no statement of its own): calls of methods no live instance knows,
	 * counted once a minute, and calls written by a version of the application whose arguments no
	 * live instance can read, counted after each poll's claims while some wait or what this instance
	 * cannot read changed, else once a minute.
	 * @return the counts, both 0 until the first clean-up, at the first poll
	 */
	public StrandedCalls waiting() {
		return this.poller.waiting();
	}


	/**
	 * Returns this instance's argument shape of a durable method: the digest of what reading its
	 * calls' arguments takes, which each call it writes records, so that versions of the
	 * application that differ here leave each other's calls to each other.
	 * @param methodId the method's durable id
	 * @return the shape, 16 hexadecimal digits, or {@code null} if this instance does not know the method
	 */
	public @Nullable String shape(String methodId) {
		DurableMethod method = this.methods.find(methodId);
		return (method != null) ? method.shape() : null;
	}

	/**
	 * Returns this instance's counts since it started.
	 * @return the counts
	 */
	public CallCounts counts() {
		return this.counters.snapshot();
	}


}
