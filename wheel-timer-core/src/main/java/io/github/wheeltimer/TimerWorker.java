package io.github.wheeltimer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * The worker thread's loop, and everything only it may touch: the wheel and its hand, the
 * lateness batch, and the consuming ends of the hand-off queues. If starting the worker thread
 * fails, the starting thread takes its place once, to {@linkplain #collectUnprocessed() collect}
 * what the queues hold: no worker ever ran, so nothing races it.
 *
 * <p>Other threads reach it only through the lock-free queues ({@code incoming} for new timeouts,
 * {@code cancellations} for cancelled ones), the {@link SoonestQueries} stack, and the
 * {@link WorkerWakeUp} handshake that rouses it. It publishes {@code awakeSince} (when its current
 * pass of work began) with opaque stores, for readers of the lag.
 *
 * <p>Stopping races scheduling without a lock: stop writes the timer's state, then the worker
 * drains {@code incoming}; a scheduler enqueues, then re-reads the state, and if it sees the stop
 * it races the worker for its own timeout with a CAS on the timeout's state. Either the worker
 * returns it in the stop report, or the scheduler takes it back and throws.
 */
final class TimerWorker implements Runnable {

	/** {@code awakeSince} while the worker is parked, has not started, or has ended. */
	static final long NOT_AWAKE = Long.MIN_VALUE;

	/**
	 * Most queue elements taken in one go before the worker looks at the clock again: a burst of
	 * new timeouts must not hold up the ones falling due meanwhile. 4096 take well under a
	 * millisecond.
	 */
	private static final int TRANSFER_BATCH = 1 << 12;

	/**
	 * Most timeouts of the next turn staged per pass (see Wheel): about 100 us of work, so that a
	 * burst due in the next turn is sorted into its buckets over the passes before it starts.
	 */
	private static final int STAGE_BATCH = 1 << 12;

	private static final VarHandle AWAKE_SINCE;

	static {
		try {
			AWAKE_SINCE = MethodHandles.lookup().findVarHandle(TimerWorker.class, "awakeSince", long.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	final IntrusiveMpscQueue incoming = new IntrusiveMpscQueue();

	final ChunkedMpscQueue<HashedWheelTimeout> cancellations;

	final SoonestQueries queries = new SoonestQueries();

	final WorkerWakeUp wakeUp;

	final Wheel wheel;

	private final HashedWheelTimer timer;

	private final TimerCounters counters;

	private final long tickNanos;

	/** {@code null}: tasks run on this thread. */
	private final Executor taskExecutor;

	private final LatenessBatch lateness;

	private final Consumer<HashedWheelTimeout> fireDue = this::fire;

	/** When the current pass of work began; NOT_AWAKE while parked. */
	private long awakeSince = NOT_AWAKE;

	TimerWorker(HashedWheelTimer timer, TimerCounters counters, ChunkedMpscQueue<HashedWheelTimeout> cancellations,
			Wheel wheel, long tickNanos, Executor taskExecutor, Ticker ticker) {
		this.timer = timer;
		this.cancellations = cancellations;
		this.counters = counters;
		this.wheel = wheel;
		this.tickNanos = tickNanos;
		this.taskExecutor = taskExecutor;
		this.wakeUp = new WorkerWakeUp(ticker);
		this.lateness = new LatenessBatch(counters);
	}

	/** Any thread: when the current pass began, or NOT_AWAKE. */
	long awakeSince() {
		return (long) AWAKE_SINCE.getOpaque(this);
	}

	@Override
	public void run() {
		Throwable failure = null;
		try {
			this.wheel.startAt(this.timer.elapsedNanos() / this.tickNanos);
			loop();
		}
		catch (Throwable ex) {
			failure = ex;
		}
		finally {
			try {
				this.timer.workerEnding(failure, collectUnprocessed());
			}
			finally {
				AWAKE_SINCE.setOpaque(this, NOT_AWAKE);
				this.timer.workerEnded();
			}
		}
	}

	private void loop() {
		while (true) {
			startPass(this.timer.elapsedNanos());
			boolean moreCancellations = processCancellations();
			if (isStopDue()) {
				return;
			}
			boolean moreIncoming = transferIncoming();
			if (!this.queries.isEmpty()) {
				this.queries.answer(this.wheel);
			}
			long clockTick = this.timer.elapsedNanos() / this.tickNanos;
			if (clockTick > this.wheel.hand() && !catchUp(clockTick)) {
				return;
			}
			this.wheel.stage(STAGE_BATCH);
			// The counters, not the wheel: a timeout taken back by its racing scheduler may
			// still be linked, cancelled, in the wheel.
			boolean stopping = this.timer.isStopping();
			if (stopping && this.counters.pending() == 0) {
				return;
			}
			if (!moreCancellations && !moreIncoming) {
				if (stopping && nothingFallsDueBeforeStopDeadline()) {
					return;
				}
				sleep();
			}
		}
	}

	/**
	 * Begins a pass of work: readers count the lag of a pass that outlasts a tick from here. The
	 * pass before, if the worker went straight on without parking, ends now.
	 */
	private void startPass(long now) {
		endPass(now);
		AWAKE_SINCE.setOpaque(this, now);
	}

	/** Ends a pass: one that outlasted its tick is lag, kept if it is the worst so far. */
	private void endPass(long now) {
		if (this.awakeSince != NOT_AWAKE) {
			this.counters.lag(now - this.awakeSince - this.tickNanos);
			AWAKE_SINCE.setOpaque(this, NOT_AWAKE);
		}
	}

	private boolean isStopDue() {
		return this.timer.isStopping() && this.timer.elapsedNanos() >= this.timer.stopDeadline();
	}

	/**
	 * A drain waits for timeouts that can still fire in it, not for its whole length. One due
	 * exactly at the stop deadline cannot: the stop is due first (see isStopDue).
	 */
	private boolean nothingFallsDueBeforeStopDeadline() {
		return this.incoming.isEmpty()
				&& this.wheel.endOf(this.wheel.nextDueTick()) >= this.timer.stopDeadline();
	}

	/** @return whether more cancellations wait than one batch took */
	private boolean processCancellations() {
		for (int i = 0; i < TRANSFER_BATCH; i++) {
			HashedWheelTimeout timeout = this.cancellations.poll();
			if (timeout == null) {
				return false;
			}
			if (timeout.prev != null) {
				this.wheel.remove(timeout);
			}
			notifyCancelled(timeout);
		}
		return !this.cancellations.isEmpty();
	}

	/** @return whether more new timeouts wait than one batch took */
	private boolean transferIncoming() {
		boolean clockRead = false;
		long hand = this.wheel.hand();
		for (int i = 0; i < TRANSFER_BATCH; i++) {
			HashedWheelTimeout timeout = (HashedWheelTimeout) this.incoming.pollOrWait();
			if (timeout == null) {
				endLatenessBatch();
				return false;
			}
			if (!timeout.isPending()) {
				timeout.next = null;
				continue;
			}
			// One division per timeout: the tick decides both "overdue?" and the place.
			long tick = this.wheel.tickOf(timeout.deadline);
			if (tick < hand) {
				// Overdue on arrival (a delay of zero, or a busy worker).
				timeout.next = null;
				if (!clockRead) {
					this.lateness.begin(this.timer.elapsedNanos());
					clockRead = true;
				}
				fire(timeout);
			}
			else {
				// add() sets the links the queue left in the node.
				this.wheel.add(timeout, tick);
			}
		}
		endLatenessBatch();
		return !this.incoming.isEmpty();
	}

	/**
	 * Moves the hand to {@code clockTick}, firing every tick before it that holds something.
	 * @return {@code false} if a stop became due meanwhile and the worker must end now
	 */
	private boolean catchUp(long clockTick) {
		while (true) {
			long startedAt = this.timer.elapsedNanos();
			this.lateness.begin(startedAt);
			long fired = this.wheel.advance(clockTick, this.fireDue);
			if (fired < 0) {
				return true;
			}
			this.lateness.end(this.timer.elapsedNanos());
			// Lag only where something was due: ticks the worker slept through on purpose are not late.
			this.counters.lag(startedAt - this.wheel.endOf(fired));
			if (isStopDue()) {
				return false;
			}
		}
	}

	/** Ends the lateness batch, reading the clock only if something fired in it. */
	private void endLatenessBatch() {
		if (!this.lateness.isEmpty()) {
			this.lateness.end(this.timer.elapsedNanos());
		}
	}

	/** Hands a due timeout to run; the lateness batch must be open. */
	private void fire(HashedWheelTimeout timeout) {
		if (!timeout.expire()) {
			return;
		}
		this.counters.fired();
		this.timer.released(1);
		if (this.lateness.fired(timeout.deadline)) {
			this.lateness.end(this.timer.elapsedNanos());
		}
		if (this.taskExecutor == null) {
			this.timer.runTask(timeout);
			return;
		}
		try {
			this.taskExecutor.execute(timeout);
		}
		catch (Throwable ex) {
			this.counters.failed.increment();
			HashedWheelTimer.warn(() -> "Task executor refused " + timeout, ex);
		}
	}

	private void sleep() {
		long now = this.timer.elapsedNanos();
		long hand = this.wheel.hand();
		if (now / this.tickNanos > hand) {
			return;
		}
		long nextBoundary = this.wheel.endOf(hand);
		long wakeAt = this.wheel.endOf(this.wheel.nextDueTick());
		if (this.timer.isStopping()) {
			wakeAt = Math.min(wakeAt, this.timer.stopDeadline());
		}
		boolean armed = wakeAt > nextBoundary;
		if (armed && !this.wakeUp.mayArm(hand)) {
			wakeAt = nextBoundary;
			armed = false;
		}
		if (armed) {
			this.wakeUp.arm();
			if (!this.incoming.isEmpty() || !this.cancellations.isEmpty() || !this.queries.isEmpty()) {
				this.wakeUp.disarm();
				return;
			}
		}
		endPass(now);
		this.timer.ticker().park((wakeAt == Long.MAX_VALUE) ? Long.MAX_VALUE : wakeAt - now);
		// A stray interrupt would make every later park return at once.
		Thread.interrupted();
		if (armed) {
			this.wakeUp.parked(this.timer.elapsedNanos() / this.tickNanos);
		}
	}

	/**
	 * Cancels every timeout that has not run, for the stop report, and tells the tasks of those
	 * their callers cancelled. Called once the timer is stopping, by the thread that owns the
	 * wheel: the worker as it ends, or the thread whose start of the worker failed (then the wheel
	 * is empty and only the queues hold timeouts).
	 */
	Set<Timeout> collectUnprocessed() {
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
		this.counters.unprocessed(unprocessed.size());
		this.timer.released(unprocessed.size());
		return unprocessed;
	}

	private static void collectUnprocessed(HashedWheelTimeout timeout, Set<Timeout> unprocessed) {
		if (timeout.cancelWithoutNotice()) {
			unprocessed.add(timeout);
		}
	}

	/** Tells a cancelled timeout's task, on the thread that owns the wheel, once it has left it. */
	private static void notifyCancelled(HashedWheelTimeout timeout) {
		try {
			timeout.task.cancelled(timeout);
		}
		catch (Throwable ex) {
			HashedWheelTimer.warn(() -> "Task of " + timeout + " threw when told it was cancelled", ex);
		}
	}

}
