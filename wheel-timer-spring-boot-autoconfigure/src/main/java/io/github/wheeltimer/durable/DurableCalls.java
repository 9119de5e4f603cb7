package io.github.wheeltimer.durable;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntConsumer;
import java.util.function.LongConsumer;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.Ticker;
import io.github.wheeltimer.Timeout;
import io.github.wheeltimer.WheelSnapshot;
import io.github.wheeltimer.annotation.DelayedCallOutcome;
import io.github.wheeltimer.annotation.DelayedExecution;
import io.github.wheeltimer.annotation.DelayedMethod;
import io.github.wheeltimer.durable.DatabaseProblems.Source;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.scheduling.concurrent.ExecutorConfigurationSupport;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.StringUtils;

/**
 * This instance's share of the durable calls: writes calls as rows, holds on its wheels the calls
 * it claimed, runs them past the start gate, keeps its lease with heartbeats, takes over the calls
 * of dead instances, and hands its unstarted calls back when it stops.
 * <p>
 * Threads and ownership:
 * <ul>
 * <li>callers' threads write rows ({@link #schedule}) and, after the row is committed, put calls
 * due within the horizon on the method's wheel, recording them in {@code held};
 * <li>the poll runs on a thread of its own, one at a time (the next one is armed when it ends), on a
 * private timer that follows the application's clock (a test's virtual clock too);
 * <li>heartbeats run on their own timer ({@link DurableLease});
 * <li>each call's gate, run and finish run on its method's executor ({@link DurableCall#run()});
 * <li>{@link #stop()} runs on the thread that closes the application; it waits, on {@code draining},
 * for the calls it keeps to pass their gates on the executors' threads. From then on its own
 * statements and {@link #destroy()}'s, the start gates and the writes of the calls still running
 * go through one {@link ShutdownBudget}, so that a database gone away cannot hold the stop for
 * longer than {@code wheel-timer.durable.shutdown-timeout} (callers' own statements, and a method's
 * own transaction, stay theirs).
 * </ul>
 * The database decides every race between instances (a claim skips locked rows, the gate is one
 * conditional update); in memory, {@code held} and the counters are concurrent, and a database
 * write that failed during an outage is queued in {@code deferred} and retried by the next poll.
 * What is wrong with the database is said once, by {@link DatabaseProblems}; a write the database
 * refuses for one row's data is given up for that row alone.
 */
public final class DurableCalls implements SmartLifecycle, DisposableBean {

	/**
	 * Stops after the web server's graceful shutdown, so requests still being served can write
	 * calls, and before the timers' lifecycle ({@code ExecutorConfigurationSupport.DEFAULT_PHASE +
	 * 1024}), so held calls are handed back before the timers drain.
	 */
	public static final int PHASE = ExecutorConfigurationSupport.DEFAULT_PHASE + 1536;

	private static final Log logger = LogFactory.getLog(DurableCalls.class);

	private static final SpelExpressionParser parser = new SpelExpressionParser();

	private static final long CLEAN_UP_NANOS = TimeUnit.MINUTES.toNanos(1);

	/** How long past the last kept call's due time a stopping instance waits for it to start. */
	private static final Duration DRAIN_SLACK = Duration.ofSeconds(1);

	private final DurableCallStore store;

	private final DurableSettings settings;

	private final JsonMapper mapper;

	private final BeanFactory beanFactory;

	/**
	 * Where the polls run, one at a time: a thread of their own, so that delayed methods keeping
	 * the application's executor busy never hold up the claims and take-overs of the instance.
	 */
	private final ExecutorService pollExecutor;

	private final HashedWheelTimer pollTimer;

	private final DurableLease lease;

	private final UUID instance = UUID.randomUUID();

	/**
	 * Wall-clock reading that the poll timer's ticker time {@link #baseNanos} stands for; whole
	 * microseconds, as the database keeps them, so that a virtual clock's whole ticks stay whole.
	 */
	private final Instant base = Instant.now().truncatedTo(ChronoUnit.MICROS);

	private final long baseNanos;

	private final boolean systemClock;

	/** Written at startup by the registry's resolution, before any call; read by polls. */
	private final Map<String, DurableMethod> methods = new ConcurrentHashMap<>();

	/** The calls on this instance's wheels, by id. */
	private final Map<UUID, Timeout> held = new ConcurrentHashMap<>();

	/** The held calls that have a key, by method id and key: a cancel or a replace frees them at once. */
	private final Map<String, UUID> heldByKey = new ConcurrentHashMap<>();

	/** Futures of calls not yet held here, completed if a poll brings the call to this JVM. */
	private final Map<UUID, WeakReference<DurableResult>> futures = new ConcurrentHashMap<>();

	/** Writes that failed (the database was unreachable), retried by the next poll. */
	private final Queue<Write> deferred = new ConcurrentLinkedQueue<>();

	private final DatabaseProblems problems = new DatabaseProblems();

	/**
	 * The instance rows that had this instance's configured name when it started, with the
	 * heartbeat each had then: its previous run, killed, whose calls it takes as soon as that
	 * heartbeat is seen to have stopped. Filled by {@link #start()} before the first poll; polls only
	 * after that.
	 */
	private final Map<UUID, Instant> predecessors = new ConcurrentHashMap<>();

	/** Set once by the stop: its statements share one time budget. */
	private volatile @Nullable ShutdownBudget shutdown;

	/**
	 * Polls launched and not yet ended: what a virtual clock waits for. Counted from the moment a
	 * poll is due until the next one is armed, so that the clock never sees an idle instance with
	 * no poll armed; a count, not a flag, because a refill may launch a poll while the one before
	 * is still arming.
	 */
	private final AtomicInteger polling = new AtomicInteger();

	/**
	 * Calls already due when they went on this instance's wheels and not started yet: what its
	 * executors still have to get through. A poll claims no more once a batch is waiting (so at most
	 * two batches less one), so that a backlog is shared with the other instances instead of
	 * hoarded by the first to poll. Calls due later are claimed in whole batches, to fire on time.
	 */
	private final AtomicInteger backlog = new AtomicInteger();

