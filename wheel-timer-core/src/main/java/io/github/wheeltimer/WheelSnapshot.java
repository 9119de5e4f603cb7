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
 * nanoseconds apart. The counters always add up: {@code scheduled = expired + failed + cancelled
 * + unprocessed + running + pendingTimeouts}.
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
 * @param buckets the buckets that hold timeouts, in bucket order
 * @param worker the worker thread
 */
public record WheelSnapshot(State state, Duration tickDuration, int ticksPerWheel, long tick, long pendingTimeouts,
		long maxPendingTimeouts, Counters counters, Duration tickLag, Duration maxTickLag, List<Bucket> buckets,
		Worker worker) {

	public WheelSnapshot {
		Objects.requireNonNull(state, "state must not be null");
		Objects.requireNonNull(tickDuration, "tickDuration must not be null");
		Objects.requireNonNull(counters, "counters must not be null");
		Objects.requireNonNull(tickLag, "tickLag must not be null");
		Objects.requireNonNull(maxTickLag, "maxTickLag must not be null");
		Objects.requireNonNull(worker, "worker must not be null");
		buckets = List.copyOf(buckets);
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
	 * {@code scheduled} and, in the end, once in exactly one of {@code expired}, {@code failed},
	 * {@code cancelled} or {@code unprocessed}; until then it is pending or running.
	 *
	 * @param scheduled timeouts accepted
	 * @param expired timeouts whose task ran and returned normally
	 * @param failed timeouts whose task threw, or that the task executor refused
	 * @param cancelled timeouts cancelled by their caller
	 * @param rejected calls refused because the timer was stopped or full (never counted as scheduled)
	 * @param running timeouts whose task was handed to run and has not finished
	 * @param unprocessed timeouts still pending when the timer stopped, cancelled and returned by the stop
	 * @param lateness how late the timeouts that fired ({@code expired + failed + running}) were
	 * handed to run, each relative to its deadline, added up: divided by their number, the mean
	 * lateness, which is about half a tick on a timer that keeps up. Up to 32 fires in a row share
	 * one clock reading, taken after them: when a task running on the worker thread holds it up,
	 * the few fired just before it in that batch count as late as those after it (the sum errs
	 * late, never early)
	 */
	public record Counters(long scheduled, long expired, long failed, long cancelled, long rejected, long running,
			long unprocessed, Duration lateness) {

		public Counters {
			Objects.requireNonNull(lateness, "lateness must not be null");
		}

		/**
		 * Returns how many timeouts fired: their deadline passed and they were handed to run.
		 * @return {@code expired + failed + running}
		 */
		public long fired() {
			return this.expired + this.failed + this.running;
		}

	}

	/**
	 * One bucket that holds timeouts.
	 *
	 * @param index the bucket's position, from 0 to {@code ticksPerWheel - 1}
	 * @param timeouts how many timeouts it holds
	 * @param minRemainingRounds full revolutions the hand makes before the soonest of them fires
	 * (0: on its next pass)
	 * @param maxRemainingRounds revolutions before the latest of them fires; after cancellations it
	 * may be an overestimate until the hand next passes the bucket
	 */
	public record Bucket(int index, int timeouts, long minRemainingRounds, long maxRemainingRounds) {
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
