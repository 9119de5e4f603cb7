package io.github.wheeltimer.durable.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.LongConsumer;
import java.util.stream.Collectors;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.annotation.DelayedExecution;
import io.github.wheeltimer.annotation.DelayedMethod;
import io.github.wheeltimer.annotation.DurableCallScheduler;
import io.github.wheeltimer.durable.CallPage;
import io.github.wheeltimer.durable.DurableCalls;
import io.github.wheeltimer.durable.StoredCall;
import io.github.wheeltimer.durable.arguments.DurableMethod;
import io.github.wheeltimer.durable.arguments.DurableMethods;
import io.github.wheeltimer.durable.cooperation.ArgumentShapes;
import io.github.wheeltimer.durable.cooperation.ClaimPoller;
import io.github.wheeltimer.durable.cooperation.DurableCallsReport;
import io.github.wheeltimer.durable.cooperation.DurableSettings;
import io.github.wheeltimer.durable.cooperation.DurableThreads;
import io.github.wheeltimer.durable.cooperation.InstancesView;
import io.github.wheeltimer.durable.cooperation.Lease;
import io.github.wheeltimer.durable.cooperation.StrandedCalls;
import io.github.wheeltimer.durable.run.CallCounters;
import io.github.wheeltimer.durable.run.CallCounts;
import io.github.wheeltimer.durable.run.CallRunner;
import io.github.wheeltimer.durable.run.DurableClock;
import io.github.wheeltimer.durable.run.HeldCalls;
import io.github.wheeltimer.durable.storage.CallRepository;
import io.github.wheeltimer.durable.storage.DatabaseProblems;
import io.github.wheeltimer.durable.storage.FailedCall;
import io.github.wheeltimer.durable.storage.InstanceRepository;
import io.github.wheeltimer.durable.storage.Requeued;
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
 * refreshes or closes the application. The stop first waits for the poll in progress on the poll
 * thread, the only one that claims pending rows: a claim it sent must land before the stop's bulk
 * release, which it would otherwise undo, so that each held call is handed back, and counted,
 * once. It then waits for the calls it keeps (those due within a poll interval) to pass their
 * gates on the gate thread; from the start of the stop its statements, that wait for the poll,
 * the gates and the writes of the calls still running go through one
 * {@link ShutdownBudget}, so that a database gone away cannot hold the stop for longer than
 * {@code wheel-timer.durable.shutdown-timeout}.
 */
public final class DurableEngine implements DurableCallScheduler, SmartLifecycle, DisposableBean {

	/**
	 * Stops after the web server's graceful shutdown, so requests still being served can write
	 * calls, and before the timers' lifecycle ({@code ExecutorConfigurationSupport.DEFAULT_PHASE +
	 * 1024}), so held calls are handed back before the timers drain.
	 */
	public static final int PHASE = ExecutorConfigurationSupport.DEFAULT_PHASE + 1536;

	private static final Log logger = LogFactory.getLog(DurableEngine.class);

	/** How long past the last kept call's due time a stopping instance waits for it to start. */
	private static final Duration DRAIN_SLACK = Duration.ofSeconds(1);

	private final UUID instance = UUID.randomUUID();

	private final CallRepository calls;

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

	private final CallRunner runner;

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
		this.calls = calls;
		this.settings = settings;
		this.scheduler = new DurableThreads(timers);
		this.clock = new DurableClock(this.scheduler.ticker());
		this.counters = new CallCounters(settings.horizon());
		this.methods = new DurableMethods(mapper, beanFactory);
		this.shapes = new ArgumentShapes(this.methods);
		this.held = new HeldCalls(settings.batchSize());
		this.lease = new Lease(instances, this.scheduler, this.instance, settings, this.problems);
		this.writes = new RowWrites(this.problems, this.lease::disconnected, settings.shutdownTimeout());
		CallRunner runner = new CallRunner(calls, this.methods, this.held, this.writes, this.counters, this.clock,
				this.instance, settings.lease(), settings.horizon());
		this.runner = runner;
		this.client = new CallWriter(calls, this.methods, this.shapes, this.held, runner, this.writes, this.counters, this.clock,
				this.instance, settings.instanceName(), settings.horizon(), () -> this.running);
		this.reports = new InstancesView(calls, instances, this.methods, this.shapes, settings.lease(), this.instance);
		this.poller = new ClaimPoller(calls, instances, this.methods, this.shapes, this.held, runner, this.writes,
				this.reports, this.counters, this.clock, this.lease, this.scheduler, settings, this.instance);
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