	/** Set by a poll that stopped for the backlog: the next poll comes as soon as half of it started. */
	private volatile boolean refillWanted;

	private final LongAdder scheduled = new LongAdder();

	private final LongAdder claimed = new LongAdder();

	private final LongAdder started = new LongAdder();

	private final LongAdder ran = new LongAdder();

	private final LongAdder failed = new LongAdder();

	private final LongAdder fenced = new LongAdder();

	private final LongAdder takenOver = new LongAdder();

	private final LongAdder handedBack = new LongAdder();

	private final LongAdder cancelled = new LongAdder();

	private final LongAdder suspectedDuplicates = new LongAdder();

	/** Calls that started late and that no log line mentioned yet; any executor thread. */
	private final AtomicLong lateUnsaid = new AtomicLong();

	/** When the last line about late calls was logged (System.nanoTime()). */
	private final AtomicLong lateSaidNanos = new AtomicLong(Long.MIN_VALUE);

	/**
	 * The held calls a stopping instance still runs itself, those due within a poll interval:
	 * handed back, they would wait for another instance's next poll. Set once by
	 * {@link #stop()}; emptied by the executors' threads as the calls start.
	 */
	private volatile @Nullable Set<UUID> draining;

	private volatile LongConsumer latenessRecorder = (nanos) -> {
	};

	private volatile boolean running;

	private volatile boolean stopped;

	private volatile @Nullable Timeout nextPoll;

	/** Polls only: they run one at a time, each armed by the one before, through the timer. */
	private long lastCleanUpNanos = Long.MIN_VALUE;

	/**
	 * Creates this instance's share of the durable calls; reaches the database to learn what it
	 * is, and to check that its tables are there.
	 * @param dataSource the application's database
	 * @param settings the settings
	 * @param mapper the JSON mapper for arguments
	 * @param pollTimer a private timer for the polls, on the clock the application's timers
	 * follow; started and stopped by this
	 * @param beanFactory where the beans of durable methods are found when their calls run
	 * @throws DurableSchemaMissingException if a table or a column is missing
	 */
	public DurableCalls(DataSource dataSource, DurableSettings settings, JsonMapper mapper, HashedWheelTimer pollTimer,
			BeanFactory beanFactory) {
		this.store = new DurableCallStore(dataSource, DurableDialect.of(dataSource), settings.tablePrefix(),
				settings.lease());
		this.store.requireSchema();
		this.settings = settings;
		this.mapper = DurableArguments.mapperFor(mapper);
		this.pollTimer = pollTimer;
		this.pollExecutor = Executors.newSingleThreadExecutor((task) -> {
			Thread thread = new Thread(task, "wheel-timer-durable-poll-run");
			thread.setDaemon(true);
			return thread;
		});
		this.beanFactory = beanFactory;
		this.systemClock = pollTimer.ticker() == Ticker.system();
		this.baseNanos = pollTimer.ticker().nanoTime();
		this.lease = new DurableLease(this.store, this.instance, settings, this.problems);
	}

	/**
	 * Resolves the durable side of a method at startup.
	 * @throws IllegalArgumentException saying what is wrong: a duplicate id, an id too long to
	 * store, a key that is not valid SpEL or names a variable the method does not have, a delay
	 * too long to store, a parameter that cannot round-trip through JSON
	 */
	public DurableMethod register(DelayedMethod method, DelayedExecution annotation, String beanName) {
		String id = StringUtils.hasText(annotation.id()) ? annotation.id().trim()
				: method.method().getDeclaringClass().getSimpleName() + "." + method.method().getName();
		if (id.indexOf('\n') >= 0 || id.indexOf('\r') >= 0 || id.indexOf('\0') >= 0) {
			throw new IllegalArgumentException("its durable id '" + id.replace("\0", "\\0")
					+ "' holds a line break or a NUL character; an id is one line of text");
		}
		if (id.length() > DurableCallStore.METHOD_ID_LENGTH) {
			throw new IllegalArgumentException("its durable id is " + id.length() + " characters long, and ids are"
					+ " stored in a column of " + DurableCallStore.METHOD_ID_LENGTH + "; give it a shorter"
					+ " @DelayedExecution(id = \"...\")");
		}
		try {
			method.delay().toNanos();
		}
		catch (ArithmeticException tooLong) {
			throw new IllegalArgumentException("its delay " + method.delay() + " is longer than durable calls keep:"
					+ " at most about 292 years (a long of nanoseconds, the wheel's own range)", tooLong);
		}
		Expression key = null;
		if (StringUtils.hasText(annotation.key())) {
			try {
				key = parser.parseExpression(annotation.key());
			}
			catch (ParseException ex) {
				throw new IllegalArgumentException("its key \"" + annotation.key() + "\" is not a valid SpEL"
						+ " expression: " + ex.getMessage(), ex);
			}
			KeyVariables.requireKnown((SpelExpression) key, method.method());
		}
		DurableArguments arguments;
		try {
			arguments = new DurableArguments(this.mapper, method.method());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("durable calls store their arguments as JSON, and its " + ex.getMessage(),
					ex);
		}
		DurableMethod durable = new DurableMethod(method, id, key, arguments, beanName, this.beanFactory, this);
		DurableMethod other = this.methods.putIfAbsent(id, durable);
		if (other != null && other.method() != method) {
			throw new IllegalArgumentException("its durable id '" + id + "' is also the id of "
					+ other.method().description() + "; give one of them @DelayedExecution(id = \"...\")");
		}
		return (other != null) ? other : durable;
	}

	/**
	 * Cancels the pending call of a durable method by its key, wherever it waits: in the database,
	 * or claimed by any instance (its gate then finds the row gone). In a Spring transaction on the
	 * same {@code DataSource}, the cancel is part of it.
	 * @param methodId the method's durable id
	 * @param key the key, as the method's key expression gives it
	 * @return whether a pending call was cancelled; {@code false} if there was none (it ran, is
	 * running, or never existed)
	 */
	boolean cancel(String methodId, Object key) {
		if (!this.methods.containsKey(methodId)) {
			throw new IllegalArgumentException("There is no durable delayed method with id '" + methodId
					+ "'; the ids are " + new TreeMap<>(this.methods).keySet());
		}
		String text = key.toString();
		if (!DurableMethod.storable(text)) {
			// No call could have been made with it.
			return false;
		}
		// Read before the statement: a call made with this key after it must stay on the wheel.
		UUID before = this.heldByKey.get(heldKey(methodId, text));
		boolean cancelled = this.store.cancel(methodId, text) > 0;
		if (cancelled) {
			DurableMethod method = this.methods.get(methodId);
			afterCommit(() -> {
				this.cancelled.increment();
				observeCancel(method);
				if (before != null) {
					dropHeld(methodId, text, before);
				}
			});
		}
		return cancelled;
	}

