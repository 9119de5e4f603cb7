package io.github.wheeltimer;

import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A {@link Timer} for very many timeouts that need only approximate timing: a hashed timing wheel
 * (Varghese and Lauck, "Hashed and Hierarchical Timing Wheels", 1987), the design Netty's and
 * Dubbo's timers made familiar, driven by one worker thread.
 *
 * <h2>How it keeps time</h2>
 * Time is cut into <em>ticks</em> of {@code tickDuration}, and the wheel is a ring of
 * {@code ticksPerWheel} buckets. A timeout whose deadline falls in tick {@code k} goes into bucket
 * {@code k mod ticksPerWheel}; when tick {@code k} is over, the worker fires the timeouts of that
 * bucket whose deadline has passed and leaves the others for a later revolution. Scheduling and
 * cancelling cost O(1) whatever the number of pending timeouts.
 * <ul>
 * <li><b>Precision.</b> A timeout never fires before its deadline, and normally fires at the end of
 * the tick that holds it: up to one {@code tickDuration} late, plus however long the thread takes
 * to wake. A deadline exactly on a tick boundary fires at that boundary, not a tick later. A zero
 * or negative delay fires at the end of the current tick.
 * Timeouts that fall due in the same tick are not ordered among themselves. Pick the coarsest
 * tick your use tolerates: 100 ms (the default) for request timeouts and order expiry, 1-10 ms
 * where lateness matters more.</li>
 * <li><b>Wheel size.</b> {@code ticksPerWheel} (default 512, rounded up to a power of two) is how
 * many ticks one revolution spans: 512 x 100 ms = 51.2 s. A timeout further away than one
 * revolution stays in its bucket for several revolutions. The worker skips a bucket whose earliest
 * deadline lies in a later revolution, but walks the whole bucket when something in it is due, so
 * far timeouts sharing a bucket with near ones are looked at again each revolution: a wheel that
 * spans your usual delays keeps the worker's work proportional to what fires. Each bucket costs
 * about 40 bytes.</li>
 * <li><b>Idle cost.</b> Unlike Netty's timer, the worker does not wake on every tick: with nothing
 * pending it parks until a timeout arrives, and otherwise it sleeps until the next tick that has a
 * timeout in it. New and cancelled timeouts reach the worker within about one tick.</li>
 * <li><b>Memory.</b> One pending timeout costs one object of 40 bytes (with compressed oops), plus
 * whatever its task holds. A cancelled timeout is released within about one tick.</li>
 * </ul>
 *
 * <h2>Where tasks run</h2>
 * By default, on the worker thread itself, one after another: a task that blocks or runs long
 * makes every other timeout late. Give the timer a {@link Builder#taskExecutor(Executor) task
 * executor} for such tasks; the worker then only hands each due timeout to it. A task that throws
 * is logged and counted as {@code failed}; so is a timeout the executor refuses. Neither stops the
 * timer.
 *
 * <h2>Lifecycle</h2>
 * The worker thread starts with the first {@link #newTimeout} (or {@link #start()}). {@link #stop()}
 * refuses new timeouts at once, cancels every timeout that has not fired and returns them, and waits
 * for the worker to end; {@link #stopGracefully(Duration)} first keeps firing timeouts as they fall
 * due, for up to the given time, ending sooner once nothing left falls due within it. A stopped
 * timer cannot be restarted. Each timer owns a thread: share one timer across your application
 * rather than creating many (a warning is logged when more than
 * {@value #INSTANCE_COUNT_WARNING_THRESHOLD} run at once).
 *
 * <h2>Watching it</h2>
 * {@link #snapshot()} returns everything the timer reports (state, counters, tick lag, bucket
 * occupancy, worker thread) in one immutable {@link WheelSnapshot}, cheaply and from any thread;
 * {@link #counters()} and {@link #tickLag()} read a part of it for less. {@link #nextTimeouts(int, Duration)}
 * asks the worker which pending timeouts fall due first.
 *
 * <h2>Testing with it</h2>
 * Pass a {@link Ticker} to the builder to drive the wheel with a clock of your own instead of
 * {@link System#nanoTime()}.
 *
 * <pre>{@code
 * HashedWheelTimer timer = HashedWheelTimer.builder()
 *         .tickDuration(Duration.ofMillis(10))
 *         .ticksPerWheel(1024)
 *         .taskExecutor(executor)
 *         .build();
 * Timeout timeout = timer.newTimeout(t -> connection.close(), Duration.ofSeconds(30));
 * // ... the response arrived in time:
 * timeout.cancel();
 * }</pre>
 */
public final class HashedWheelTimer implements Timer, AutoCloseable {

	/** The tick duration of a timer built without one: 100 ms. */
	public static final Duration DEFAULT_TICK_DURATION = Duration.ofMillis(100);

	/** The shortest tick duration accepted: 1 ms. */
	public static final Duration MIN_TICK_DURATION = Duration.ofMillis(1);

	/** The number of buckets of a timer built without one: 512. */
	public static final int DEFAULT_TICKS_PER_WHEEL = 512;

	/** The largest number of buckets accepted: 2^30. */
	public static final int MAX_TICKS_PER_WHEEL = 1 << 30;

	static final int INSTANCE_COUNT_WARNING_THRESHOLD = 64;

	/*
	 * Threads and state
	 * -----------------
	 * Any thread: newTimeout, cancel, snapshot, nextTimeouts, stop. They touch only
	 *   - state, stopDeadline: CAS-ed volatiles (the lifecycle),
	 *   - incoming (new timeouts) and cancellations (cancelled ones): lock-free MPSC queues,
	 *   - queries: a Treiber stack of questions only the worker can answer, because answering
	 *     walks the buckets' links (the push's CAS publishes the query's fields),
	 *   - the LongAdder counters, and workerArmed (see below).
	 * The worker thread alone owns the wheel (buckets and their links) and the fields of Worker
	 * (if starting the worker fails, the starting thread inherits the queues, as no worker ran).
	 * It publishes tick, fired, unprocessed, lateness, awakeSince and the maximum lag with opaque
	 * stores; readers use opaque loads: each is a single-writer value, so readers need freshness,
	 * not ordering. The current lag is derived by the reader from them and the wheel's opaque
	 * bounds, reading the clock first so that a reader's own delay never counts as lag.
	 *
	 * Counters: scheduled is counted by the scheduling thread before it enqueues, cancelled is the
	 * cancellation queue's own index, fired and unprocessed by the worker, expired and failed by
	 * whichever thread ran the task (expired in a worker-only field when that is the worker).
	 * Reading the outcomes before scheduled keeps derived numbers (pending, running) from going
	 * negative.
	 *
	 * Waking the worker (no idle wake-ups)
	 * -------------------------------------
	 * The worker sleeps until the next tick that has a due timeout, or for ever when the wheel is
	 * empty. Before a sleep that ends later than the next tick boundary it sets workerArmed = 1
	 * and then checks both queues and the query stack once more; a thread that enqueues checks
	 * workerArmed after its enqueue, and whoever flips it 1 -> 0 unparks the worker. Both sides write then read
	 * volatiles (Dekker), so either the worker sees the new element or the enqueuer sees the flag:
	 * nothing waits longer than one tick to reach the wheel. A sleep that ends at the next
	 * boundary is not armed: its elements are picked up at that boundary anyway. A worker woken
	 * twice within one tick stops arming until the next tick, so a stream of schedules or
	 * cancels costs at most a few wake-ups per tick, never one per call.
	 *
	 * Stopping races scheduling the same way: stop writes state, then the worker drains the
	 * incoming queue; a scheduler enqueues, then re-reads state, and if it sees SHUTDOWN it races
	 * the worker for its own timeout with a CAS on the timeout's state. Either the worker returns
	 * it in the stop report, or the scheduler takes it back and throws. No timeout is left behind.
	 */

	private static final int INIT = 0;

	private static final int STARTED = 1;

	private static final int SHUTDOWN = 2;

	private static final long NOT_STOPPING = Long.MIN_VALUE;

	/** {@code awakeSince} while the worker is parked, has not started, or has ended. */
	private static final long NOT_AWAKE = Long.MIN_VALUE;

	/**
	 * Most queue elements the worker takes in one go before it looks at the clock again: a burst
	 * of new timeouts must not hold up the ones falling due meanwhile. 4096 take well under a
	 * millisecond.
	 */
	private static final int TRANSFER_BATCH = 1 << 12;

	/**
	 * Most fires that share one clock reading for their lateness. A clock read costs about as much
	 * as handing a timeout to run, so reading it after every task would double the cost of a full
	 * bucket.
	 */
	private static final int LATENESS_BATCH = 32;

	private static final System.Logger logger = System.getLogger(HashedWheelTimer.class.getName());

	private static final AtomicInteger runningInstances = new AtomicInteger();

	private static final AtomicBoolean instanceWarningLogged = new AtomicBoolean();

	private static final AtomicInteger threadSequence = new AtomicInteger();

	private static final ThreadLocal<HashedWheelTimer> taskRunningFor = new ThreadLocal<>();

	private static final VarHandle STATE;

	private static final VarHandle STOP_DEADLINE;

	private static final VarHandle WORKER_ARMED;

	private static final VarHandle TICK;

	private static final VarHandle FIRED;

	private static final VarHandle UNPROCESSED;

	private static final VarHandle MAX_TICK_LAG;

	private static final VarHandle LATENESS;

	private static final VarHandle EXPIRED_ON_WORKER;

	private static final VarHandle AWAKE_SINCE;

	private static final VarHandle QUERIES;

	static {
		try {
			MethodHandles.Lookup lookup = MethodHandles.lookup();
			STATE = lookup.findVarHandle(HashedWheelTimer.class, "state", int.class);
			STOP_DEADLINE = lookup.findVarHandle(HashedWheelTimer.class, "stopDeadline", long.class);
			WORKER_ARMED = lookup.findVarHandle(HashedWheelTimer.class, "workerArmed", int.class);
			TICK = lookup.findVarHandle(HashedWheelTimer.class, "tick", long.class);
			FIRED = lookup.findVarHandle(HashedWheelTimer.class, "fired", long.class);
			UNPROCESSED = lookup.findVarHandle(HashedWheelTimer.class, "unprocessed", long.class);
			MAX_TICK_LAG = lookup.findVarHandle(HashedWheelTimer.class, "maxTickLag", long.class);
			LATENESS = lookup.findVarHandle(HashedWheelTimer.class, "lateness", long.class);
			EXPIRED_ON_WORKER = lookup.findVarHandle(HashedWheelTimer.class, "expiredOnWorker", long.class);
			AWAKE_SINCE = lookup.findVarHandle(HashedWheelTimer.class, "awakeSince", long.class);
			QUERIES = lookup.findVarHandle(HashedWheelTimer.class, "queries", SoonestQuery.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	// Configuration, immutable.

	private final long tickNanos;

	private final long maxPendingTimeouts;

	private final ThreadFactory threadFactory;

	/** {@code null}: tasks run on the worker thread. */
	private final Executor taskExecutor;

	private final Ticker ticker;

	/** The ticker's reading when the timer was created: deadlines and ticks count from here. */
	private final long origin;

	// Lifecycle.

	private volatile int state = INIT;

	/** Elapsed nanos at which a stopping worker gives up draining; NOT_STOPPING until stop. */
	private volatile long stopDeadline = NOT_STOPPING;

	private volatile Thread workerThread;

	private volatile String workerFailure;

	private final CountDownLatch terminated = new CountDownLatch(1);

	private final AtomicReference<Set<Timeout>> unprocessedTimeouts = new AtomicReference<>(Set.of());

	// Hand-off to the worker.

	private final IntrusiveMpscQueue incoming = new IntrusiveMpscQueue();

	private final ChunkedMpscQueue<HashedWheelTimeout> cancellations = new ChunkedMpscQueue<>();

	private volatile int workerArmed;

	/** Questions for the worker about the wheel's content: a Treiber stack, emptied by the worker. */
	private volatile SoonestQuery queries;

	// Counters.

	private final LongAdder scheduled = new LongAdder();

	private final LongAdder rejected = new LongAdder();

	private final LongAdder expired = new LongAdder();

	private final LongAdder failed = new LongAdder();

	/** Pending timeouts, kept only when there is a limit to enforce; {@code null} otherwise. */
	private final AtomicLong limitedPending;

	// Written by the worker only (opaque), read by anyone.

	private long tick;

	private long fired;

	private long unprocessed;

	private long maxTickLag;

	/** In microseconds, saturating. */
	private long lateness;

	/** Tasks that ran to completion on the worker thread itself: counted without a CAS. */
	private long expiredOnWorker;

	/** When the worker began its current pass of work; NOT_AWAKE while it parks. */
	private long awakeSince = NOT_AWAKE;

	private final Wheel wheel;

	/**
	 * Creates a timer with a tick of {@link #DEFAULT_TICK_DURATION 100 ms} and
	 * {@value #DEFAULT_TICKS_PER_WHEEL} buckets, running tasks on its worker thread.
	 */
	public HashedWheelTimer() {
		this(builder());
	}

	/**
	 * Creates a timer with the given tick and {@value #DEFAULT_TICKS_PER_WHEEL} buckets.
	 * @param tickDuration the length of a tick, at least 1 ms
	 * @param unit the unit of {@code tickDuration}
	 */
	public HashedWheelTimer(long tickDuration, TimeUnit unit) {
		this(tickDuration, unit, DEFAULT_TICKS_PER_WHEEL);
	}

	/**
	 * Creates a timer with the given tick and wheel size.
	 * @param tickDuration the length of a tick, at least 1 ms
	 * @param unit the unit of {@code tickDuration}
	 * @param ticksPerWheel the number of buckets, from 1 to 2^30; rounded up to a power of two
	 */
	public HashedWheelTimer(long tickDuration, TimeUnit unit, int ticksPerWheel) {
		this(builder().tickDuration(Duration.ofNanos(
				Objects.requireNonNull(unit, "unit must not be null").toNanos(tickDuration)))
			.ticksPerWheel(ticksPerWheel));
	}

	private HashedWheelTimer(Builder builder) {
		this.tickNanos = validTickNanos(builder.tickDuration);
		int wheelSize = validTicksPerWheel(builder.ticksPerWheel);
		if (this.tickNanos > Long.MAX_VALUE / wheelSize) {
			throw new InvalidTimerSettingException("ticksPerWheel", builder.ticksPerWheel, "(rounded up to " + wheelSize
					+ ") times tickDuration (" + builder.tickDuration
					+ ") must not exceed Long.MAX_VALUE nanoseconds (about 292 years)");
		}
		this.maxPendingTimeouts = Math.max(0, builder.maxPendingTimeouts);
		this.limitedPending = (this.maxPendingTimeouts > 0) ? new AtomicLong() : null;
		this.threadFactory = (builder.threadFactory != null) ? builder.threadFactory
				: HashedWheelTimer::newDefaultWorkerThread;
		this.taskExecutor = builder.taskExecutor;
		this.ticker = builder.ticker;
		this.wheel = new Wheel(wheelSize, this.tickNanos);
		this.origin = this.ticker.nanoTime();
	}

	/**
	 * Starts building a timer.
	 * @return a builder with the defaults
	 */
	public static Builder builder() {
		return new Builder();
	}

	private static long validTickNanos(Duration tickDuration) {
		Objects.requireNonNull(tickDuration, "tickDuration must not be null");
		if (tickDuration.compareTo(MIN_TICK_DURATION) < 0) {
			throw new InvalidTimerSettingException("tickDuration", tickDuration,
					"must be at least " + MIN_TICK_DURATION.toMillis() + "ms");
		}
		try {
			return tickDuration.toNanos();
		}
		catch (ArithmeticException ex) {
			throw new InvalidTimerSettingException("tickDuration", tickDuration, "must fit in a long of nanoseconds");
		}
	}

	private static int validTicksPerWheel(int ticksPerWheel) {
		if (ticksPerWheel <= 0 || ticksPerWheel > MAX_TICKS_PER_WHEEL) {
			throw new InvalidTimerSettingException("ticksPerWheel", ticksPerWheel,
					"must be from 1 to " + MAX_TICKS_PER_WHEEL + " (2^30)");
		}
		return (ticksPerWheel == 1) ? 1 : Integer.highestOneBit(ticksPerWheel - 1) << 1;
	}

	private static Thread newDefaultWorkerThread(Runnable worker) {
		Thread thread = new Thread(worker, "wheel-timer-" + threadSequence.incrementAndGet());
		thread.setDaemon(true);
		return thread;
	}

	/**
	 * Starts the worker thread, if it is not running yet. Optional: the first
	 * {@link #newTimeout} starts it.
	 * @throws IllegalStateException if the timer has been stopped
	 */
	public void start() {
		while (true) {
			switch (this.state) {
				case STARTED:
					return;
				case INIT:
					if (STATE.compareAndSet(this, INIT, STARTED)) {
						startWorker();
						return;
					}
					break;
				default:
					throw new IllegalStateException("Cannot start the timer: it has been stopped, and a stopped timer"
							+ " cannot be restarted");
			}
		}
	}

	private void startWorker() {
		try {
			Thread thread = this.threadFactory.newThread(new Worker());
			if (thread == null) {
				throw new IllegalStateException("threadFactory " + this.threadFactory + " returned no thread");
			}
			this.workerThread = thread;
			thread.start();
		}
		catch (RuntimeException | Error ex) {
			// No worker will ever own the queues, so this thread does its final duty: producers
			// that saw STARTED before this line have enqueued, and are reported as unprocessed;
			// later ones see SHUTDOWN after enqueueing and take their timeouts back.
			this.state = SHUTDOWN;
			cancelAndReportUnprocessed();
			this.terminated.countDown();
			answerQueriesAfterTermination();
			throw ex;
		}
		this.ticker.attach(this.workerThread);
		if (runningInstances.incrementAndGet() > INSTANCE_COUNT_WARNING_THRESHOLD
				&& instanceWarningLogged.compareAndSet(false, true)) {
			logger.log(Level.WARNING, "More than " + INSTANCE_COUNT_WARNING_THRESHOLD
					+ " HashedWheelTimers are running, each with its own thread: share one timer instead");
		}
	}

	@Override
	public Timeout newTimeout(TimerTask task, long delay, TimeUnit unit) {
		Objects.requireNonNull(task, "task must not be null");
		Objects.requireNonNull(unit, "unit must not be null");
		int state = this.state;
		if (state != STARTED) {
			startForTimeout(state);
		}
		if (this.limitedPending != null) {
			reservePending();
		}
		long now = elapsedNanos();
		long delayNanos = unit.toNanos(delay);
		// A zero or negative delay is due just after now, not at now: on a tick boundary "now" is
		// the end of a tick already processed, and a task that re-arms itself with no delay would
		// then fire again in the same pass, for ever, on a clock that only moves between passes.
		long deadline = (delayNanos <= 0) ? now + 1
				: (delayNanos > Long.MAX_VALUE - now) ? Long.MAX_VALUE : now + delayNanos;
		HashedWheelTimeout timeout = new HashedWheelTimeout(this, task, deadline);
		this.scheduled.increment();
		this.incoming.offer(timeout);
		if (this.state != STARTED) {
			takeBackIfStopped(timeout);
		}
		else {
			signalWorker();
		}
		return timeout;
	}

	private void startForTimeout(int state) {
		try {
			if (state == SHUTDOWN) {
				throw stopped();
			}
			start();
		}
		catch (RuntimeException | Error ex) {
			// Stopped, or the worker thread could not be started: either way this call is refused.
			this.rejected.increment();
			throw ex;
		}
	}

	private void reservePending() {
		long pending = this.limitedPending.incrementAndGet();
		if (pending > this.maxPendingTimeouts) {
			this.limitedPending.decrementAndGet();
			this.rejected.increment();
			throw new RejectedExecutionException("Cannot schedule a timeout: " + this.maxPendingTimeouts
					+ " timeouts are pending, which is the limit (maxPendingTimeouts = " + this.maxPendingTimeouts + ")");
		}
	}

	/**
	 * Takes back a timeout enqueued after a stop began, unless the worker claimed it first (then it
	 * fired, or it is in the stop report). Package-private: tests play the race's losing side.
	 */
	void takeBackIfStopped(HashedWheelTimeout timeout) {
		if (timeout.cancelWithoutNotice()) {
			this.scheduled.decrement();
			this.rejected.increment();
			releasePending(1);
			// A draining worker may have linked it already: tell it nothing is pending any more.
			signalWorker();
			throw stopped();
		}
	}

	private IllegalStateException stopped() {
		return new IllegalStateException("Cannot schedule a timeout: the timer has been stopped");
	}

	/** Called by {@link HashedWheelTimeout#cancel()} after it won the cancellation. */
	void cancelled(HashedWheelTimeout timeout) {
		this.cancellations.offer(timeout);
		releasePending(1);
		signalWorker();
	}

	private void signalWorker() {
		if (this.workerArmed != 0 && WORKER_ARMED.compareAndSet(this, 1, 0)) {
			this.ticker.unpark(this.workerThread);
		}
	}

	private void releasePending(long count) {
		if (this.limitedPending != null) {
			this.limitedPending.addAndGet(-count);
		}
	}

	/**
	 * Stops the timer at once; see {@link Timer#stop()}. Waits for the worker thread to end; if the
	 * calling thread is interrupted meanwhile, it keeps waiting and its interrupt flag is set again
	 * on return.
	 * @return the timeouts that never ran, each now cancelled; empty if the timer was already stopped
	 * @throws IllegalStateException if called from a task of this timer
	 */
	@Override
	public Set<Timeout> stop() {
		return stopGracefully(Duration.ZERO);
	}

	/**
	 * Stops the timer after draining: refuses new timeouts at once, keeps firing the pending ones as
	 * they fall due until {@code drainTimeout} has passed or none is left that falls due before
	 * then, and cancels and returns the rest. Waits for the worker thread to end (not for tasks
	 * already handed to a task executor); if the calling thread is interrupted meanwhile, it keeps
	 * waiting and its interrupt flag is set again on return. Only the first call drains; later calls
	 * wait for it and return an empty set.
	 * @param drainTimeout how long to keep firing due timeouts; zero is {@link #stop()}
	 * @return the timeouts that never ran, each now cancelled
	 * @throws IllegalStateException if called from a task of this timer
	 * @throws IllegalArgumentException if {@code drainTimeout} is negative
	 */
	public Set<Timeout> stopGracefully(Duration drainTimeout) {
		Objects.requireNonNull(drainTimeout, "drainTimeout must not be null");
		if (drainTimeout.isNegative()) {
			throw new IllegalArgumentException("drainTimeout must not be negative, was " + drainTimeout);
		}
		if (Thread.currentThread() == this.workerThread || taskRunningFor.get() == this) {
			throw new IllegalStateException(
					"A task of this timer cannot stop it: the timer waits for its tasks' thread to finish");
		}
		long drainNanos = saturatedNanos(drainTimeout);
		long now = elapsedNanos();
		long deadline = (drainNanos > Long.MAX_VALUE - now) ? Long.MAX_VALUE : now + drainNanos;
		boolean stopper = STOP_DEADLINE.compareAndSet(this, NOT_STOPPING, deadline);
		if (stopper) {
			int previous = (int) STATE.getAndSet(this, SHUTDOWN);
			if (previous == INIT) {
				this.terminated.countDown();
				answerQueriesAfterTermination();
			}
			else {
				this.ticker.unpark(this.workerThread);
			}
		}
		awaitTermination();
		// The report belongs to the call that stopped the timer, however the waits interleave.
		return stopper ? this.unprocessedTimeouts.getAndSet(Set.of()) : Set.of();
	}

	/** Waits for the worker to end, without giving up on interrupts (restoring the flag after). */
	private void awaitTermination() {
		boolean interrupted = false;
		while (true) {
			try {
				// The latch also covers a worker that never started; the join, its last instructions.
				this.terminated.await();
				Thread thread = this.workerThread;
				if (thread != null) {
					thread.join();
				}
				break;
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Stops the timer like {@link #stop()}, logging a warning if timeouts were left unprocessed.
	 */
	@Override
	public void close() {
		Set<Timeout> unprocessed = stop();
		if (!unprocessed.isEmpty()) {
			logger.log(Level.WARNING, () -> "Timer closed with " + unprocessed.size()
					+ " timeouts that never ran; they were cancelled");
		}
	}

	/**
	 * Returns the source of time this timer was built with: {@link Ticker#system()} unless the
	 * builder was given another.
	 * @return the ticker
	 */
	public Ticker ticker() {
		return this.ticker;
	}

	/**
	 * Returns the number of timeouts accepted that have neither fired nor been cancelled. Exact
	 * whenever no call is in progress; cheap enough to call often.
	 * @return the pending timeouts
	 */
	public long pendingTimeouts() {
		long fired = (long) FIRED.getOpaque(this);
		long unprocessed = (long) UNPROCESSED.getOpaque(this);
		long cancelled = this.cancellations.offeredCount();
		return pending(this.scheduled.sum(), fired, unprocessed, cancelled);
	}

	/** Outcomes must be read before {@code scheduled}, so that pending cannot come out negative. */
	private static long pending(long scheduled, long fired, long unprocessed, long cancelled) {
		return Math.max(0, scheduled - fired - unprocessed - cancelled);
	}

	/**
	 * Reads everything the timer reports at this moment; see {@link WheelSnapshot}. Never blocks the
	 * worker; costs one pass over the occupied buckets.
	 * @return an immutable snapshot
	 */
	public WheelSnapshot snapshot() {
		int state = this.state;
		WheelSnapshot.Counters counters = counters();
		long pending = pending(counters.scheduled(), counters.fired(), counters.unprocessed(), counters.cancelled());
		long currentTick = currentTick(state);
		Thread thread = this.workerThread;
		return new WheelSnapshot(publicState(state), Duration.ofNanos(this.tickNanos), this.wheel.ticksPerWheel(),
				currentTick, pending, this.maxPendingTimeouts, counters, tickLag(),
				Duration.ofNanos((long) MAX_TICK_LAG.getOpaque(this)), this.wheel.occupancy(currentTick),
				new WheelSnapshot.Worker((thread != null) ? thread.getName() : null, thread != null && thread.isAlive(),
						this.workerFailure));
	}

	/**
	 * Reads only the counters: what {@link #snapshot()} reports as
	 * {@link WheelSnapshot#counters()}, without the pass over the buckets. Cheap enough for
	 * metrics that poll each counter separately.
	 * @return the counters at this moment
	 */
	public WheelSnapshot.Counters counters() {
		long expired = this.expired.sum() + (long) EXPIRED_ON_WORKER.getOpaque(this);
		long failed = this.failed.sum();
		long lateness = (long) LATENESS.getOpaque(this);
		long fired = (long) FIRED.getOpaque(this);
		long unprocessed = (long) UNPROCESSED.getOpaque(this);
		long cancelled = this.cancellations.offeredCount();
		long rejected = this.rejected.sum();
		long scheduled = this.scheduled.sum();
		long running = Math.max(0, fired - expired - failed);
		return new WheelSnapshot.Counters(scheduled, expired, failed, cancelled, rejected, running, unprocessed,
				Duration.of(lateness, ChronoUnit.MICROS));
	}

	/**
	 * Returns how far behind the worker is now: how long ago the earliest tick that holds a due
	 * timeout ended, if the worker has not processed it yet, or how much longer than a tick its
	 * current pass of work has lasted; zero while it keeps up. A worker that is blocked (by a task
	 * running on it, say) shows a lag that keeps growing. Costs a look at the occupancy bits up to
	 * the next occupied bucket.
	 * @return the lag, zero or positive
	 */
	public Duration tickLag() {
		long now = elapsedNanos();
		long awakeSince = (long) AWAKE_SINCE.getOpaque(this);
		long busyTooLong = (awakeSince == NOT_AWAKE) ? 0 : now - awakeSince - this.tickNanos;
		long dueTick = this.wheel.findNextDueTick((long) TICK.getOpaque(this));
		long dueTickEnded = (dueTick >= Long.MAX_VALUE / this.tickNanos) ? 0 : now - (dueTick + 1) * this.tickNanos;
		return Duration.ofNanos(Math.max(0, Math.max(busyTooLong, dueTickEnded)));
	}

	/**
	 * Returns the pending timeouts that fall due first, soonest first: at most {@code limit} of
	 * them. Only the worker thread may walk the buckets, so the calling thread asks it and waits:
	 * the worker answers between two ticks, within about one tick, or later while a task runs on
	 * the worker thread. Callers asking at the same moment share one walk of the buckets, which
	 * skips every bucket whose earliest deadline comes after a full answer; not asking costs the
	 * worker nothing. The answer is empty before the worker started and once the timer has stopped.
	 * Timeouts scheduled within the last tick may still be on their way to the wheel and missing
	 * from it, and a timeout in it may have fired or been cancelled since.
	 * @param limit the most timeouts to return, zero or more
	 * @param maxWait how long to wait for the worker's answer
	 * @return the timeouts, an immutable list
	 * @throws IllegalArgumentException if {@code limit} is negative
	 * @throws TimeoutException if the worker did not answer within {@code maxWait}
	 * @throws InterruptedException if the calling thread was interrupted while waiting
	 */
	public List<Timeout> nextTimeouts(int limit, Duration maxWait) throws TimeoutException, InterruptedException {
		if (limit < 0) {
			throw new IllegalArgumentException("limit must be zero or more, was " + limit);
		}
		Objects.requireNonNull(maxWait, "maxWait must not be null");
		if (Thread.currentThread() == this.workerThread) {
			// A task running on the worker: the thread that owns the buckets may walk them.
			return this.wheel.soonest((long) TICK.getOpaque(this), limit);
		}
		try {
			return askWorkerForSoonest(limit).get(saturatedNanos(maxWait), TimeUnit.NANOSECONDS);
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof RuntimeException runtime) {
				throw runtime;
			}
			if (cause instanceof Error error) {
				throw error;
			}
			throw new IllegalStateException(cause);
		}
	}

	/**
	 * Puts the question to the worker. The future completes on the worker thread, so it must not
	 * leave this package: a caller's callback on it would run there and hold up every timeout.
	 */
	CompletableFuture<List<Timeout>> askWorkerForSoonest(int limit) {
		SoonestQuery query = new SoonestQuery(limit);
		if (this.state == INIT || limit == 0) {
			query.answer.complete(List.of());
			return query.answer;
		}
		SoonestQuery head;
		do {
			head = this.queries;
			query.next = head;
		}
		while (!QUERIES.compareAndSet(this, head, query));
		// Dekker with the worker's end: it counts down the latch, then empties the stack. If it
		// has ended, it may not have seen this query, so the asker answers (the wheel is empty).
		if (this.terminated.getCount() == 0) {
			answerQueriesAfterTermination();
		}
		else {
			signalWorker();
		}
		return query.answer;
	}

	/** Completes every waiting query with an empty answer: no worker will walk the wheel again. */
	private void answerQueriesAfterTermination() {
		for (SoonestQuery query = (SoonestQuery) QUERIES.getAndSet(this, null); query != null; query = query.next) {
			query.answer.complete(List.of());
		}
	}

	/**
	 * The hand follows the clock while the timer runs, even across ticks the worker slept through
	 * because they were empty; it stops where the worker stopped.
	 */
	private long currentTick(int state) {
		long processed = (long) TICK.getOpaque(this);
		if (state == STARTED) {
			return Math.max(processed, elapsedNanos() / this.tickNanos);
		}
		return processed;
	}

	private static WheelSnapshot.State publicState(int state) {
		return switch (state) {
			case INIT -> WheelSnapshot.State.INIT;
			case STARTED -> WheelSnapshot.State.STARTED;
			default -> WheelSnapshot.State.SHUTDOWN;
		};
	}

	long elapsedNanos() {
		return this.ticker.nanoTime() - this.origin;
	}

	/**
	 * Runs a due timeout's task on the task executor, and counts how it ended. (On the worker
	 * thread, {@code Worker.runOnWorker} does it.) Marks the thread as running a task of this timer
	 * meanwhile, so that the task cannot deadlock by stopping its own timer.
	 */
	void runTask(HashedWheelTimeout timeout) {
		HashedWheelTimer outer = taskRunningFor.get();
		taskRunningFor.set(this);
		try {
			timeout.task.run(timeout);
			this.expired.increment();
		}
		catch (Throwable ex) {
			this.failed.increment();
			warn(() -> "Task of " + timeout + " threw an exception", ex);
		}
		finally {
			if (outer != null) {
				taskRunningFor.set(outer);
			}
			else {
				taskRunningFor.remove();
			}
		}
	}

	/**
	 * Logs a task's failure. Describing the timeout calls the task's {@code toString()}, and a
	 * logging backend may fail too: neither may escape into the worker's loop.
	 */
	private static void warn(Supplier<String> message, Throwable failure) {
		try {
			logger.log(Level.WARNING, message, failure);
		}
		catch (Throwable describing) {
			try {
				logger.log(Level.WARNING, "A timeout's task failed, and describing it failed too: " + describing, failure);
			}
			catch (Throwable ignored) {
				// Nothing more can be said; the failure is counted.
			}
		}
	}

	private static long saturatedNanos(Duration duration) {
		try {
			return duration.toNanos();
		}
		catch (ArithmeticException overflow) {
			return Long.MAX_VALUE;
		}
	}

	@Override
	public String toString() {
		return "HashedWheelTimer(" + publicState(this.state) + ", tick " + Durations.format(this.tickNanos) + ", "
				+ this.wheel.ticksPerWheel() + " buckets, " + pendingTimeouts() + " pending)";
	}

	/**
	 * The worker thread's loop. Everything in here runs on the worker thread only.
	 */
	private final class Worker implements Runnable {

		/** Ticks processed so far: the tick the worker processes next. */
		private long processed;

		/** The tick in which the worker was last woken by a signal, to spot a second one. */
		private long lastSignalTick = -1;

		/** The worker does not arm before this tick (it was signalled twice in one tick). */
		private long armingSuppressedUntil = -1;

		private final Consumer<HashedWheelTimeout> fireDue = this::fire;

		/*
		 * Lateness is counted in batches of at most LATENESS_BATCH fires: each fire of a batch
		 * counts as handed to run at the clock reading that ends the batch. So a task that holds
		 * the worker makes the timeouts after it late by that time (as they are), and, at worst,
		 * the few fired just before it in the same batch too: the sum errs on the late side, never
		 * the early one, and costs one clock read per batch rather than one per task.
		 */

		/** The clock reading that opened the current batch. */
		private long batchStart;

		/** Fires in the current batch. */
		private int batchFires;

		/** The current batch's lateness up to batchStart, summed over its fires. */
		private long batchLateness;

		@Override
		public void run() {
			Throwable failure = null;
			try {
				this.processed = elapsedNanos() / HashedWheelTimer.this.tickNanos;
				TICK.setOpaque(HashedWheelTimer.this, this.processed);
				loop();
			}
			catch (Throwable ex) {
				failure = ex;
			}
			finally {
				try {
					finish(failure);
				}
				finally {
					AWAKE_SINCE.setOpaque(HashedWheelTimer.this, NOT_AWAKE);
					runningInstances.decrementAndGet();
					HashedWheelTimer.this.terminated.countDown();
					answerQueriesAfterTermination();
				}
			}
		}

		private void loop() {
			while (true) {
				startPass(elapsedNanos());
				boolean moreCancellations = processCancellations();
				if (isStopDue()) {
					return;
				}
				boolean moreIncoming = transferIncoming();
				if (HashedWheelTimer.this.queries != null) {
					answerQueries();
				}
				long currentTick = elapsedNanos() / HashedWheelTimer.this.tickNanos;
				if (currentTick > this.processed && !expireUpTo(currentTick)) {
					return;
				}
				// The counters, not the wheel: a timeout taken back by its racing scheduler may
				// still be linked, cancelled, in a bucket.
				if (HashedWheelTimer.this.state == SHUTDOWN && pendingTimeouts() == 0) {
					return;
				}
				if (!moreCancellations && !moreIncoming) {
					if (HashedWheelTimer.this.state == SHUTDOWN && nothingFallsDueBeforeStopDeadline()) {
						return;
					}
					sleep();
				}
			}
		}

		/**
		 * Begins a pass of work: readers count the lag of a pass that outlasts a tick from here.
		 * The pass before, if the worker went straight on without parking, ends now.
		 */
		private void startPass(long now) {
			endPass(now);
			AWAKE_SINCE.setOpaque(HashedWheelTimer.this, now);
		}

		/** Ends a pass: one that outlasted its tick is lag, kept if it is the worst so far. */
		private void endPass(long now) {
			// The worker is awakeSince's only writer: a plain read sees its own last store.
			long passStart = HashedWheelTimer.this.awakeSince;
			if (passStart != NOT_AWAKE) {
				recordMaxLag(now - passStart - HashedWheelTimer.this.tickNanos);
				AWAKE_SINCE.setOpaque(HashedWheelTimer.this, NOT_AWAKE);
			}
		}

		/**
		 * A drain waits for timeouts that can still fire in it, not for its whole length. One due
		 * exactly at the stop deadline cannot: the stop is due first (see isStopDue).
		 */
		private boolean nothingFallsDueBeforeStopDeadline() {
			HashedWheelTimer timer = HashedWheelTimer.this;
			if (!timer.incoming.isEmpty()) {
				return false;
			}
			long dueTick = timer.wheel.nextDueTick(this.processed);
			return dueTick >= Long.MAX_VALUE / timer.tickNanos || (dueTick + 1) * timer.tickNanos >= timer.stopDeadline;
		}

		/** One walk answers every waiting query, each with the head of the longest answer. */
		private void answerQueries() {
			HashedWheelTimer timer = HashedWheelTimer.this;
			SoonestQuery queries = (SoonestQuery) QUERIES.getAndSet(timer, null);
			int longest = 0;
			for (SoonestQuery query = queries; query != null; query = query.next) {
				longest = Math.max(longest, query.limit);
			}
			List<Timeout> soonest;
			try {
				soonest = timer.wheel.soonest(this.processed, longest);
			}
			catch (RuntimeException | Error ex) {
				// Out of memory for a huge limit, say: the askers hear of it, the worker goes on.
				for (SoonestQuery query = queries; query != null; query = query.next) {
					query.answer.completeExceptionally(ex);
				}
				return;
			}
			for (SoonestQuery query = queries; query != null; query = query.next) {
				query.answer.complete((soonest.size() <= query.limit) ? soonest : soonest.subList(0, query.limit));
			}
		}

		private boolean isStopDue() {
			return HashedWheelTimer.this.state == SHUTDOWN && elapsedNanos() >= HashedWheelTimer.this.stopDeadline;
		}

		/** @return whether more cancellations wait than one batch took */
		private boolean processCancellations() {
			ChunkedMpscQueue<HashedWheelTimeout> queue = HashedWheelTimer.this.cancellations;
			for (int i = 0; i < TRANSFER_BATCH; i++) {
				HashedWheelTimeout timeout = queue.poll();
				if (timeout == null) {
					return false;
				}
				if (timeout.prev != null) {
					HashedWheelTimer.this.wheel.remove(timeout);
				}
				notifyCancelled(timeout);
			}
			return !queue.isEmpty();
		}

		/** @return whether more new timeouts wait than one batch took */
		private boolean transferIncoming() {
			IntrusiveMpscQueue queue = HashedWheelTimer.this.incoming;
			boolean clockRead = false;
			for (int i = 0; i < TRANSFER_BATCH; i++) {
				HashedWheelTimeout timeout = (HashedWheelTimeout) queue.pollOrWait();
				if (timeout == null) {
					endLatenessBatch();
					return false;
				}
				if (!timeout.isPending()) {
					timeout.next = null;
					continue;
				}
				// One division per timeout: the tick decides both "overdue?" and the bucket.
				long tick = HashedWheelTimer.this.wheel.tickOf(timeout.deadline);
				if (tick < this.processed) {
					// Overdue on arrival (a delay of zero, or a busy worker).
					timeout.next = null;
					if (!clockRead) {
						this.batchStart = elapsedNanos();
						clockRead = true;
					}
					fire(timeout);
				}
				else {
					// add() sets the links the queue left in the node.
					HashedWheelTimer.this.wheel.add(timeout, tick);
				}
			}
			endLatenessBatch();
			return !queue.isEmpty();
		}

		/**
		 * Processes every tick before {@code currentTick}; after a sleep of more than one
		 * revolution, each bucket once.
		 * @return {@code false} if a stop became due meanwhile and the worker must end now
		 */
		private boolean expireUpTo(long currentTick) {
			Wheel wheel = HashedWheelTimer.this.wheel;
			long from = Math.max(this.processed, currentTick - wheel.ticksPerWheel());
			for (long tick = from; tick < currentTick; tick++) {
				long startedAt = elapsedNanos();
				this.batchStart = startedAt;
				// Lag only where something was due: a bucket of later-round timeouts the worker
				// slept through on purpose is not late.
				int fired = wheel.expire(tick, this.fireDue);
				endLatenessBatch();
				if (fired > 0) {
					recordMaxLag(startedAt - (tick + 1) * HashedWheelTimer.this.tickNanos);
					if (isStopDue()) {
						publishProcessed(tick + 1);
						return false;
					}
				}
			}
			publishProcessed(currentTick);
			return true;
		}

		private void publishProcessed(long tick) {
			this.processed = tick;
			TICK.setOpaque(HashedWheelTimer.this, tick);
		}

		private void recordMaxLag(long lag) {
			if (lag > HashedWheelTimer.this.maxTickLag) {
				MAX_TICK_LAG.setOpaque(HashedWheelTimer.this, lag);
			}
		}

		/** Hands a due timeout to run; {@code batchStart} must be set. */
		private void fire(HashedWheelTimeout timeout) {
			if (!timeout.expire()) {
				return;
			}
			HashedWheelTimer timer = HashedWheelTimer.this;
			FIRED.setOpaque(timer, timer.fired + 1);
			this.batchLateness += Math.max(0, this.batchStart - timeout.deadline);
			releasePending(1);
			Executor executor = timer.taskExecutor;
			if (executor == null) {
				runOnWorker(timeout);
			}
			else {
				try {
					executor.execute(timeout);
				}
				catch (Throwable ex) {
					timer.failed.increment();
					warn(() -> "Task executor refused " + timeout, ex);
				}
			}
			if (++this.batchFires == LATENESS_BATCH) {
				endLatenessBatch();
			}
		}

		/** Runs a task on the worker thread itself, its only writer of expiredOnWorker. */
		private void runOnWorker(HashedWheelTimeout timeout) {
			HashedWheelTimer timer = HashedWheelTimer.this;
			try {
				timeout.task.run(timeout);
				EXPIRED_ON_WORKER.setOpaque(timer, timer.expiredOnWorker + 1);
			}
			catch (Throwable ex) {
				timer.failed.increment();
				warn(() -> "Task of " + timeout + " threw an exception", ex);
			}
		}

		/** Counts the lateness of the fires since the batch began, and begins the next batch. */
		private void endLatenessBatch() {
			if (this.batchFires == 0) {
				return;
			}
			long now = elapsedNanos();
			long lateMicros = (this.batchLateness + this.batchFires * Math.max(0, now - this.batchStart)) / 1_000;
			HashedWheelTimer timer = HashedWheelTimer.this;
			// Saturates: 100,000 fires a second, 50 ms late each, would overflow a nanosecond sum in weeks.
			LATENESS.setOpaque(timer, (timer.lateness > Long.MAX_VALUE - lateMicros) ? Long.MAX_VALUE
					: timer.lateness + lateMicros);
			this.batchStart = now;
			this.batchFires = 0;
			this.batchLateness = 0;
		}

		private void sleep() {
			HashedWheelTimer timer = HashedWheelTimer.this;
			long tickNanos = timer.tickNanos;
			long now = elapsedNanos();
			if (now / tickNanos > this.processed) {
				return;
			}
			long nextBoundary = (this.processed + 1) * tickNanos;
			long dueTick = timer.wheel.nextDueTick(this.processed);
			long wakeAt = (dueTick >= Long.MAX_VALUE / tickNanos) ? Long.MAX_VALUE : (dueTick + 1) * tickNanos;
			if (timer.state == SHUTDOWN) {
				wakeAt = Math.min(wakeAt, timer.stopDeadline);
			}
			boolean armed = wakeAt > nextBoundary;
			if (armed && this.processed < this.armingSuppressedUntil) {
				wakeAt = nextBoundary;
				armed = false;
			}
			if (armed) {
				timer.workerArmed = 1;
				if (!timer.incoming.isEmpty() || !timer.cancellations.isEmpty() || timer.queries != null) {
					timer.workerArmed = 0;
					return;
				}
			}
			endPass(now);
			timer.ticker.park((wakeAt == Long.MAX_VALUE) ? Long.MAX_VALUE : wakeAt - now);
			// A stray interrupt would make every later park return at once.
			Thread.interrupted();
			if (armed && (int) WORKER_ARMED.getAndSet(timer, 0) == 0) {
				long signalledIn = elapsedNanos() / tickNanos;
				if (signalledIn == this.lastSignalTick) {
					this.armingSuppressedUntil = signalledIn + 1;
				}
				this.lastSignalTick = signalledIn;
			}
		}

		private void finish(Throwable failure) {
			HashedWheelTimer timer = HashedWheelTimer.this;
			if (failure != null) {
				timer.state = SHUTDOWN;
				timer.workerFailure = failure.toString();
				logger.log(Level.ERROR, "The timer's worker thread failed; pending timeouts are cancelled"
						+ " and the timer accepts no more", failure);
			}
			cancelAndReportUnprocessed();
		}

	}

	/**
	 * Cancels every timeout that has not run and keeps them for the stop report. Called once the
	 * state is SHUTDOWN, by the thread that owns the wheel: the worker as it ends, or the thread
	 * whose start of the worker failed (then the wheel is empty and only the queue holds timeouts).
	 */
	private void cancelAndReportUnprocessed() {
		Set<Timeout> unprocessed = Collections.newSetFromMap(new IdentityHashMap<>());
		HashedWheelTimeout cancelled;
		while ((cancelled = this.cancellations.poll()) != null) {
			// Cancelled by their callers already; the wheel is emptied below.
			notifyCancelled(cancelled);
		}
		WheelNode node;
		while ((node = this.incoming.pollOrWait()) != null) {
			node.next = null;
			collectUnprocessed((HashedWheelTimeout) node, unprocessed);
		}
		this.wheel.removeAll((timeout) -> collectUnprocessed(timeout, unprocessed));
		UNPROCESSED.setOpaque(this, this.unprocessed + unprocessed.size());
		releasePending(unprocessed.size());
		this.unprocessedTimeouts.set(Collections.unmodifiableSet(unprocessed));
		notifyUnprocessed(unprocessed);
	}

	/**
	 * Tells each unprocessed timeout's task that it will never run, before {@code stop()} returns,
	 * so that whoever waits for it learns even when nobody reads the stop report (the worker died,
	 * or the caller of {@code stop()} dropped the set).
	 */
	private static void notifyUnprocessed(Set<Timeout> unprocessed) {
		int failures = 0;
		Throwable firstFailure = null;
		for (Timeout timeout : unprocessed) {
			try {
				timeout.task().unprocessed(timeout);
			}
			catch (Throwable ex) {
				failures++;
				if (firstFailure == null) {
					firstFailure = ex;
				}
			}
		}
		if (firstFailure != null) {
			// One line, not one per timeout: a million pending timeouts may share one faulty task class.
			logger.log(Level.WARNING, failures + " of " + unprocessed.size()
					+ " unprocessed timeouts' tasks threw when told they would never run; the first:", firstFailure);
		}
	}

	/** Tells a cancelled timeout's task, on the thread that owns the wheel, once it has left it. */
	private static void notifyCancelled(HashedWheelTimeout timeout) {
		try {
			timeout.task.cancelled(timeout);
		}
		catch (Throwable ex) {
			warn(() -> "Task of " + timeout + " threw when told it was cancelled", ex);
		}
	}

	private static void collectUnprocessed(HashedWheelTimeout timeout, Set<Timeout> unprocessed) {
		if (timeout.cancelWithoutNotice()) {
			unprocessed.add(timeout);
		}
	}

	/** A question for the worker: which pending timeouts fall due first. */
	private static final class SoonestQuery {

		final int limit;

		final CompletableFuture<List<Timeout>> answer = new CompletableFuture<>();

		/** The next query down the stack; written before the push publishes this one. */
		SoonestQuery next;

		SoonestQuery(int limit) {
			this.limit = limit;
		}

	}

	/**
	 * Builds a {@link HashedWheelTimer}. Every setting has a default; arguments are checked when
	 * {@link #build()} is called, and a bad one fails with a message that names it.
	 */
	public static final class Builder {

		private Duration tickDuration = DEFAULT_TICK_DURATION;

		private int ticksPerWheel = DEFAULT_TICKS_PER_WHEEL;

		private long maxPendingTimeouts;

		private ThreadFactory threadFactory;

		private Executor taskExecutor;

		private Ticker ticker = Ticker.system();

		private Builder() {
		}

		/**
		 * Sets the length of a tick: the timer's precision. At least 1 ms; default 100 ms.
		 * @param tickDuration the tick duration
		 * @return this builder
		 */
		public Builder tickDuration(Duration tickDuration) {
			this.tickDuration = Objects.requireNonNull(tickDuration, "tickDuration must not be null");
			return this;
		}

		/**
		 * Sets the number of buckets, from 1 to 2^30, rounded up to a power of two; default 512.
		 * @param ticksPerWheel the wheel size
		 * @return this builder
		 */
		public Builder ticksPerWheel(int ticksPerWheel) {
			this.ticksPerWheel = ticksPerWheel;
			return this;
		}

		/**
		 * Sets how many timeouts may be pending at once; past it, {@code newTimeout} throws
		 * {@link RejectedExecutionException}. Zero or negative (the default) means no limit.
		 * @param maxPendingTimeouts the limit
		 * @return this builder
		 */
		public Builder maxPendingTimeouts(long maxPendingTimeouts) {
			this.maxPendingTimeouts = maxPendingTimeouts;
			return this;
		}

		/**
		 * Sets the factory of the worker thread; by default a daemon thread named
		 * {@code wheel-timer-N}.
		 * @param threadFactory the thread factory
		 * @return this builder
		 */
		public Builder threadFactory(ThreadFactory threadFactory) {
			this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory must not be null");
			return this;
		}

		/**
		 * Sets the executor that runs the tasks; by default they run on the worker thread.
		 * @param taskExecutor the executor
		 * @return this builder
		 */
		public Builder taskExecutor(Executor taskExecutor) {
			this.taskExecutor = Objects.requireNonNull(taskExecutor, "taskExecutor must not be null");
			return this;
		}

		/**
		 * Sets the source of time; by default {@link Ticker#system()}.
		 * @param ticker the ticker
		 * @return this builder
		 */
		public Builder ticker(Ticker ticker) {
			this.ticker = Objects.requireNonNull(ticker, "ticker must not be null");
			return this;
		}

		/**
		 * Builds the timer. It starts its worker thread on first use.
		 * @return a new timer
		 * @throws InvalidTimerSettingException if a setting is out of range; it names the setting
		 */
		public HashedWheelTimer build() {
			return new HashedWheelTimer(this);
		}

	}

}
