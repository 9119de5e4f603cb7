package io.github.wheeltimer;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What a {@link HashedWheelTimer} is doing, read at one moment: the one place the timer is read
 * from, by the Actuator endpoint, the health indicator and the metrics alike.
 *
 * <p>Taking a snapshot never blocks the timer's worker and is safe from any thread at any rate.
 * Each number is exact when the timer is quiescent (no call in progress, no task running);
 * while it is busy, each number is one the timer really had, but two numbers may be read a few
 * nanoseconds apart. The counters always add up: {@code scheduled = completed + failed + withdrawn
 * + cancelled + unprocessed + running + pendingTimeouts}.
 *
 * @param state the lifecycle state
 * @param tickDuration the length of one tick
 * @param ticksPerWheel the number of buckets, a power of two
 * @param tick the tick the hand is on: the number of whole ticks since the timer was created
 * @param pendingTimeouts timeouts accepted that have neither run nor been cancelled
 * @param maxPendingTimeouts the limit on pending timeouts; 0 when unlimited
 * @param counters what happened to the timeouts so far
 * @param tickLag how far behind the worker is now: how long ago the earliest tick that holds a due
 * timeout ended, if the worker has not processed it yet; zero while it keeps up
 * @param maxTickLag the largest lag so far: how late the worker, at worst, began to process a tick
 * that had timeouts due, or how much longer than a tick one pass of its work lasted
 * @param levels the wheel's levels, the finest first: level 0 is the ring of {@code ticksPerWheel}
 * buckets of one tick each; each level above has 64 slots, each spanning a whole turn of the level
 * below. They hold the timeouts the worker has taken in: a new timeout that can wait is counted in
 * {@code pendingTimeouts} at once, and in a level once the worker takes it from its queue (within
 * 16 ticks; see {@link HashedWheelTimer})
 * @param worker the worker thread
 */