	/**
	 * Observes a cancel once it is committed, on the canceller's thread: a child of the canceller's
	 * observation, as the call's own caller's trace stays in the row that is now gone.
	 */
	private static void observeCancel(DurableMethod method) {
		method.method().observer().none().ended(method.method(), DelayedCallOutcome.CANCELLED, null);
	}

	/**
	 * Takes a cancelled or replaced call off this instance's wheel, if it still holds it: only
	 * that call, never a newer one made with the same key in between. Frees memory early (the
	 * start gate would find its row gone anyway); the release is a no-op then, and only hands the
	 * row back if it is somehow still there.
	 */
	private void dropHeld(String methodId, String key, UUID id) {
		this.heldByKey.remove(heldKey(methodId, key), id);
		Timeout timeout = this.held.get(id);
		if (timeout != null && timeout.cancel() && timeout.task() instanceof DurableCall call) {
			release(call);
			write(call, "released", () -> this.store.release(id, this.instance), null);
		}
	}

	/** Runs after the current thread's transaction on the database commits, or now if there is none. */
	private void afterCommit(Runnable action) {
		if (!inTransaction()) {
			action.run();
			return;
		}
		afterCompletion((status) -> {
			if (status == TransactionSynchronization.STATUS_COMMITTED) {
				action.run();
			}
		});
	}

	/** Runs if the current thread's transaction on the database rolls back; never without one. */
	private void afterRollback(Runnable action) {
		if (inTransaction()) {
			afterCompletion((status) -> {
				if (status == TransactionSynchronization.STATUS_ROLLED_BACK) {
					action.run();
				}
			});
		}
	}