	/** @see DurableCalls#cancel(String, Object) */
	boolean cancel(String methodId, Object key) {
		return this.client.cancel(methodId, key);
	}

	/** @see DurableCalls#find(String, Object) */
	public @Nullable StoredCall find(String methodId, Object key) {
		return this.client.find(methodId, key);
	}

	/**
	 * Reads one call, in any state.
	 * @param id the call's id
	 * @return the call, or {@code null} if there is none: it ran, it was cancelled, or it never
	 * existed
	 * @throws DataAccessException if the database cannot be reached
	 */
	public @Nullable StoredCall find(UUID id) {
		return this.calls.find(id);
	}

	/**
	 * Reads a page of calls.
	 * @param filter which calls
	 * @param page the page, from 0
	 * @param size the most calls on a page, 1 to {@value #MAX_PAGE}
	 * @return the page
	 * @throws IllegalArgumentException if the page or its size is out of range
	 * @throws DataAccessException if the database cannot be reached
	 */
	public CallPage list(CallRepository.Filter filter, int page, int size) {
		if (page < 0) {
			throw new IllegalArgumentException("page must be 0 or more, was " + page);
		}
		if (size < 1 || size > MAX_PAGE) {
			throw new IllegalArgumentException("size must be between 1 and " + MAX_PAGE + ", was " + size);
		}
		long offset = (long) page * size;
		if (offset > Integer.MAX_VALUE) {
			throw new IllegalArgumentException("page " + page + " of " + size + " calls is beyond the last call");
		}
		long total = this.calls.count(filter);
		List<StoredCall> calls = (offset < total) ? this.calls.list(filter, (int) offset, size) : List.of();
		return new CallPage(calls, page, size, total);
	}

	/** The most calls a page of {@link #list} holds. */
	public static final int MAX_PAGE = 1000;

	/**
	 * Moves a waiting call to a new due time (it gets a new id), or puts a failed call back to wait
	 * for it (as if new: no attempts, no error, its key back). Joins the caller's transaction on the
	 * database, if there is one.
	 * @param id the call's id
	 * @param due when it runs, by the application's clock; a time past runs it now
	 * @return the call as this change left it (held here and due now, it may be running by the time
	 * it is read), or {@code null} if it is neither waiting nor failed: it started, ran, or is gone
	 * @throws IllegalStateException if it failed and a waiting call of its method holds its key
	 * @throws DataAccessException if the database cannot be reached
	 */
	public @Nullable StoredCall reschedule(UUID id, Instant due) {
		StoredCall call = this.calls.find(id);
		return (call != null) ? this.client.reschedule(call, due) : null;
	}

	/** @see DurableCalls#reschedule(String, Object, Instant) */
	public @Nullable StoredCall reschedule(String methodId, Object key, Instant due) {
		StoredCall call = this.client.find(methodId, key);
		return (call != null) ? this.client.reschedule(call, due) : null;
	}

	/**
	 * Cancels a waiting call, or deletes a failed one. Joins the caller's transaction on the
	 * database, if there is one.
	 * @param id the call's id
	 * @return the call as it was, or {@code null} if it was neither waiting nor failed: it started,
	 * ran, or is gone
	 * @throws DataAccessException if the database cannot be reached
	 */
	public @Nullable StoredCall cancel(UUID id) {
		StoredCall call = this.calls.find(id);
		return (call != null && this.client.cancel(call)) ? call : null;
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
		this.runner.start();
		this.running = true;
		this.poller.start();
	}

