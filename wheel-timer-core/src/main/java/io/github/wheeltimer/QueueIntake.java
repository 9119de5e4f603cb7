package io.github.wheeltimer;

import java.lang.invoke.VarHandle;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * The consuming ends of the hand-off queues: takes new timeouts into the wheel (firing those that
 * arrive overdue) and cancelled ones out of it, and, when the worker ends, collects what is left
 * for the stop report. Worker only, or the thread whose start of the worker failed: no worker
 * ever ran then, so nothing races it.
 *
 * <p>It takes in bounded runs, never chasing the threads that add to the queues' tails: at each
 * wake-up, what they held then ({@link #wokeUp}); before the worker parks, what came while it was
 * awake ({@link #includeQueued}: those producers saw no plan to compare with). Whatever comes later
 * was compared with the published plan by its producer, and rang if it could not wait for the
 * next wake-up.
 *
 * <p>Stopping races scheduling without a lock: stop writes the timer's state, then the worker
 * drains {@code incoming}; a scheduler enqueues, then re-reads the state, and if it sees the stop
 * it races the worker for its own timeout with a CAS on the timeout's state. Either the worker
 * returns it in the stop report ({@link #collectUnprocessed}), or the scheduler takes it back and
 * throws.
 */
final class QueueIntake {

	/**
	 * Most queue elements taken in one go before the worker looks at the clock again: a burst of
	 * new timeouts must not hold up the ones falling due meanwhile. 4096 take well under a
	 * millisecond.
	 */
	private static final int TRANSFER_BATCH = 1 << 12;

	/**
	 * New timeouts marked as taken before one fence, then read: a fence per timeout (a
	 * compare-and-set on its state) nearly doubled the worker's cost per expiry.
	 */
	private static final int MARK_BATCH = 64;

	private final IntrusiveMpscQueue incoming;

	private final ChunkedMpscQueue<HashedWheelTimeout> cancellations;

	private final Wheel wheel;

	private final Firing firing;

	private final HashedWheelTimer timer;

	private final TimerCounters counters;

	/**
	 * The newest new timeout the worker must take before it may park, or {@code null}: what came
	 * later was compared by its producer with the published plan, and rang if it could not wait.
	 */
	private WheelNode takeUntil;

	/** How many cancellations had been offered when the worker woke: this wake-up takes those. */
	private long cancelledBefore;

	/** New timeouts taken since the worker last woke. */
	private long takenSinceWake;

	/** The timeouts cancelled before the worker took them, as counted when it woke. */
	private long cancelledQueuedBefore;

	/** The timeouts of a take between their marks and their fence; empty otherwise. */
	private final HashedWheelTimeout[] marked = new HashedWheelTimeout[MARK_BATCH];

	QueueIntake(IntrusiveMpscQueue incoming, ChunkedMpscQueue<HashedWheelTimeout> cancellations, Wheel wheel,
			Firing firing, HashedWheelTimer timer, TimerCounters counters) {
		this.incoming = incoming;
		this.cancellations = cancellations;
		this.wheel = wheel;
		this.firing = firing;
		this.timer = timer;
		this.counters = counters;
	}

	/** The worker is up (started, or back from a park): what the queues hold now is this wake-up's work. */
	void wokeUp() {
		this.takenSinceWake = 0;
		// The count before the queue's end: a cancel it holds was of a timeout queued before it,
		// so this wake-up's take reaches that timeout.
		this.cancelledQueuedBefore = this.counters.cancelledQueued.sum();
		this.takeUntil = this.incoming.newest();
		this.cancelledBefore = this.cancellations.offeredCount();
	}

	/**
	 * Whether a timeout was cancelled in the queue since the worker woke: its take lets it go, so
	 * the worker takes the queue within a tick, as it takes cancellations.
	 */
	boolean cancelledQueuedSinceWake() {
		return this.counters.cancelledQueued.sum() != this.cancelledQueuedBefore;
	}

	/** Every new timeout queued now must be taken before the worker parks. */
	void includeQueued() {
		this.takeUntil = this.incoming.newest();
	}

	/** New timeouts taken since the worker last woke: many make a stream. */
	long takenSinceWake() {
		return this.takenSinceWake;
	}

	/**
	 * Takes the cancellations that were there when the worker woke, a batch at a time: later ones
	 * wait for its next wake-up, within about a tick (see TimerWorker.sleep), rather than have it
	 * chase the cancelling threads.
	 * @return whether more of those wait than one batch took
	 */
	boolean takeCancellations() {
		for (int i = 0; i < TRANSFER_BATCH; i++) {
			HashedWheelTimeout timeout = this.cancellations.pollBefore(this.cancelledBefore);
			if (timeout == null) {
				return false;
			}
			if (timeout.isLinked()) {
				this.wheel.remove(timeout);
			}
			// Unless its cancel came as the worker took it, and the take told the task already.
			tellCancelled(timeout);
		}
		return this.cancellations.hasBefore(this.cancelledBefore);
	}

	/**
	 * Takes new timeouts up to {@code takeUntil}, a batch at a time, into the wheel. Each run of
	 * {@link #MARK_BATCH} is marked taken, fenced once, then placed by its state (see WheelNode):
	 * a timeout a cancel left to the take has its task told here.
	 * @return whether more of those wait than one batch took
	 */
	boolean takeNew() {
		WheelNode until = this.takeUntil;
		if (until == null) {
			return false;
		}
		HashedWheelTimeout[] marked = this.marked;
		boolean overdueBegun = false;
		long hand = this.wheel.hand();
		int taken = 0;
		boolean reached = false;
		while (!reached && taken < TRANSFER_BATCH) {
			int count = 0;
			while (count < MARK_BATCH && taken + count < TRANSFER_BATCH) {
				WheelNode node = this.incoming.pollUpTo(until);
				if (node == null) {
					reached = true;
					break;
				}
				node.prev = WheelNode.DETACHED;
				marked[count++] = (HashedWheelTimeout) node;
				if (node == until) {
					reached = true;
					break;
				}
			}
			// The marks before the states: a cancel that did not see its timeout's mark is seen here.
			VarHandle.fullFence();
			for (int i = 0; i < count; i++) {
				HashedWheelTimeout timeout = marked[i];
				marked[i] = null;
				overdueBegun |= place(timeout, hand, overdueBegun);
			}
			taken += count;
		}
		this.takenSinceWake += taken;
		this.firing.endOverdue();
		if (reached) {
			this.takeUntil = null;
			return false;
		}
		return true;
	}

	/**
	 * Puts a timeout just taken into the wheel, or fires it if overdue, or lets it go if it is
	 * cancelled (telling its task) or was taken back by its scheduler.
	 * @return whether this began the batch of overdue fires
	 */
	private boolean place(HashedWheelTimeout timeout, long hand, boolean overdueBegun) {
		if (!timeout.isPending()) {
			timeout.next = null;
			if (timeout.isCancelledByCaller()) {
				// Whether or not its cancel also queued it: that entry finds the task told.
				tellCancelled(timeout);
			}
			return false;
		}
		// One division per timeout: the tick decides both "overdue?" and the place.
		long tick = this.wheel.tickOf(timeout.deadline);
		if (tick >= hand) {
			// add() sets the links the queue left in the node.
			this.wheel.add(timeout, tick);
			return false;
		}
		// Overdue on arrival (a delay of zero, or a busy worker).
		timeout.next = null;
		if (!overdueBegun) {
			this.firing.beginOverdue();
		}
		this.firing.fire(timeout);
		return !overdueBegun;
	}

	/**
	 * Cancels every timeout that has not run, for the stop report, and tells the tasks of those
	 * their callers cancelled. Called once the timer is stopping, by the thread that owns the
	 * wheel: the worker as it ends, or the thread whose start of the worker failed (then the wheel
	 * is empty and only the queues hold timeouts).
	 */
	Set<Timeout> collectUnprocessed() {
		Set<Timeout> unprocessed = Collections.newSetFromMap(new IdentityHashMap<>());
		// A take that threw (the worker ends on it) left these marked and fenced, not placed.
		for (int i = 0; i < MARK_BATCH; i++) {
			HashedWheelTimeout timeout = this.marked[i];
			if (timeout != null) {
				this.marked[i] = null;
				timeout.next = null;
				collectOrTell(timeout, unprocessed);
			}
		}
		WheelNode node;
		while ((node = this.incoming.pollOrWait()) != null) {
			// Taken as takeNew takes, so that a timeout cancelled in the queue is told here, once.
			node.next = null;
			node.prev = WheelNode.DETACHED;
			VarHandle.fullFence();
			collectOrTell((HashedWheelTimeout) node, unprocessed);
		}
		// A cancelled one still linked is told here, should its cancel not have queued it yet.
		this.wheel.removeAll((timeout) -> collectOrTell(timeout, unprocessed));
		// Last, so that what a cancel queued before the stop is told too.
		HashedWheelTimeout cancelled;
		while ((cancelled = this.cancellations.poll()) != null) {
			tellCancelled(cancelled);
		}
		this.counters.unprocessed(unprocessed.size());
		this.timer.released(unprocessed.size());
		return unprocessed;
	}

	/** Puts a pending timeout in the stop report, or tells the task of one its caller cancelled. */
	private static void collectOrTell(HashedWheelTimeout timeout, Set<Timeout> unprocessed) {
		if (timeout.cancelWithoutNotice()) {
			unprocessed.add(timeout);
		}
		else if (timeout.isCancelledByCaller()) {
			tellCancelled(timeout);
		}
	}

	/**
	 * Tells a cancelled timeout's task, on the thread that owns the wheel, once it has left it;
	 * once only, as the take and the cancellations' queue may both meet it ({@link WheelNode#NOTIFIED}).
	 */
	private static void tellCancelled(HashedWheelTimeout timeout) {
		if (timeout.prev == WheelNode.NOTIFIED) {
			return;
		}
		timeout.prev = WheelNode.NOTIFIED;
		try {
			timeout.task.cancelled(timeout);
		}
		catch (Throwable ex) {
			HashedWheelTimer.warn(() -> "Task of " + timeout + " threw when told it was cancelled", ex);
		}
	}

}