	/** Tells {@code action} how the current thread's transaction ended, once it has. */
	private static void afterCompletion(IntConsumer action) {
		TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

			@Override
			public void afterCompletion(int status) {
				action.accept(status);
			}

		});
	}

	private static String heldKey(String methodId, String key) {
		return methodId + '\u0000' + key;
	}

	/** Cancels one call by id: its future was cancelled. */
	boolean cancel(DurableMethod method, UUID id) {
		boolean cancelled = this.store.cancel(id);
		if (cancelled) {
			afterCommit(() -> {
				this.cancelled.increment();
				observeCancel(method);
				Timeout timeout = this.held.get(id);
				if (timeout != null && timeout.task() instanceof DurableCall call) {
					release(call);
					timeout.cancel();
				}
			});
		}
		this.futures.remove(id);
		return cancelled;
	}

	/**
	 * The caller's thread: the row first, then (after its commit) the wheel. Once this instance
	 * has stopped, a call (made by a delayed method still running, say) is written pending, for
	 * another instance or the next start: accepted as long as the database accepts it.
	 */
	@Nullable Object schedule(DurableMethod method, @Nullable String key, String arguments) {
		UUID id = UUID.randomUUID();
		// Read before the statement: only the call this one replaces leaves the wheel.
		UUID replaced = (key != null) ? this.heldByKey.get(heldKey(method.id(), key)) : null;
		Duration delay = method.method().delay();
		Instant due = wholeMicros(now().plus(delay));
		boolean near = this.running && delay.compareTo(this.settings.horizon()) <= 0;
		String traceParent = method.method().observer().traceParent();
		try {
			this.store.insert(id, method.id(), key, arguments, due, near ? this.instance : null, traceParent);
		}
		catch (DataAccessResourceFailureException ex) {
			if (DatabaseFailure.of(ex) != DatabaseFailure.UNREACHABLE) {
				throw ex;
			}
			throw new DataAccessResourceFailureException("Durable call to " + method.method().description()
					+ " was not accepted: its database cannot be reached (" + ex.getMessage() + ")", ex);
		}
		this.scheduled.increment();
		DurableResult result = method.method().returnsFuture() ? new DurableResult(method, id) : null;
		if (key != null && replaced != null) {
			afterCommit(() -> dropHeld(method.id(), key, replaced));
		}
		if (!near) {
			if (result != null) {
				this.futures.put(id, new WeakReference<>(result));
				afterRollback(() -> {
					this.futures.remove(id);
					result.rolledBack();
				});
			}
			return result;
		}
		DurableCall call = new DurableCall(method, id, key, arguments, due, 0, traceParent, result);
		if (inTransaction()) {
			afterCompletion((status) -> {
				// Unknown (the connection broke during the commit): the row may be there, claimed by us;
				// held, its gate finds out. Only a rollback certainly removed it.
				if (status != TransactionSynchronization.STATUS_ROLLED_BACK) {
					hold(call);
				}
				else if (result != null) {
					result.rolledBack();
				}
			});
		}
		else {
			hold(call);
		}
		return result;
	}

	/**
	 * Whether the current thread runs in a transaction, with synchronization, that holds a
	 * connection of the durable calls' database: the caller's, or a durable method's own.
	 */
	boolean inTransaction() {
		return TransactionSynchronizationManager.isSynchronizationActive()
				&& TransactionSynchronizationManager.isActualTransactionActive()
				&& TransactionSynchronizationManager.hasResource(this.store.dataSource());
	}

	/** Puts a claimed call on its method's wheel, to fire on the tick of its due time. */
	private void hold(DurableCall call) {
		long delayNanos = Math.max(0, Duration.between(now(), call.due()).toNanos());
		if (delayNanos == 0) {
			// Before the wheel: a call that fires and starts at once leaves the backlog once, either way.
			call.enterBacklog();
			this.backlog.incrementAndGet();
		}
		Timeout timeout;
		try {
			timeout = call.durableMethod().method().timer().newTimeout(call, delayNanos, TimeUnit.NANOSECONDS);
		}
		catch (RuntimeException refused) {
			handBack(call, "its timer refused it: " + refused.getMessage());
			return;
		}
		Timeout previous = this.held.put(call.id(), timeout);
		if (previous != null && previous.task() instanceof DurableCall stale && stale != call && previous.cancel()) {
			// Claimed again while an older claim of the same row was still on the wheel (this instance
			// took itself over after a pause): the older one would fail its gate anyway.
			leaveBacklog(stale);
		}
		String key = call.key();
		if (key != null) {
			this.heldByKey.put(heldKey(call.durableMethod().id(), key), call.id());
		}
		if (timeout.isExpired()) {
			// It fired (and was taken off) before it was recorded.
			forget(call);
		}
	}

	/** The executor's thread, right before the call runs: the start gate. */
	boolean start(DurableCall call) {
		forget(call);
		try {
			boolean[] passed = new boolean[1];
			if (!run(() -> passed[0] = this.store.start(call.id(), this.instance))) {
				// Stopping, and the database does not answer: the row is left to the lease.
				return false;
			}
			if (passed[0]) {
				this.problems.succeeded(Source.CALLS);
				this.started.increment();
				return true;
			}
			this.fenced.increment();
			// Not ours any more (cancelled, replaced, taken over), or our lease lapsed: in that case
			// the row is still claimed by us, and goes back for whoever is alive.
			run(() -> this.store.release(call.id(), this.instance));
		}
		catch (RuntimeException ex) {
			// One warning for an outage, not one per call due during it; a refusal is this row's alone.
			failed(Source.CALLS, ex);
			String failure = "Durable call " + call.id() + " to " + call.durableMethod() + " cannot start, its database"
					+ " failed; it is handed back: " + ex.getMessage();
			if (DatabaseFailure.of(ex) == DatabaseFailure.REFUSED) {
				logger.error(failure);
			}
			else {
				logger.debug(failure);
			}
			// The gate's update may have passed with its answer lost: the row is then running at this
			// attempt, and goes back too.
			this.deferred.add(handBackWrite(call, true));
		}
		finally {
			// After the gate: a stopping instance waits for its kept calls to have started.
			drained(call.id());
		}
		return false;
	}

	void started(DurableCall call, Duration lateness) {
		if (call.attemptsBefore() > 0) {
			// It started before, on an instance whose lease then ran out: that run may have finished
			// its work without its row being finished (at least once).
			this.suspectedDuplicates.increment();
		}
		this.futures.remove(call.id());
		this.latenessRecorder.accept(Math.max(0, lateness.toNanos()));
		if (lateness.compareTo(this.settings.horizon()) > 0) {
			sayLate(call, lateness);
		}
	}

	/**
	 * One line a minute at most for calls that start late: after an outage they come by the
	 * thousand, and the meter has each one.
	 */
	private void sayLate(DurableCall call, Duration lateness) {
		long unsaid = this.lateUnsaid.incrementAndGet();
		long now = System.nanoTime();
		long said = this.lateSaidNanos.get();
		if ((said == Long.MIN_VALUE || now - said >= CLEAN_UP_NANOS) && this.lateSaidNanos.compareAndSet(said, now)) {
			this.lateUnsaid.addAndGet(-unsaid);
			logger.info("Durable call to " + call.durableMethod() + " runs " + lateness.toMillis() + " ms after its due time "
					+ call.due() + " (no instance was running, or none could claim it)"
					+ ((unsaid > 1) ? "; " + (unsaid - 1) + " more calls started that late since the last such line" : ""));
		}
	}

	void ran(DurableCall call, boolean finishedInTransaction) {
		this.ran.increment();
		if (!finishedInTransaction) {
			write(call, "finished", () -> this.store.finish(call.id()), null);
		}
	}

	/** The call's own transaction was rolled back: it had been taken over while it ran. */
	void lost(DurableCall call, LeaseLostException ex) {
		this.fenced.increment();
		logger.warn(ex.getMessage() + " (a pause longer than wheel-timer.durable.lease: " + this.settings.lease()
				+ "), so that its effects happen once, where it runs now");
	}

	void failed(DurableCall call, Throwable ex) {
		this.failed.increment();
		markFailed(call, ex.getClass().getName() + ": " + ex.getMessage(), ex);
	}

	void unreadable(DurableCall call, RuntimeException ex) {
		this.failed.increment();
		DurableCall.logUnreadable(call, ex);
		markFailed(call, "unreadable: " + ex.getMessage(), ex);
	}

	/**
	 * Keeps the row as failed with its error; should the database refuse that text, with a note
	 * that it is in the log instead, so that the row leaves the running state either way.
	 */
	private void markFailed(DurableCall call, String error, Throwable ex) {
		int attempt = call.attemptsBefore() + 1;
		write(call, "marked failed", () -> this.store.fail(call.id(), this.instance, attempt, error),
				() -> this.store.fail(call.id(), this.instance, attempt, "the database refused the error's text; it is in"
						+ " the log of the instance that ran the call (" + ex.getClass().getName() + ")"));
	}

	/** The call will not run here after all: its row goes back to pending for any instance. */
	void handBack(DurableCall call, String why) {
		release(call);
		logger.debug("Durable call " + call.id() + " handed back to the database: " + why);
		write(handBackWrite(call, false));
	}

	/**
	 * The write that hands a held call's row back, counted when the row goes back, not when asked:
	 * a stop's bulk hand-back may release the same row first (its drain stops waiting for this call
	 * here), and counts it then.
	 * @param afterGate whether its start gate ran and failed: the row may be running at this
	 * attempt, its update passed and its answer lost
	 */
	private Write handBackWrite(DurableCall call, boolean afterGate) {
		return new Write(call, "handed back", () -> {
			boolean back = afterGate ? this.store.releaseAfterGate(call.id(), this.instance, call.attemptsBefore() + 1)
					: this.store.release(call.id(), this.instance);
			if (back) {
				this.handedBack.increment();
			}
		}, null);
	}

	/** Forgets a held call that will not start here: it went back, or was cancelled. */
	private void release(DurableCall call) {
		forget(call);
		drained(call.id());
	}

	/** Forgets a held call: it fires, or goes back. */
	private void forget(DurableCall call) {
		// Only this call's entry: a newer claim of the same row may have replaced it.
		this.held.computeIfPresent(call.id(), (id, timeout) -> (timeout.task() == call) ? null : timeout);
		leaveBacklog(call);
		String key = call.key();
		if (key != null) {
			this.heldByKey.remove(heldKey(call.durableMethod().id(), key), call.id());
		}
	}

	private void leaveBacklog(DurableCall call) {
		if (call.leaveBacklog() && this.backlog.decrementAndGet() <= this.settings.batchSize() / 2
				&& this.refillWanted) {
			refill();
		}
	}

	/** Tells a stopping instance that one of the calls it kept has started, or will not start here. */
	private void drained(UUID id) {
		Set<UUID> draining = this.draining;
		if (draining != null && draining.remove(id) && draining.isEmpty()) {
			synchronized (draining) {
				draining.notifyAll();
			}
		}
	}

	/**
	 * Finishes a row inside the running method's own transaction, and counts it finished only once
	 * that transaction commits: rolled back (a {@code setRollbackOnly()} without an exception, say),
	 * the delete is undone and the row is finished on its own afterwards.
	 * @throws LeaseLostException if the row is no longer this instance's running call (another
	 * instance took it over meanwhile): the method's transaction must not commit
	 */
	void finishInTransaction(DurableCall call) {
		if (!this.store.finish(call.id(), this.instance, call.attemptsBefore() + 1)) {
			throw new LeaseLostException(call);
		}
		afterCompletion((status) -> {
			if (status == TransactionSynchronization.STATUS_COMMITTED) {
				call.finishedInTransaction();
			}
		});
	}

	DurableCallStore store() {
		return this.store;
	}

	/**
	 * Writes one call's row now or, while the database fails in a way that may pass, at the next
	 * poll. A write the database refuses for this row's data is given up (after its fallback, if
	 * it has one): one bad row never stops the instance's other work.
	 */
	private void write(DurableCall call, String what, Runnable write, @Nullable Runnable fallback) {
		write(new Write(call, what, write, fallback));
	}

	private void write(Write write) {
		if (!attempt(write)) {
			this.deferred.add(write);
		}
	}

	/** @return {@code false} if the write must wait for a later attempt */
	private boolean attempt(Write write) {
		try {
			if (run(write.statement())) {
				this.problems.succeeded(Source.CALLS);
			}
			return true;
		}
		catch (RuntimeException ex) {
			if (DatabaseFailure.of(ex).retryLater()) {
				failed(Source.CALLS, ex);
				ShutdownBudget stopping = this.shutdown;
				if (stopping != null) {
					// No next poll to try it again: the lease hands the row on.
					stopping.leftToLease("a write failed (" + ex.getMessage() + ")");
					return true;
				}
				logger.debug("Durable call " + write.call().id() + " to " + write.call().durableMethod() + " could not be "
						+ write.what() + " (tried again at the next poll): " + ex.getMessage());
				return false;
			}
			logger.error("Durable call " + write.call().id() + " to " + write.call().durableMethod() + " could not be "
					+ write.what() + ": the database refused it for this row (" + ex.getMessage() + ")"
					+ ((write.fallback() != null) ? "; writing it without the refused text" : "; given up"));
			Runnable fallback = write.fallback();
			if (fallback != null) {
				try {
					run(fallback);
				}
				catch (RuntimeException refusedAgain) {
					logger.error("Durable call " + write.call().id() + " to " + write.call().durableMethod()
							+ " could not be " + write.what() + " at all; its row stays as it is: "
							+ refusedAgain.getMessage());
				}
			}
			return true;
		}
	}

	/**
	 * Runs a statement now, or within the stop's time budget once this instance is stopping.
	 * @return {@code false} if the stop skipped it: the database is unreachable, or took too long
	 */
	private boolean run(Runnable statement) {
		ShutdownBudget budget = this.shutdown;
		if (budget == null) {
			statement.run();
			return true;
		}
		return budget.run(statement);
	}

	/**
	 * A write of one call's row.
	 * @param what what it does to the row, for the log
	 * @param fallback what to write instead if the database refuses it, or {@code null}
	 */
	private record Write(DurableCall call, String what, Runnable statement, @Nullable Runnable fallback) {
	}

	/**
	 * Rounds up to what the database keeps, so that the due time on the wheel is the one in the
	 * row and rounding never makes a call early.
	 */
	private static Instant wholeMicros(Instant instant) {
		Instant truncated = instant.truncatedTo(ChronoUnit.MICROS);
		return truncated.equals(instant) ? instant : truncated.plus(1, ChronoUnit.MICROS);
	}

	/**
	 * Returns the application's time as durable calls see it: the timers' clock (a test's virtual
	 * clock too) as an instant.
	 * @return the current time
	 */
	public Instant now() {
		return this.systemClock ? Instant.now()
				: this.base.plusNanos(this.pollTimer.ticker().nanoTime() - this.baseNanos);
	}

	@Override
	public void start() {
		if (this.stopped || this.running) {
			return;
		}
		if (this.settings.instanceNameConfigured()) {
			String name = StoredText.of(this.settings.instanceName(), DurableCallStore.NAME_LENGTH);
			this.store.instances(this.settings.lease())
				.stream()
				.filter((other) -> other.name().equals(name) && other.heartbeat() != null)
				.forEach((other) -> this.predecessors.put(other.id(), other.heartbeat()));
		}
		this.lease.begin(List.copyOf(new TreeMap<>(this.methods).keySet()));
		this.pollTimer.start();
		this.running = true;
		this.polling.incrementAndGet();
		this.pollExecutor.execute(this::poll);
	}

	private void poll() {
		boolean wantRefill = false;
		try {
			if (!this.running) {
				return;
			}
			retryDeferred();
			takeOverPredecessors();
			takeOverDeadOwners();
			long nowNanos = System.nanoTime();
			if (this.lastCleanUpNanos == Long.MIN_VALUE || nowNanos - this.lastCleanUpNanos >= CLEAN_UP_NANOS) {
				this.lastCleanUpNanos = nowNanos;
				cleanUp();
			}
			Instant until = now().plus(this.settings.horizon());
			List<String> claimable = claimableMethods();
			int batch = this.settings.batchSize();
			boolean more = true;
			while (more && this.running && this.backlog.get() < batch) {
				List<DurableCallStore.Row> rows = this.store.claim(this.instance, until, claimable, batch);
				for (DurableCallStore.Row row : rows) {
					this.claimed.increment();
					DurableMethod method = this.methods.get(row.methodId());
					WeakReference<DurableResult> future = this.futures.remove(row.id());
					hold(new DurableCall(method, row.id(), row.key(), row.arguments(), row.due(), row.attempts(),
							row.traceParent(), (future != null) ? future.get() : null));
				}
				more = rows.size() == batch;
			}
			// A batch of due calls waits for this instance's executors: what is left is the other
			// instances' to claim meanwhile, and this one's again once half of its backlog has started.
			wantRefill = more && this.running;
			this.problems.succeeded(Source.POLL);
		}
		catch (RuntimeException ex) {
			// A poll the stop interrupted (waiting for a connection) says nothing of the database.
			if (this.running) {
				failed(Source.POLL, ex);
			}
		}
		finally {
			armNextPoll();
			if (wantRefill) {
				this.refillWanted = true;
				if (this.backlog.get() <= this.settings.batchSize() / 2) {
					refill();
				}
			}
		}
	}

	/**
	 * Brings the next poll forward to now, once: a poll stopped claiming for the backlog, which is
	 * half gone. Only the poll that cancels the armed one runs, so polls stay one at a time.
	 */
	private void refill() {
		this.refillWanted = false;
		Timeout next = this.nextPoll;
		if (this.running && next != null && next.cancel()) {
			launchPoll();
		}
	}

	/** Busy from the moment a poll is due, so that a virtual clock waits for it to end. */
	private void launchPoll() {
		this.polling.incrementAndGet();
		try {
			this.pollExecutor.execute(this::poll);
		}
		catch (RuntimeException refused) {
			logger.warn("Durable calls' poll could not be started: " + refused);
			armNextPoll();
		}
	}

	private void armNextPoll() {
		if (!this.running) {
			this.polling.decrementAndGet();
			return;
		}
		try {
			this.nextPoll = this.pollTimer.newTimeout((timeout) -> launchPoll(), this.settings.pollInterval().toNanos(),
					TimeUnit.NANOSECONDS);
		}
		catch (RuntimeException stopping) {
			// The poll timer stopped: this instance is stopping.
		}
		finally {
			this.polling.decrementAndGet();
		}
	}

	/**
	 * The methods whose timer still takes calls: a timer stopped through the endpoint leaves its
	 * methods' rows in the database, for another instance or the next start.
	 */
	private List<String> claimableMethods() {
		List<String> claimable = new ArrayList<>();
		this.methods.forEach((id, method) -> {
			if (!(method.method().timer() instanceof HashedWheelTimer timer)
					|| timer.snapshot().state() != WheelSnapshot.State.SHUTDOWN) {
				claimable.add(id);
			}
		});
		return claimable;
	}

	/**
	 * Takes the calls of this instance's previous run, at the first polls: an instance whose name
	 * is configured ({@code wheel-timer.durable.instance-name}: a StatefulSet's pod, a systemd unit)
	 * restarted after a crash knows that an instance row of its own name is its predecessor, and
	 * need not wait for its lease. Only once that row's heartbeat is seen to have stopped: older
	 * than half the lease and unchanged since this instance started, and only once this instance
	 * has itself reached the database for two heartbeat intervals: a live replica that shares the
	 * name (a mistake, warned about) beats meanwhile, even when an outage had kept it from beating.
	 */
	private void takeOverPredecessors() {
		Duration twoBeats = this.settings.heartbeatInterval().multipliedBy(2).plusMillis(100);
		if (this.predecessors.isEmpty() || !this.lease.connectedFor(twoBeats)) {
			return;
		}
		Duration half = this.settings.lease().dividedBy(2);
		// The shortest lease allowed is two beats: then half of it would be a single beat.
		List<DurableCallStore.Instance> instances = this.store.instances((half.compareTo(twoBeats) >= 0) ? half : twoBeats);
		// A row gone meanwhile (the normal take-over removed it) leaves nothing to wait for.
		this.predecessors.keySet().retainAll(instances.stream().map(DurableCallStore.Instance::id).toList());
		for (DurableCallStore.Instance other : instances) {
			Instant seen = this.predecessors.get(other.id());
			if (seen == null) {
				continue;
			}
			if (!Objects.equals(seen, other.heartbeat())) {
				this.predecessors.remove(other.id());
				logger.warn("Another live instance is named '" + other.name() + "', as this one: its calls are not"
						+ " taken over at this start. Give each instance a name of its own"
						+ " (wheel-timer.durable.instance-name), such as its pod's name");
			}
			else if (!other.alive()) {
				this.predecessors.remove(other.id());
				int taken = this.store.releaseCallsOf(other.id());
				this.takenOver.add(taken);
				logger.info("Took over " + taken + " durable calls of the previous run of instance '" + other.name()
						+ "', whose heartbeat stopped at " + other.heartbeat());
			}
		}
	}

	/**
	 * Takes over dead instances' calls, at every poll: a dead instance's calls wait at most its
	 * lease and one poll.
	 */
	private void takeOverDeadOwners() {
		if (!this.lease.connectedForALease()) {
			return;
		}
		int taken = this.store.releaseDeadOwners();
		if (taken > 0) {
			this.takenOver.add(taken);
			logger.info("Took over " + taken + " durable calls of instances whose lease ran out");
		}
	}

	/** Removes what is past its retention: once a minute is plenty, and keeps an idle instance quiet. */
	private void cleanUp() {
		this.store.deleteFailedBefore(this.settings.failedRetention());
		this.store.deleteInstancesSilentFor(this.settings.lease().multipliedBy(10));
		this.futures.values().removeIf((reference) -> reference.get() == null);
		// Not a failure (an instance that knows them may be on its way), but nothing runs them until then.
		Instant now = now();
		for (DurableCallStore.StateCount waiting : pendingOfMethodsNoLiveInstanceKnows(
				this.store.instances(this.settings.lease()))) {
			Instant due = waiting.earliestDue();
			if (due != null && due.isBefore(now)) {
				logger.warn(waiting.count() + " durable calls of method id '" + waiting.name() + "' are waiting, the"
						+ " oldest since " + due + ": no live instance knows that method (renamed without"
						+ " @DelayedExecution(id = ...), or removed?); they run once an instance that knows it starts");
			}
		}
	}

	/** Tries the writes that waited for the database again, in order, until one must still wait. */
	private void retryDeferred() {
		Write write;
		int left = this.deferred.size();
		while (left-- > 0 && (write = this.deferred.poll()) != null) {
			if (!attempt(write)) {
				this.deferred.add(write);
				return;
			}
		}
	}

	/**
	 * Records a failed statement. A call's statement that failed for itself (a deadlock, its row
	 * refused) is that row's matter, logged where it is handled, not a problem of the database's:
	 * polls and heartbeats, which come again, say when they pass again; a call's statement might
	 * never. One that says the database cannot be reached also tells the lease, so that no
	 * take-over follows the outage before the others could beat again.
	 */
	private void failed(Source source, RuntimeException ex) {
		DatabaseFailure kind = DatabaseFailure.of(ex);
		if (source != Source.CALLS || kind == DatabaseFailure.UNREACHABLE || kind == DatabaseFailure.SCHEMA) {
			this.problems.failed(source, kind, ex);
		}
		if (kind == DatabaseFailure.UNREACHABLE) {
			this.lease.disconnected();
		}
	}

	/**
	 * Hands the calls this instance claimed and has not started back to the database, for the
	 * other instances (or this application's next start) to run. Those due within a poll interval
	 * run here first, on their tick, and this waits for them to start: handed back, they would
	 * wait for another instance's next poll. Under a virtual clock everything goes back at once.
	 * <p>
	 * Its statements, and those of {@link #destroy()}, share {@code wheel-timer.durable.shutdown-timeout}:
	 * once the database is known unreachable, or that time is spent, the rest is left to the lease,
	 * as after a crash, and one WARN line says so.
	 */
	@Override
	public void stop() {
		if (!this.running) {
			return;
		}
		this.running = false;
		this.stopped = true;
		this.pollTimer.stop();
		ShutdownBudget budget = shutdownBudget();
		// A database known unreachable would refuse their gates: nothing is kept to run here.
		Instant keepUntil = (this.systemClock && !this.problems.unreachable()) ? now().plus(this.settings.pollInterval())
				: null;
		Set<UUID> kept = ConcurrentHashMap.newKeySet();
		this.draining = kept;
		Map<String, Integer> byMethod = new TreeMap<>();
		for (Timeout timeout : new ArrayList<>(this.held.values())) {
			if (!(timeout.task() instanceof DurableCall call)) {
				continue;
			}
			if (keepUntil != null && !call.due().isAfter(keepUntil)) {
				// Added before the check: release() removes it from held, then from kept.
				kept.add(call.id());
				if (!this.held.containsKey(call.id())) {
					kept.remove(call.id());
				}
			}
			else if (timeout.cancel()) {
				release(call);
				byMethod.merge(call.durableMethod().method().description(), 1, Integer::sum);
			}
		}
		int released = 0;
		boolean interrupted = false;
		try {
			// Finishes and failures that waited for the database first: their calls must not run again.
			retryDeferred();
			released = releaseAll(budget, keepUntil, Set.of());
			int ranHere = kept.size();
			if (keepUntil != null) {
				// Their gates are statements of the budget: a database that does not answer makes them give
				// up, and the wait ends with them.
				interrupted = !awaitDrained(kept, keepUntil.plus(DRAIN_SLACK));
				// What did not fire in time goes back too, and so do claims that were not held (made
				// while stopping); calls that fired and wait for an executor thread still run here.
				for (UUID id : kept) {
					Timeout timeout = this.held.get(id);
					if (timeout != null && timeout.cancel() && timeout.task() instanceof DurableCall call) {
						release(call);
						byMethod.merge(call.durableMethod().method().description(), 1, Integer::sum);
					}
				}
				ranHere -= kept.size();
				released += releaseAll(budget, null, Set.copyOf(kept));
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

	/** @return how many claimed calls went back, within the stop's budget */
	private int releaseAll(ShutdownBudget budget, @Nullable Instant after, Set<UUID> except) {
		int[] released = new int[1];
		budget.run(() -> released[0] = this.store.releaseAll(this.instance, after, except));
		this.handedBack.add(released[0]);
		return released[0];
	}

	private synchronized ShutdownBudget shutdownBudget() {
		ShutdownBudget budget = this.shutdown;
		if (budget == null) {
			budget = new ShutdownBudget(this.settings.shutdownTimeout(), this.problems);
			this.shutdown = budget;
		}
		return budget;
	}

	/**
	 * Waits until the kept calls have started (or gone back), or until {@code deadline}.
	 * @return {@code false} if the thread was interrupted: the stop goes on without waiting
	 */
	private boolean awaitDrained(Set<UUID> kept, Instant deadline) {
		synchronized (kept) {
			while (!kept.isEmpty()) {
				long waitMillis = Duration.between(Instant.now(), deadline).toMillis();
				if (waitMillis <= 0) {
					return true;
				}
				try {
					kept.wait(waitMillis);
				}
				catch (InterruptedException ex) {
					return false;
				}
			}
		}
		return true;
	}

	/**
	 * After the timers' lifecycle has waited for running calls: stops the heartbeat and leaves the
	 * instance table. A call still running now is taken over by another instance (at least once).
	 */
	@Override
	public void destroy() {
		this.stopped = true;
		this.running = false;
		this.pollTimer.stop();
		this.pollExecutor.shutdownNow();
		this.lease.end();
		ShutdownBudget budget = shutdownBudget();
		try {
			retryDeferred();
			run(() -> this.store.unregister(this.instance));
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
	 * Says whether a poll is in progress: what a virtual clock waits for, besides the calls
	 * running on executors.
	 * @return {@code null} if idle, else what is in progress
	 */
	public @Nullable String busy() {
		return (this.polling.get() > 0) ? "a poll of durable calls is in progress" : null;
	}

	/**
	 * Records the lateness of each durable call that starts, in nanoseconds.
	 * @param recorder the recorder, such as a Micrometer timer's
	 */
	public void setLatenessRecorder(LongConsumer recorder) {
		this.latenessRecorder = recorder;
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
	 * Returns this instance's id in the instance table, new at each start.
	 * @return the id
	 */
	public UUID instance() {
		return this.instance;
	}

	/**
	 * Returns the durable method ids this instance knows.
	 * @return the ids, sorted
	 */
	public Set<String> methodIds() {
		return new TreeMap<>(this.methods).keySet();
	}

	/**
	 * Returns how many calls this instance holds on its wheels.
	 * @return the held calls
	 */
	public int held() {
		return this.held.size();
	}

	/**
	 * Says what is wrong with the database, as the last poll, heartbeat or call found it: it cannot
	 * be reached, or its tables are missing.
	 * @return the problem, or {@code null} if the database answers as it should
	 */
	public @Nullable String problem() {
		return this.problems.describe();
	}

	/**
	 * Returns this instance's counts since it started.
	 * @return the counts
	 */
	public Counts counts() {
		return new Counts(this.scheduled.sum(), this.claimed.sum(), this.started.sum(), this.ran.sum(),
				this.failed.sum(), this.fenced.sum(), this.takenOver.sum(), this.handedBack.sum(), this.cancelled.sum(),
				this.suspectedDuplicates.sum());
	}

	/**
	 * Reads the database's view for operators: calls by state, the instances, failed calls and
	 * calls of methods this instance does not know.
	 * @param failedLimit how many failed calls to list, newest first
	 * @return the view
	 * @throws DataAccessException if the database cannot be reached
	 */
	public Report report(int failedLimit) {
		List<DurableCallStore.Instance> instances = this.store.instances(this.settings.lease());
		return new Report(this.store.countByState(), instances, this.store.failed(null, failedLimit),
				pendingOfMethodsNoLiveInstanceKnows(instances));
	}

	/**
	 * Reads the newest failed calls, with their keys and errors.
	 * @param methodId only this method id's, or {@code null} for all
	 * @param limit how many at most
	 * @return the calls, newest first
	 * @throws DataAccessException if the database cannot be reached
	 */
	public List<DurableCallStore.FailedCall> failedCalls(@Nullable String methodId, int limit) {
		return this.store.failed(methodId, limit);
	}

	/**
	 * Counts failed calls.
	 * @param methodId only this method id's, or {@code null} for all
	 * @return how many failed calls the database keeps
	 * @throws DataAccessException if the database cannot be reached
	 */
	public long countFailed(@Nullable String methodId) {
		return this.store.countFailed(methodId);
	}

	private List<DurableCallStore.StateCount> pendingOfMethodsNoLiveInstanceKnows(
			List<DurableCallStore.Instance> instances) {
		Set<String> known = new HashSet<>(this.methods.keySet());
		instances.stream().filter(DurableCallStore.Instance::alive).forEach((other) -> known.addAll(other.methods()));
		return this.store.pendingOfUnknownMethods(known);
	}

	/**
	 * Puts failed calls back to pending, due now, for any instance to run again (an operator
	 * fixed the cause). Joins the caller's transaction on the database, if there is one.
	 * A call that had a key gets it back, unless a pending call holds it now: then it stays failed.
	 * (Should a caller take such a key at the very moment it is given back, on PostgreSQL the
	 * refused update aborts the transaction this joined.)
	 * @param methodId only the failed calls of this method id, or {@code null} for all
	 * @return how many calls were re-queued, and those left failed for their key
	 * @throws DataAccessException if the database cannot be reached
	 */
	public DurableCallStore.Requeued requeueFailed(@Nullable String methodId) {
		DurableCallStore.Requeued requeued = this.store.requeueFailed(methodId, wholeMicros(now()));
		if (requeued.requeued() > 0) {
			logger.info(requeued.requeued() + ((requeued.requeued() == 1) ? " failed durable call" : " failed durable calls")
					+ ((methodId != null) ? " of " + methodId : "") + " re-queued, to run again now");
		}
		if (!requeued.keyHeld().isEmpty()) {
			logger.info(requeued.keyHeld().size() + " failed durable calls left failed: a pending call holds their key");
		}
		return requeued;
	}

	/**
	 * Counts of this instance's durable calls since it started.
	 *
	 * @param scheduled calls written by this instance's callers
	 * @param claimed calls a poll claimed
	 * @param started calls that passed the start gate
	 * @param ran calls that ran and whose row is gone
	 * @param failed calls that threw or could not be read; their rows are kept
	 * @param fenced held calls the gate stopped: cancelled, replaced or taken over elsewhere
	 * @param takenOver calls of dead instances this instance released for everyone
	 * @param handedBack held calls handed back unstarted (stop, refusal)
	 * @param cancelled calls this instance's callers cancelled (by key, or through the future),
	 * wherever they were held
	 * @param suspectedDuplicates calls that started here after starting before on an instance whose
	 * lease ran out: that run may have done its work too (at least once)
	 */
	public record Counts(long scheduled, long claimed, long started, long ran, long failed, long fenced,
			long takenOver, long handedBack, long cancelled, long suspectedDuplicates) {
	}

	/**
	 * The database's view of the durable calls.
	 *
	 * @param states the calls per state
	 * @param instances the instances sharing the database
	 * @param failed the newest failed calls
	 * @param unknownMethods pending calls per method id that no live instance knows: they wait for
	 * one that does
	 */
	public record Report(List<DurableCallStore.StateCount> states, List<DurableCallStore.Instance> instances,
			List<DurableCallStore.FailedCall> failed, List<DurableCallStore.StateCount> unknownMethods) {
	}

}
