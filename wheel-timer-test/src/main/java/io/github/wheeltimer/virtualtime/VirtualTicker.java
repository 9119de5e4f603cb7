package io.github.wheeltimer.virtualtime;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.Ticker;

/**
 * A clock for tests that moves only when the test says so. Give it to one or more
 * {@link HashedWheelTimer}s and {@link #advance(Duration) advance} it: each advance returns once
 * everything that fell due in the time it covered has run, so a test goes through hours of
 * timeouts in milliseconds of real time, and asserts right after the advance, without sleeping
 * and without polling (no Awaitility).
 *
 * <pre>{@code
 * VirtualTicker ticker = new VirtualTicker();
 * HashedWheelTimer timer = HashedWheelTimer.builder().ticker(ticker).build();
 * AtomicBoolean closed = new AtomicBoolean();
 * timer.newTimeout((timeout) -> closed.set(true), Duration.ofMinutes(30));
 *
 * ticker.advance(Duration.ofMinutes(29));
 * assertThat(closed).isFalse();
 * ticker.advance(Duration.ofMinutes(1));
 * assertThat(closed).isTrue(); // ran at its deadline: 30 minutes is a tick boundary
 * timer.stop();
 * }</pre>
 *
 * <p>Virtual time starts at zero when the ticker is created: {@link #nanoTime()} returns the
 * virtual nanoseconds elapsed since, and {@link #elapsed()} the same as a {@link Duration}.
 *
 * <h2>What an advance waits for</h2>
 * A timer's worker thread parks on its ticker until the next tick that has a timeout due. An
 * advance moves the clock from one such wake-up to the next, and after each waits (in real time)
 * until every worker has done what fell due and parked again. So when {@code advance} returns:
 * <ul>
 * <li>every timeout whose tick ended within the advance, its last instant included, has been
 * handed to run, and its task has finished if it ran on the worker thread (a timer's
 * default);</li>
 * <li>tasks that ran on a {@link HashedWheelTimer.Builder#taskExecutor task executor} have
 * finished too if you {@link #awaitTasksOf(HashedWheelTimer) registered the timer}; otherwise
 * they may still be running on the executor's threads;</li>
 * <li>anything else you {@link #awaitAlso(Work) registered} as work to wait for is done.</li>
 * </ul>
 * Timeouts that tasks schedule while the advance runs are included when they fall due by its end:
 * a task first scheduled one minute ahead, that schedules itself again every minute, runs 30 times
 * in {@code advance(Duration.ofMinutes(30))}, at each virtual minute from the 1st to the 30th.
 *
 * <h2>Order and precision</h2>
 * Timeouts run in the order of the ticks that hold them, across all the timers on this ticker,
 * and each task sees, in {@link #nanoTime()}, the end of its tick: the time its timer really
 * processes it. A timeout runs at the first tick boundary at or after its deadline, never before
 * it (a timer's ticks count from the virtual time it was built at):
 * <ul>
 * <li>a deadline exactly on a boundary runs at that boundary, so advancing to the deadline is
 * enough. Every deadline is on one when the timer was built at a whole number of ticks, the
 * delays are whole ticks, and they are scheduled while the clock stands at a boundary: after
 * advances by whole ticks, and while tasks run;</li>
 * <li>a deadline inside a tick runs at the end of that tick, less than one tick after it: advance
 * a tick past the deadline to be sure it ran;</li>
 * <li>a zero delay is due just after now: it runs at the end of the tick that starts now, so a
 * task that schedules itself again with no delay runs once a tick.</li>
 * </ul>
 * Timeouts that fall due in the same tick are not ordered among themselves, nor are those of
 * different timers whose ticks end at the same virtual instant.
 *
 * <h2>When something blocks</h2>
 * A task that never finishes (it waits on a latch, a lock, a slow call, or for another thread
 * that itself waits for virtual time) would hold virtual time still for ever. Instead, each wait
 * for the timers to settle gives up after {@link #DEFAULT_SETTLE_TIMEOUT 10 seconds} of real time
 * (see {@link #setSettleTimeout(Duration)}), and the advance throws an
 * {@link IllegalStateException} saying at which virtual time it got stuck and what is still
 * busy: each worker thread that has not parked, with the top of its stack (where a blocking task
 * is), and the description of each registered work still in progress. Virtual time stays where
 * it got stuck; once the blocking work is released, the next advance goes on from there.
 *
 * <h2>Threads</h2>
 * Advances run one at a time: a second thread that advances waits for the first to finish.
 * Advancing from a thread that parks on this ticker (a timer's worker, where tasks run by
 * default) is refused, as it would wait for itself. Other threads may schedule timeouts while an
 * advance runs; their delays count from whatever virtual time the advance has reached. Calls
 * that wait for a timer's worker to reach a later virtual time, such as
 * {@link HashedWheelTimer#stopGracefully(Duration)} with timeouts due in the drain, wait until
 * another thread advances the clock far enough: use {@link HashedWheelTimer#stop()} in tests.
 */