public record WheelSnapshot(State state, Duration tickDuration, int ticksPerWheel, long tick, long pendingTimeouts,
		long maxPendingTimeouts, Counters counters, Duration tickLag, Duration maxTickLag, List<Level> levels,
		Worker worker) {

	public WheelSnapshot {
		Objects.requireNonNull(state, "state must not be null");
		Objects.requireNonNull(tickDuration, "tickDuration must not be null");
		Objects.requireNonNull(counters, "counters must not be null");
		Objects.requireNonNull(tickLag, "tickLag must not be null");
		Objects.requireNonNull(maxTickLag, "maxTickLag must not be null");
		Objects.requireNonNull(worker, "worker must not be null");
		levels = List.copyOf(levels);
	}

	/**
	 * Returns the buckets that hold timeouts: level 0's occupied slots, in bucket order.
	 * @return the occupied buckets
	 */
	public List<Slot> buckets() {
		return this.levels.isEmpty() ? List.of() : this.levels.get(0).occupied();
	}

	/**
	 * Returns how many timeouts have moved down from an upper level to a finer one so far, each
	 * move counted once: a timeout moves at most once per level on its way to level 0.
	 * @return the moves, over all levels
	 */
	public long moves() {
		long moves = 0;
		for (Level level : this.levels) {
			moves += level.moves();
		}
		return moves;
	}

	/**
	 * Returns the bucket the hand points at.
	 * @return {@code tick} modulo {@code ticksPerWheel}
	 */
	public int hand() {
		return (int) (this.tick & (this.ticksPerWheel - 1));
	}

	/**
	 * The lifecycle of a timer.
	 */
	public enum State {

		/** Created; the worker starts on the first timeout or on {@code start()}. */
		INIT,

		/** Accepting timeouts; the worker is running. */
		STARTED,

		/** Stopped, or stopping: no timeout is accepted; due ones may still fire during a drain. */
		SHUTDOWN

	}

	/**
	 * What happened to the timeouts a timer was given. Each accepted timeout is counted once in
	 * {@code scheduled} and, in the end, once in exactly one of {@code completed}, {@code failed},
	 * {@code withdrawn}, {@code cancelled} or {@code unprocessed}; until then it is pending or
	 * running. A task that {@linkplain HashedWheelTimer#handOff(Timeout) hands its work off} counts
	 * as its work ended, and as running until then.
	 *
	 * @param scheduled timeouts accepted, and tasks {@linkplain HashedWheelTimer#runDue(TimerTask) run at once}
	 * @param completed timeouts whose task ran and returned normally (for a task that handed its work
	 * off: whose work did)
	 * @param failed timeouts whose task threw, or that the task executor refused (for a task that
	 * handed its work off: whose work threw, or could not start)
	 * @param withdrawn timeouts whose task handed its work off, and whose work was then given up
	 * before it ran, or went back where it came from
	 * @param cancelled timeouts cancelled by their caller
	 * @param rejected calls refused because the timer was stopped or full (never counted as scheduled)
	 * @param running timeouts whose task was handed to run and has not finished (for a task that
	 * handed its work off: whose work has not said how it ended)
	 * @param unprocessed timeouts still pending when the timer stopped, cancelled and returned by the stop
	 * @param lateness how late the timeouts that fired ({@link #fired()}) were handed to run, each
	 * relative to its deadline, added up: divided by their number, the mean lateness, which is about
	 * half a tick on a timer that keeps up (a task run at once adds none). Up to 32 fires in a row
	 * share one clock reading, taken after them: when a task running on the worker thread holds it
	 * up, the few fired just before it in that batch count as late as those after it (the sum errs
	 * late, never early)
	 */
	public record Counters(long scheduled, long completed, long failed, long withdrawn, long cancelled, long rejected,
			long running, long unprocessed, Duration lateness) {

		public Counters {
			Objects.requireNonNull(lateness, "lateness must not be null");
		}

		/**
		 * Returns how many timeouts fired: their deadline passed and they were handed to run (or they
		 * were run at once).
		 * @return {@code completed + failed + withdrawn + running}
		 */
		public long fired() {
			return this.completed + this.failed + this.withdrawn + this.running;
		}

	}

	/**
	 * One level of the wheel. Level 0 fires: a timeout whose tick is in the turn of the wheel the
	 * hand is on sits in the bucket of that tick. A timeout further away waits in the slot of an
	 * upper level that holds its deadline, and moves down, re-filed by its own deadline, when the
	 * hand reaches the start of that slot: far timeouts cost nothing while they wait.
	 *
	 * @param index 0 for the buckets, 1 and up for the coarser levels
	 * @param slotSpan how much time one slot covers: a tick at level 0; at level 1, a whole turn of
	 * level 0; 64 times the span of the level below above that
	 * @param slots how many slots the level has: {@code ticksPerWheel} at level 0, 64 above
	 * @param hand the slot the hand is in at this level
	 * @param timeouts how many timeouts the level holds
	 * @param nextDue how long until the earliest of them is due (negative if overdue), or
	 * {@code null} when the level is empty; after cancellations an upper level may report it early
	 * until its slot moves down
	 * @param moves how many timeouts have moved down from this level so far (0 at level 0)
	 * @param occupied the slots that hold timeouts, in slot order
	 */
	public record Level(int index, Duration slotSpan, int slots, int hand, long timeouts, Duration nextDue, long moves,
			List<Slot> occupied) {

		public Level {
			Objects.requireNonNull(slotSpan, "slotSpan must not be null");
			occupied = List.copyOf(occupied);
		}

	}

	/**
	 * One slot that holds timeouts: at level 0, a bucket.
	 *
	 * @param index the slot's position in its level, from 0 to {@code slots - 1}
	 * @param timeouts how many timeouts it holds
	 * @param dueIn how long until the earliest of them is due (negative if overdue): at level 0 the
	 * end of the bucket's tick, when the bucket fires; above, after cancellations, possibly early
	 * until the slot moves down
	 */
	public record Slot(int index, int timeouts, Duration dueIn) {

		public Slot {
			Objects.requireNonNull(dueIn, "dueIn must not be null");
		}

	}

	/**
	 * The worker thread.
	 *
	 * @param name the thread's name, or {@code null} before it was started
	 * @param alive whether the thread is running
	 * @param failure what ended the thread abnormally, or {@code null}: a timer whose worker died
	 * fires nothing more and should be replaced
	 */
	public record Worker(String name, boolean alive, String failure) {
	}

}
