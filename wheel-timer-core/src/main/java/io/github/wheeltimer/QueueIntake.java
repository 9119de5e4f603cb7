package io.github.wheeltimer;

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
		this.takeUntil = this.incoming.newest();
		this.cancelledBefore = this.cancellations.offeredCount();
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
			if (timeout.prev != null) {
				this.wheel.remove(timeout);
			}
			notifyCancelled(timeout);
		}
		return this.cancellations.hasBefore(this.cancelledBefore);
	}

	/**
	 * Takes new timeouts up to {@code takeUntil}, a batch at a time, into the wheel.
	 * @return whether more of those wait than one batch took
	 */
	boolean takeNew() {
		WheelNode until = this.takeUntil;
		if (until == null) {
			return false;
		}
		Firing firing = this.firing;
		boolean overdueBegun = false;
		long hand = this.wheel.hand();
		for (int i = 0; i < TRANSFER_BATCH; i++) {
			WheelNode node = this.incoming.pollUpTo(until);
			if (node == null) {
				break;
			}
			this.takenSinceWake++;
			HashedWheelTimeout timeout = (HashedWheelTimeout) node;
			if (!timeout.isPending()) {
				timeout.next = null;
			}
			else {
				// One division per timeout: the tick decides both "overdue?" and the place.
				long tick = this.wheel.tickOf(timeout.deadline);
				if (tick < hand) {
					// Overdue on arrival (a delay of zero, or a busy worker).
					timeout.next = null;
					if (!overdueBegun) {
						firing.beginOverdue();
						overdueBegun = true;
					}
					firing.fire(timeout);
				}
				else {
					// add() sets the links the queue left in the node.
					this.wheel.add(timeout, tick);
				}
			}
			if (node == until) {
				break;
			}
			if (i == TRANSFER_BATCH - 1) {
				firing.endOverdue();
				return true;
			}
		}
		this.takeUntil = null;
		firing.endOverdue();
		return false;
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