public final class VirtualTicker implements Ticker {

	/** How long, in real time, each wait for the timers to settle lasts at most by default: 10 s. */
	public static final Duration DEFAULT_SETTLE_TIMEOUT = Duration.ofSeconds(10);

	/*
	 * Threads and state
	 * -----------------
	 * Workers (each timer's thread, and any thread that waits in park) read the clock, park and
	 * are unparked; the threads that schedule and cancel timeouts unpark them; one test thread at
	 * a time advances (the advancing lock serializes whole advances; it is taken before the
	 * clock's lock, never while holding it).
	 *
	 * The clock (VirtualClock) holds virtual time and who waits for it, under its lock, and says
	 * why the clock moves only under settled workers. The settler (Settler) waits in real time for
	 * what fell due to be done, workers and registered work, and says why a check of both spans
	 * two moments. This class is the public face, and the advance: settle, move, again.
	 */

	private final VirtualClock clock = new VirtualClock();

	private final Settler settler = new Settler(this.clock);

	private final ReentrantLock advancing = new ReentrantLock();

	/**
	 * Creates a ticker whose virtual time starts at zero.
	 */
	public VirtualTicker() {
	}

	/**
	 * Returns the virtual time elapsed since this ticker was created, in nanoseconds.
	 * @return the current virtual time
	 */
	@Override
	public long nanoTime() {
		return this.clock.now();
	}

	/**
	 * Returns the virtual time elapsed since this ticker was created.
	 * @return the current virtual time
	 */
	public Duration elapsed() {
		return Duration.ofNanos(this.clock.now());
	}

	/**
	 * Waits until virtual time has moved {@code nanos} past the current time, or until another
	 * thread {@link #unpark(Thread) unparks} the calling thread, or until it is interrupted
	 * (its interrupt flag is left set). Returns at once when {@code nanos} is zero or negative,
	 * when an unpark came first (using it up), or when the thread is interrupted already. From its
	 * first wait on, the calling thread counts as a worker that an advance must see parked.
	 * @param nanos how far virtual time must move; {@link Long#MAX_VALUE} waits without limit
	 */
	@Override
	public void park(long nanos) {
		if (nanos <= 0) {
			return;
		}
		this.clock.park(nanos);
	}

	/**
	 * Wakes {@code thread} if it is parked on this ticker, or makes its next park return at once.
	 * @param thread the thread to wake; ignored when {@code null}
	 */
	@Override
	public void unpark(Thread thread) {
		if (thread == null) {
			return;
		}
		this.clock.unpark(thread);
	}

	/**
	 * Registers a timer's worker thread: from now on, an advance waits for it to park before it
	 * moves the clock, even if it has not parked yet.
	 * @param worker the worker thread, already started
	 */
	@Override
	public void attach(Thread worker) {
		Objects.requireNonNull(worker, "worker must not be null");
		this.clock.attach(worker);
	}