	/**
	 * Hands the calls this instance claimed and has not started back to the database, for the
	 * other instances (or this application's next start) to run. Those due within a poll interval
	 * run here first, on their tick, and this waits for them to start: handed back, they would
	 * wait for another instance's next poll. Under a virtual clock everything goes back at once.
	 * A poll in progress ends first, so that each call goes back, and is counted, once.
	 * Once the database is known unreachable, or the shutdown timeout is spent, the rest is left to
	 * the lease, as after a crash, and one WARN line says so.
	 */
	@Override
	public void stop() {
		if (!this.running) {
			return;
		}
		this.running = false;
		this.stopped = true;
		// What is kept is what falls due within a poll interval of this moment: the wait for the poll
		// below must not widen it, holding the close for calls that the others could run on time.
		Instant stopping = this.clock.now();
		this.poller.stop();
		ShutdownBudget budget = this.writes.stopping();
		// Before the drain: a claim the poll in progress sent lands on a wheel, where the drain finds
		// it, and none lands after the release below, which it would undo (the rows it released are
		// pending and within the horizon), making this stop hand them back, and count them, twice.
		// Time on the database, so within the budget: a poll the database holds past it is left
		// behind, and with it every statement of this stop (the lease then hands the rows on).
		budget.run(this::awaitPollEnded);
		// A database known unreachable would refuse their gates: nothing is kept to run here.
		Instant keepUntil = (this.clock.system() && !this.problems.unreachable())
				? stopping.plus(this.settings.pollInterval()) : null;
		Map<String, Integer> byMethod = new TreeMap<>();
		this.held.drain(keepUntil).forEach((call) -> byMethod.merge(call.method().description(), 1, Integer::sum));
		boolean interrupted = false;
		try {
			// Finishes and failures that waited for the database first: their calls must not run again.
			this.writes.retryDeferred();
			int released = handBackAll(budget, keepUntil, Set.of());
			int ranHere = 0;
			if (keepUntil != null) {
				int kept = this.held.stillDraining().size();
				// Their gates are statements of the budget: a database that does not answer makes them give
				// up, and the wait ends with them.
				interrupted = !this.held.awaitDrained(keepUntil.plus(DRAIN_SLACK));
				// What did not fire in time goes back too, and so do claims that were not held (made while
				// stopping); calls that fired and wait for an executor thread still run here.
				this.held.dropUndrained()
					.forEach((call) -> byMethod.merge(call.method().description(), 1, Integer::sum));
				Set<UUID> starting = this.held.stillDraining();
				ranHere = kept - starting.size();
				// Calls due already when claimed wait for their gate without a wheel: they start here too.
				Set<UUID> leftClaimed = new HashSet<>(starting);
				leftClaimed.addAll(this.runner.atGate());
				released += handBackAll(budget, null, leftClaimed);
			}
			if (released > 0) {
				logger.warn(released + ((released == 1) ? " durable call" : " durable calls")
						+ " handed back to the database, to run on another instance or at the next start: "
						+ byMethod.entrySet()
							.stream()
							.map((entry) -> entry.getKey() + " x" + entry.getValue())
							.collect(Collectors.joining(", "))
						+ ((ranHere > 0) ? "; " + ranHere + " due within the poll interval started here first" : ""));
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Durable calls could not be handed back (" + ex.getMessage() + "); other instances take them"
					+ " over once this instance's lease (" + this.settings.lease() + ") runs out");
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/** On a thread of the stop's budget, which interrupts it once the budget is spent. */
	private void awaitPollEnded() {
		try {
			this.poller.awaitPollEnded();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** @return how many claimed calls went back, within the stop's budget */
	private int handBackAll(ShutdownBudget budget, @Nullable Instant after, Set<UUID> except) {
		int[] released = new int[1];
		budget.run(() -> released[0] = this.calls.handBackAll(this.instance, after, except));
		this.counters.handedBack.add(released[0]);
		return released[0];
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
			this.runner.stop(this.settings.shutdownTimeout());
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
		return (polling != null) ? polling : this.runner.busy();
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

	/**
	 * Reads the database's view for operators: calls by state, the instances, failed calls and
	 * calls of methods no live instance knows.
	 * @param failedLimit how many failed calls to list, newest first
	 * @return the view
	 * @throws DataAccessException if the database cannot be reached
	 */
	public DurableCallsReport report(int failedLimit) {
		return this.reports.report(failedLimit);
	}

	/**
	 * Reads the newest failed calls, with their keys and errors.
	 * @param methodId only this method id's, or {@code null} for all
	 * @param limit how many at most
	 * @return the calls, newest first
	 * @throws DataAccessException if the database cannot be reached
	 */
	public List<FailedCall> failedCalls(@Nullable String methodId, int limit) {
		return this.reports.failed(methodId, limit);
	}

	/**
	 * Counts failed calls.
	 * @param methodId only this method id's, or {@code null} for all
	 * @return how many failed calls the database keeps
	 * @throws DataAccessException if the database cannot be reached
	 */
	public long countFailed(@Nullable String methodId) {
		return this.reports.countFailed(methodId);
	}

	/**
	 * Puts failed calls back to pending, due now, for any instance to run again (an operator
	 * fixed the cause). Joins the caller's transaction on the database, if there is one. A call
	 * that had a key gets it back, unless a pending call holds it now: then it stays failed.
	 * @param methodId only the failed calls of this method id, or {@code null} for all
	 * @return how many calls were re-queued, and those left failed for their key
	 * @throws DataAccessException if the database cannot be reached
	 */
	public Requeued requeueFailed(@Nullable String methodId) {
		return this.client.requeueFailed(methodId);
	}



}
