package io.github.wheeltimer;

import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Collections;
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
import java.util.function.Supplier;

/**
 * A {@link Timer} for very many timeouts that need only approximate timing: a hashed timing wheel
 * (Varghese and Lauck, "Hashed and Hierarchical Timing Wheels", 1987), the design Netty's and
 * Dubbo's timers made familiar, driven by one worker thread.
 *
 * <h2>How it keeps time</h2>
 * Time is cut into <em>ticks</em> of {@code tickDuration}. The wheel's finest level is a ring of
 * {@code ticksPerWheel} buckets holding the ticks of the current <em>turn</em>, one tick each:
 * when a tick is over, the worker fires every timeout of its bucket. A timeout further away waits
 * in a coarser level (64 slots each, every slot a whole turn of the level below, as many levels
 * as the furthest deadline needs) and moves down, by its own deadline, when the hand reaches its
 * slot: Varghese and Lauck's hierarchical wheel, in the aligned form Tokio's timer uses.
 * Scheduling and cancelling cost O(1) whatever the number of pending timeouts, and a timeout
 * moves at most once per level, so the worker's work follows what fires, not what waits.
 * <ul>
 * <li><b>Precision.</b> A timeout never fires before its deadline, and normally fires at the end of
 * the tick that holds it: up to one {@code tickDuration} late, plus however long the thread takes
 * to wake. A deadline exactly on a tick boundary fires at that boundary, not a tick later. A zero
 * or negative delay fires at the end of the current tick. Only the finest level fires, so moving
 * down never makes a timeout early (Kafka's hierarchical timer fires a coarse bucket at its start,
 * up to a tick early; this one does not).
 * Timeouts that fall due in the same tick are not ordered among themselves. Pick the coarsest
 * tick your use tolerates: 100 ms (the default) for request timeouts and order expiry, 1-10 ms
 * where lateness matters more.</li>
 * <li><b>Wheel size.</b> {@code ticksPerWheel} (default 512, rounded up to a power of two) is how
 * many ticks a turn spans: 512 x 100 ms = 51.2 s. A timeout due within the current turn goes
 * straight into its bucket; one further away costs a move per level it comes down (a 30-minute
 * timeout: one on the defaults, two at a 10 ms tick). A larger wheel saves moves for delays up to its turn, and costs
 * about 40 bytes per bucket.</li>
 * <li><b>Idle cost.</b> Unlike Netty's timer, the worker does not wake on every tick: with nothing
 * pending it parks until a timeout arrives, and otherwise it sleeps until the next tick that has a
 * timeout due; far timeouts move down on its way there, never with a wake-up of their own. Nor
 * does it wake for each new timeout: one due before its planned wake-up wakes it, and the others
 * wait in its queue and are taken in one run, halfway to that wake-up and within 16 ticks at the
 * latest. So a stream of schedules, or of cancels while it wakes every tick anyway, costs the
 * scheduling threads no contention with the worker. A cancel reaches the worker within about one
 * tick.</li>
 * <li><b>Memory.</b> One pending timeout costs one object of 40 bytes (with compressed oops), plus
 * whatever its task holds, at any level and while it waits in the queue. A cancelled timeout is
 * released within about one tick.</li>
 * </ul>
 *
 * <h2>Where tasks run</h2>
 * By default, on the worker thread itself, one after another: a task that blocks or runs long
 * makes every other timeout late. Give the timer a {@link Builder#taskExecutor(Executor) task
 * executor} for such tasks; the worker then only hands each due timeout to it. A task that throws
 * is logged and counted as {@code failed}; so is a timeout the executor refuses. Neither stops the
 * timer. A task that passes its work on to somewhere of its own (an executor per kind of work, a
 * queue) can {@link #handOff(Timeout) hand it off}: the timer then counts how that work ended,
 * not that the task returned. Work that falls due outside the timer, and is late already, can be
 * {@link #runDue(TimerTask) run at once} and still be counted with the rest.
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
 * {@link #snapshot()} returns everything the timer reports (state, counters, tick lag, the levels
 * and their occupancy, worker thread) in one immutable {@link WheelSnapshot}, cheaply and from any thread;
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
	 * Any thread calls newTimeout, cancel, snapshot, nextTimeouts and stop. This class owns the
	 * lifecycle: state and stopDeadline, CAS-ed volatiles. Everything else has an owner of its own,
	 * which says in its comment who writes what:
	 *   - TimerWorker: the worker thread's loop and the plan of its sleep, and through it what
	 *     only the worker touches: the wheel (Wheel, hand included), the consuming ends of the
	 *     hand-off queues (QueueIntake) and the firing of due timeouts (Firing);
	 *   - WorkerWakeUp: the handshake that lets the worker sleep without missing what cannot
	 *     wait, and without being woken by what can;
	 *   - TimerCounters: the counters, each with its writer;
	 *   - SoonestQueries: the questions only the worker can answer.
	 * Readers (snapshot, counters, tickLag) use opaque loads of single-writer values: they need
	 * freshness, not ordering. The lag is derived by the reader, reading the clock first so that a
	 * reader's own delay never counts as lag.
	 */

	private static final int INIT = 0;

	private static final int STARTED = 1;

	private static final int SHUTDOWN = 2;

	private static final long NOT_STOPPING = Long.MIN_VALUE;

	private static final System.Logger logger = System.getLogger(HashedWheelTimer.class.getName());

	private static final AtomicInteger runningInstances = new AtomicInteger();

	private static final AtomicBoolean instanceWarningLogged = new AtomicBoolean();

	private static final AtomicInteger threadSequence = new AtomicInteger();

	private static final ThreadLocal<HashedWheelTimer> taskRunningFor = new ThreadLocal<>();

	private static final VarHandle STATE;

	private static final VarHandle STOP_DEADLINE;

	static {
		try {
			MethodHandles.Lookup lookup = MethodHandles.lookup();
			STATE = lookup.findVarHandle(HashedWheelTimer.class, "state", int.class);
			STOP_DEADLINE = lookup.findVarHandle(HashedWheelTimer.class, "stopDeadline", long.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	// Configuration, immutable.

	private final long tickNanos;

	private final long maxPendingTimeouts;

	private final ThreadFactory threadFactory;

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

	// Owners of the rest.

	private final TimerCounters counters;

	/** Pending timeouts, kept only when there is a limit to enforce; {@code null} otherwise. */
	private final AtomicLong limitedPending;

	private final Wheel wheel;

	private final TimerWorker worker;

	// The worker's and the counters' parts that scheduling and cancelling touch, held here too:
	// the hot paths then load them straight from this object, not through their owners.

	private final IntrusiveMpscQueue incoming;

	private final ChunkedMpscQueue<HashedWheelTimeout> cancellations;

	private final WorkerWakeUp wakeUp;

	private final LongAdder scheduled;

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
		int wheelSize = validWheelSize(builder, this.tickNanos);
		this.maxPendingTimeouts = Math.max(0, builder.maxPendingTimeouts);
		this.limitedPending = (this.maxPendingTimeouts > 0) ? new AtomicLong() : null;
		this.threadFactory = (builder.threadFactory != null) ? builder.threadFactory
				: HashedWheelTimer::newDefaultWorkerThread;
		this.ticker = builder.ticker;
		this.wheel = new Wheel(wheelSize, this.tickNanos);
		ChunkedMpscQueue<HashedWheelTimeout> cancellations = new ChunkedMpscQueue<>();
		this.counters = new TimerCounters(cancellations);
		this.worker = new TimerWorker(this, this.counters, cancellations, this.wheel, this.tickNanos,
				builder.taskExecutor, this.ticker);
		this.incoming = this.worker.incoming;
		this.cancellations = cancellations;
		this.wakeUp = this.worker.wakeUp;
		this.scheduled = this.counters.scheduled;
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

	/** The wheel size the builder's setting rounds up to, and a turn of it fits in a long of nanoseconds. */
	private static int validWheelSize(Builder builder, long tickNanos) {
		int wheelSize = validTicksPerWheel(builder.ticksPerWheel);
		if (tickNanos > Long.MAX_VALUE / wheelSize) {
			throw new InvalidTimerSettingException("ticksPerWheel", builder.ticksPerWheel, "(rounded up to " + wheelSize
					+ ") times tickDuration (" + builder.tickDuration
					+ ") must not exceed Long.MAX_VALUE nanoseconds (about 292 years)");
		}
		return wheelSize;
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
			Thread thread = this.threadFactory.newThread(this.worker);
			if (thread == null) {
				throw new IllegalStateException("threadFactory " + this.threadFactory + " returned no thread");
			}
			this.workerThread = thread;
			this.wakeUp.attach(thread);
			thread.start();
		}
		catch (RuntimeException | Error ex) {
			// No worker will ever own the queues, so this thread does its final duty: producers
			// that saw STARTED before this line have enqueued, and are reported as unprocessed;
			// later ones see SHUTDOWN after enqueueing and take their timeouts back.
			this.state = SHUTDOWN;
			workerEnding(this.worker.collectUnprocessed());
			workerEnded();
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
		boolean intoEmptyQueue = this.incoming.offer(timeout);
		if (this.state != STARTED) {
			takeBackIfStopped(timeout);
		}
		else {
			this.wakeUp.scheduled(deadline, intoEmptyQueue);
		}
		return timeout;
	}

	/**
	 * Runs a task that is due already, at once, on this thread, and counts it with this timer's
	 * timeouts: as scheduled and fired (on time: it adds no lateness), then as its task ended,
	 * handed off or not. For work that fell due outside the timer and is late already, such as
	 * calls read back from a database after their due time, which must neither wait for the end of
	 * a tick, as a {@link #newTimeout} with no delay would, nor go uncounted. It never waits on the
	 * wheel: it is never pending, nor cancelled, nor returned by a stop, and the pending limit
	 * does not apply. It runs on this thread even when the timer has a task executor.
	 * @param task the task
	 * @return the timeout, expired already
	 * @throws IllegalStateException if the timer has been stopped
	 */
	public Timeout runDue(TimerTask task) {
		Objects.requireNonNull(task, "task must not be null");
		if (this.state == SHUTDOWN) {
			this.counters.rejected.increment();
			throw stopped();
		}
		HashedWheelTimeout timeout = new HashedWheelTimeout(this, task, elapsedNanos());
		timeout.expire();
		// Scheduled first and fired before it runs, as a fire: readers never see it end before either.
		this.scheduled.increment();
		this.counters.firedAtOnce.increment();
		runTask(timeout);
		return timeout;
	}

	/**
	 * Hands the work of a running task on: called by the task, from its
	 * {@link TimerTask#run(Timeout) run} and on its thread, when it only passes the work to
	 * somewhere of its own (an executor, a queue, a batch) rather than doing it. The timer then
	 * counts the timeout as running until the work says, through the returned {@link HandOff}, how
	 * it ended, and counts it so: {@code completed}, {@code failed} or {@code withdrawn}. Should
	 * the task still throw after handing off, the hand-off is void: the timeout counts as failed,
	 * unless the work said how it ended first.
	 * @param timeout the timeout whose task is running on this thread
	 * @return what the work says its end through; {@link HandOff#NONE} for a timeout of another
	 * {@link Timer}, which counts as its own rules say
	 * @throws IllegalStateException if the timeout's task is not running on this thread, or
	 * handed off already
	 */
	public static HandOff handOff(Timeout timeout) {
		Objects.requireNonNull(timeout, "timeout must not be null");
		if (!(timeout instanceof HashedWheelTimeout running)) {
			return HandOff.NONE;
		}
		HashedWheelTimer timer = running.timer;
		// The task's own thread: the worker, or a thread that runs a task of this timer. Not a check
		// that this very timeout's task runs here, which would cost a write per fire, but it keeps a
		// late hand-off (after the task returned and was counted) from being counted twice in practice.
		boolean taskThread = Thread.currentThread() == timer.workerThread || taskRunningFor.get() == timer;
		if (!taskThread || !running.handOff()) {
			throw new IllegalStateException("Only a task that runs can hand its work off, from its run(Timeout),"
					+ " once: " + timeout);
		}
		return running;
	}

	/** A handed-off task's work returned; any thread. */
	void handedOffCompleted() {
		this.counters.completed.increment();
	}

	/** A handed-off task's work threw or could not start; any thread. */
	void handedOffFailed() {
		this.counters.failed.increment();
	}

	/** A handed-off task's work was given up before it ran; any thread. */
	void handedOffWithdrawn() {
		this.counters.withdrawn.increment();
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
			this.counters.rejected.increment();
			throw ex;
		}
	}

	private void reservePending() {
		long pending = this.limitedPending.incrementAndGet();
		if (pending > this.maxPendingTimeouts) {
			this.limitedPending.decrementAndGet();
			this.counters.rejected.increment();
			throw new RejectedExecutionException("Cannot schedule a timeout: " + this.maxPendingTimeouts
					+ " timeouts are pending, which is the limit (maxPendingTimeouts = " + this.maxPendingTimeouts + ")");
		}
	}

	/**
	 * Takes back a timeout enqueued after a stop began, unless the worker claimed it first (then it
	 * fired, or it is in the stop report). Package-private: tests play the race's losing side.
	 */
	void takeBackIfStopped(HashedWheelTimeout timeout) {
		if (timeout.refuse()) {
			this.scheduled.decrement();
			this.counters.rejected.increment();
			released(1);
			// A draining worker may have linked it already: tell it nothing is pending any more.
			this.wakeUp.ring();
			throw stopped();
		}
	}

	private IllegalStateException stopped() {
		return new IllegalStateException("Cannot schedule a timeout: the timer has been stopped");
	}

	/**
	 * Called by {@link HashedWheelTimeout#cancel()} after it won the cancellation.
	 * @param taken whether the worker had taken the timeout off its queue: then it may be in the
	 * wheel, and goes to the worker as a cancellation; if not, the worker's take lets it go
	 */
	void cancelled(HashedWheelTimeout timeout, boolean taken) {
		if (taken) {
			this.cancellations.offer(timeout);
		}
		else {
			this.counters.cancelledQueued.increment();
		}
		released(1);
		this.wakeUp.cancelled();
	}

	/** Frees room under the pending limit: a timeout fired, was cancelled or was returned. */
	void released(long count) {
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
		long drainNanos = Durations.saturatedNanos(drainTimeout);
		long now = elapsedNanos();
		long deadline = (drainNanos > Long.MAX_VALUE - now) ? Long.MAX_VALUE : now + drainNanos;
		boolean stopper = STOP_DEADLINE.compareAndSet(this, NOT_STOPPING, deadline);
		if (stopper) {
			int previous = (int) STATE.getAndSet(this, SHUTDOWN);
			if (previous == INIT) {
				workerEnded();
			}
			else {
				this.wakeUp.interrupt();
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
	 * Called by the thread that owns the wheel as the timer ends (the worker, or the thread whose
	 * start of it failed): keeps the stop report, and tells each unprocessed timeout's task that it
	 * will never run, before {@code stop()} returns, so that whoever waits for it learns even when
	 * nobody reads the report (the worker died, or the caller of {@code stop()} dropped the set).
	 */
	void workerEnding(Set<Timeout> unprocessed) {
		this.unprocessedTimeouts.set(Collections.unmodifiableSet(unprocessed));
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

	/**
	 * Called by the worker when it fails, before it collects its timeouts: from here a new timeout
	 * is refused, in its scheduler's thread, as after a stop (one accepted after the collection
	 * would be in neither the wheel nor the report).
	 */
	void workerFailed(Throwable failure) {
		this.state = SHUTDOWN;
		this.workerFailure = failure.toString();
		logger.log(Level.ERROR, "The timer's worker thread failed; pending timeouts are cancelled"
				+ " and the timer accepts no more", failure);
	}

	/** The timer has ended: stop() may return, and no worker will answer questions again. */
	void workerEnded() {
		if (this.workerThread != null && this.workerThread == Thread.currentThread()) {
			runningInstances.decrementAndGet();
		}
		this.terminated.countDown();
		this.worker.queries.answerEmpty();
	}

	boolean isStopping() {
		return this.state == SHUTDOWN;
	}

	long stopDeadline() {
		return this.stopDeadline;
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
		return this.counters.pending();
	}

	/**
	 * Reads everything the timer reports at this moment; see {@link WheelSnapshot}. Never blocks the
	 * worker; costs one pass over the occupied slots.
	 * @return an immutable snapshot
	 */
	public WheelSnapshot snapshot() {
		int state = this.state;
		WheelSnapshot.Counters counters = counters();
		long pending = TimerCounters.pending(counters.scheduled(), counters.fired(), counters.unprocessed(),
				counters.cancelled());
		long now = elapsedNanos();
		long tick = (state == STARTED) ? Math.max(this.wheel.hand(), now / this.tickNanos) : this.wheel.hand();
		Thread thread = this.workerThread;
		return new WheelSnapshot(publicState(state), Duration.ofNanos(this.tickNanos), this.wheel.buckets(), tick,
				pending, this.maxPendingTimeouts, counters, tickLag(), Duration.ofNanos(this.counters.maxLag()),
				this.wheel.levels(now), new WheelSnapshot.Worker((thread != null) ? thread.getName() : null,
						thread != null && thread.isAlive(), this.workerFailure));
	}

	/**
	 * Reads only the counters: what {@link #snapshot()} reports as
	 * {@link WheelSnapshot#counters()}, without the pass over the slots. Cheap enough for
	 * metrics that poll each counter separately.
	 * @return the counters at this moment
	 */
	public WheelSnapshot.Counters counters() {
		return this.counters.read();
	}

	/**
	 * Returns how many timeouts have moved down from a coarser level to a finer one so far: what
	 * {@link WheelSnapshot#moves()} reports, without the pass over the slots. A timeout moves at
	 * most once per level on its way to the buckets, so this grows with far timeouts, never with
	 * the time they wait.
	 * @return the moves over all levels
	 */
	public long moves() {
		return this.wheel.moves();
	}

	/**
	 * Returns how far behind the worker is now: how long ago the earliest tick that holds a due
	 * timeout ended, if the worker has not processed it yet, or how much longer than a tick its
	 * current pass of work has lasted; zero while it keeps up. A worker that is blocked (by a task
	 * running on it, say) shows a lag that keeps growing. Costs a look at the occupancy bits up to
	 * the next occupied bucket, and one word per upper level.
	 * @return the lag, zero or positive
	 */
	public Duration tickLag() {
		long now = elapsedNanos();
		long awakeSince = this.worker.awakeSince();
		long busyTooLong = (awakeSince == TimerWorker.NOT_AWAKE) ? 0 : now - awakeSince - this.tickNanos;
		long dueTickEnd = this.wheel.endOf(this.wheel.nextDueTick());
		long dueTickEnded = (dueTickEnd == Long.MAX_VALUE) ? 0 : now - dueTickEnd;
		return Duration.ofNanos(Math.max(0, Math.max(busyTooLong, dueTickEnded)));
	}

	/**
	 * Returns the pending timeouts that fall due first, soonest first: at most {@code limit} of
	 * them. Only the worker thread may walk the wheel, so the calling thread asks it and waits:
	 * the worker answers between two ticks, within about one tick, or later while a task runs on
	 * the worker thread. Callers asking at the same moment share one walk, which stops at the first
	 * slot whose earliest deadline comes after a full answer; not asking costs the worker nothing.
	 * The answer is empty before the worker started and once the timer has stopped. The worker
	 * first takes what waits in its queue, so the answer includes every timeout scheduled before
	 * the question; a timeout in it may have fired or been cancelled since.
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
			// A task running on the worker: the thread that owns the wheel may walk it.
			return this.wheel.soonest(limit);
		}
		try {
			return askWorkerForSoonest(limit).get(Durations.saturatedNanos(maxWait), TimeUnit.NANOSECONDS);
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
		if (this.state == INIT || limit == 0) {
			return CompletableFuture.completedFuture(List.of());
		}
		CompletableFuture<List<Timeout>> answer = this.worker.queries.ask(limit);
		// Dekker with the worker's end: it counts down the latch, then empties the stack. If it
		// has ended, it may not have seen this question, so the asker answers (the wheel is empty).
		if (this.terminated.getCount() == 0) {
			this.worker.queries.answerEmpty();
		}
		else {
			this.wakeUp.ring();
		}
		return answer;
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
	 * Runs a due timeout's task handed to the task executor, on whichever thread the executor runs
	 * it (or a task {@link #runDue run at once}, on its caller's), and counts how it ended, unless
	 * it handed its work off: the work counts that. Off the worker, marks the thread as running a
	 * task of this timer meanwhile, so that the task cannot deadlock by stopping its own timer (on
	 * the worker, the thread itself tells), and may hand off. The worker runs its own tasks through
	 * {@link #runCountingFailure} directly, and counts their completions a batch at a time.
	 */
	void runTask(HashedWheelTimeout timeout) {
		boolean onWorker = Thread.currentThread() == this.workerThread;
		HashedWheelTimer outer = null;
		if (!onWorker) {
			outer = taskRunningFor.get();
			taskRunningFor.set(this);
		}
		try {
			if (runCountingFailure(timeout) && !timeout.isHandedOff()) {
				if (onWorker) {
					this.counters.completedOnWorker(1);
				}
				else {
					this.counters.completed.increment();
				}
			}
		}
		finally {
			if (outer != null) {
				taskRunningFor.set(outer);
			}
			else if (!onWorker) {
				taskRunningFor.remove();
			}
		}
	}

	/**
	 * Runs a due timeout's task on this thread: the one way a task runs. A failure is counted and
	 * logged here; the caller counts a completion, as it knows where the task ran, unless the task
	 * handed its work off.
	 * @return whether the task returned normally
	 */
	boolean runCountingFailure(HashedWheelTimeout timeout) {
		try {
			timeout.task.run(timeout);
			return true;
		}
		catch (Throwable ex) {
			if (timeout.threw()) {
				this.counters.failed.increment();
			}
			warn(() -> "Task of " + timeout + " threw an exception", ex);
			return false;
		}
	}

	/**
	 * Logs a task's failure. Describing the timeout calls the task's {@code toString()}, and a
	 * logging backend may fail too: neither may escape into the worker's loop.
	 */
	static void warn(Supplier<String> message, Throwable failure) {
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

	@Override
	public String toString() {
		return "HashedWheelTimer(" + publicState(this.state) + ", tick " + Durations.format(this.tickNanos) + ", "
				+ this.wheel.buckets() + " buckets, " + pendingTimeouts() + " pending)";
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
		 * Checks the settings as {@link #build()} does, without building a timer: for a caller
		 * that takes them from somewhere else (configuration properties) and reports a bad one
		 * there, before anything builds a timer from them.
		 * @return this builder
		 * @throws InvalidTimerSettingException if a setting is out of range; it names the setting
		 */
		public Builder validate() {
			validWheelSize(this, validTickNanos(this.tickDuration));
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