	/**
	 * Moves virtual time forward by {@code amount}, and returns once everything that fell due up to
	 * the new time has been done, in due order: the clock stops at each tick that has something
	 * due, on any timer, and goes on only when the timers' workers have parked again and the
	 * {@link #awaitAlso(Work) registered work} is idle. Timeouts scheduled meanwhile by tasks are
	 * included. {@code advance(Duration.ZERO)} only waits for what is due now.
	 * @param amount how far to move, zero or more
	 * @throws IllegalArgumentException if {@code amount} is negative, or would take virtual time
	 * past {@link Long#MAX_VALUE} nanoseconds (about 292 years)
	 * @throws IllegalStateException if what fell due at some virtual time was not done within the
	 * {@link #setSettleTimeout(Duration) settle timeout}, or if called from a thread that parks on
	 * this ticker; the message says why, and what is still busy
	 */
	public void advance(Duration amount) {
		Objects.requireNonNull(amount, "amount must not be null");
		if (amount.isNegative()) {
			throw new IllegalArgumentException("amount must not be negative, was " + amount);
		}
		checkNotWorker("advance virtual time");
		this.advancing.lock();
		try {
			long target = this.clock.targetAfter(amount);
			while (stepTowards(target)) {
				// Each step settles first: what fell due at the time it left has been done.
			}
		}
		finally {
			this.advancing.unlock();
		}
	}

	/**
	 * Moves virtual time forward to the earliest time a parked worker waits for (on a timer, the
	 * end of the next tick that has a timeout due), and returns once what fell due then has been
	 * done, as {@link #advance(Duration)} does. Does not move when every worker waits without
	 * limit: nothing is pending.
	 * @return how far virtual time moved; {@link Duration#ZERO} when nothing is pending
	 * @throws IllegalStateException as {@link #advance(Duration)} does
	 */
	public Duration advanceToNextWakeUp() {
		checkNotWorker("advance virtual time");
		this.advancing.lock();
		try {
			long from = this.clock.now();
			if (!stepTowards(VirtualClock.FOREVER)) {
				return Duration.ZERO;
			}
			this.settler.settle();
			return Duration.ofNanos(this.clock.now() - from);
		}
		finally {
			this.advancing.unlock();
		}
	}

	/**
	 * Returns how far ahead of the current virtual time the earliest parked worker waits to wake:
	 * on a timer, the end of the next tick that has a timeout due. Waits first, without moving the
	 * clock, for what is due now to be done (like {@code advance(Duration.ZERO)}), so that a
	 * timeout scheduled just before counts.
	 * <p>A timer's worker that is about to wake at its next tick anyway picks new timeouts up
	 * only then: right after scheduling, this may be that tick rather than the new timeout's.
	 * @return the time until the next wake-up; empty when every worker waits without limit
	 * @throws IllegalStateException as {@link #advance(Duration)} does
	 */
	public Optional<Duration> nextWakeUp() {
		checkNotWorker("wait for the timers to settle");
		this.advancing.lock();
		try {
			this.settler.settle();
			long wakeUpAt = this.clock.earliestWakeUp();
			return (wakeUpAt == VirtualClock.FOREVER) ? Optional.empty()
					: Optional.of(Duration.ofNanos(wakeUpAt - this.clock.now()));
		}
		finally {
			this.advancing.unlock();
		}
	}

	/**
	 * Makes every advance also wait until {@code work} is idle, each time the workers have
	 * settled: the way to wait for things that run outside the timers' worker threads, such as
	 * tasks handed to an executor. {@link #awaitTasksOf(HashedWheelTimer)} registers the tasks of
	 * a timer this way.
	 * <pre>{@code
	 * ticker.awaitAlso(() -> (queue.isEmpty()) ? null : queue.size() + " messages still queued");
	 * }</pre>
	 * @param work the work to wait for; asked often, from the advancing thread, so it must be
	 * cheap, must not block, and must not wait for virtual time
	 */
	public void awaitAlso(Work work) {
		this.settler.add(Objects.requireNonNull(work, "work must not be null"));
	}

	/**
	 * Makes every advance also wait until no task of {@code timer} is running: needed when the
	 * timer runs its tasks on a {@link HashedWheelTimer.Builder#taskExecutor task executor}, so
	 * that they are finished when the advance returns, and timeouts they schedule are included.
	 * Tasks that run on the worker thread need nothing: an advance waits for them anyway.
	 * @param timer a timer built with this ticker
	 * @throws IllegalArgumentException if {@code timer} was built with another ticker
	 */
	public void awaitTasksOf(HashedWheelTimer timer) {
		Objects.requireNonNull(timer, "timer must not be null");
		if (timer.ticker() != this) {
			Ticker other = timer.ticker();
			throw new IllegalArgumentException("timer must be built with this ticker, was built with "
					+ ((other == Ticker.system()) ? "Ticker.system()" : other) + ": " + timer);
		}
		awaitAlso(() -> {
			long running = timer.counters().running();
			return (running == 0) ? null
					: running + ((running == 1) ? " task of " : " tasks of ") + timer + " still running";
		});
	}

	/**
	 * Sets how long, in real time, an advance waits at most for what fell due at one virtual time
	 * to be done before it gives up with an {@link IllegalStateException}. Default
	 * {@link #DEFAULT_SETTLE_TIMEOUT 10 seconds}: long enough for a slow build machine, short
	 * enough that a blocked task fails the test rather than hanging it. Lower it in a test that
	 * expects a block; raise it only for tasks that really do that much work.
	 * @param settleTimeout the longest wait, positive
	 * @throws IllegalArgumentException if {@code settleTimeout} is zero or negative
	 */
	public void setSettleTimeout(Duration settleTimeout) {
		Objects.requireNonNull(settleTimeout, "settleTimeout must not be null");
		if (settleTimeout.isNegative() || settleTimeout.isZero()) {
			throw new IllegalArgumentException("settleTimeout must be positive, was " + settleTimeout);
		}
		this.settler.setTimeout(settleTimeout);
	}

	@Override
	public String toString() {
		return "VirtualTicker(" + elapsed() + " elapsed)";
	}

	private void checkNotWorker(String action) {
		Thread current = Thread.currentThread();
		if (this.clock.isWorker(current)) {
			throw new IllegalStateException("Cannot " + action + " from thread \"" + current.getName()
					+ "\": it parks on this ticker (a timer's worker, where tasks run by default), so it would wait"
					+ " for itself; call it from the test's own thread");
		}
	}

	/**
	 * Settles, then moves the clock to the earliest wake-up of a parked worker if it is at or
	 * before {@code target}, else to {@code target}; settles again first if anything parked, woke
	 * or was unparked since the workers settled (see VirtualClock.moveTowards). Only the advancing
	 * thread calls this.
	 * @param target how far to move at most; {@link VirtualClock#FOREVER} for "to the next
	 * wake-up, if any"
	 * @return {@code false} if the clock already stands at {@code target} with nothing due up to
	 * it, or, for {@link VirtualClock#FOREVER}, if every worker waits without limit
	 */
	private boolean stepTowards(long target) {
		while (true) {
			VirtualClock.Step step = this.clock.moveTowards(target, this.settler.settle());
			if (step != VirtualClock.Step.UNSETTLED) {
				return step == VirtualClock.Step.MOVED;
			}
		}
	}

	/**
	 * Moves virtual time forward by {@code amount} at once, waking every parked thread whose time
	 * has come, without waiting for anything to settle: what falls due runs late, all at the new
	 * time, and what it schedules counts from there. Not for tests, which use
	 * {@link #advance(Duration)}: for tearing down when an advance cannot complete (a task is
	 * blocked), so that threads waiting for virtual time, such as a timer's graceful stop, can end.
	 * @param amount how far to move, zero or more
	 * @throws IllegalArgumentException if {@code amount} is negative or would take virtual time
	 * past {@link Long#MAX_VALUE} nanoseconds
	 */
	public void jump(Duration amount) {
		Objects.requireNonNull(amount, "amount must not be null");
		if (amount.isNegative()) {
			throw new IllegalArgumentException("amount must not be negative, was " + amount);
		}
		this.clock.jump(amount);
	}

	/**
	 * Work that runs outside the timers' worker threads and that an advance must also wait for,
	 * registered with {@link VirtualTicker#awaitAlso(Work)}: tasks on an executor, messages on
	 * their way, calls in flight.
	 */
	@FunctionalInterface
	public interface Work {

		/**
		 * Says whether this work is still in progress. Called often, from the advancing thread:
		 * keep it cheap and non-blocking.
		 * @return {@code null} when idle; otherwise what is still in progress, in words that
		 * help whoever reads a failed test (such as "3 tasks of my-timer still running")
		 */
		String busy();

	}

}
