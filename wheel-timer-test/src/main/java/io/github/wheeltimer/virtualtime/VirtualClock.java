package io.github.wheeltimer.virtualtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link VirtualTicker}'s virtual time and the threads that wait for it: the state its workers
 * and its advancing thread meet at, all under one lock. Workers park here and are unparked; the
 * advancing thread waits here for them to settle, and moves the time.
 */
final class VirtualClock {

	/** The wake-up time of a park without limit: an advance never takes virtual time there. */
	static final long FOREVER = Long.MAX_VALUE;

	/** Generations count up from zero: this one is never seen. */
	static final long TIMED_OUT = -1;

	/** A worker that ends (its timer stopped) does not signal: waits for the workers look again this often. */
	private static final long RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	private static final int STACK_FRAMES_SHOWN = 8;

	/*
	 * Threads and state
	 * -----------------
	 * The lock guards parked (who waits, and until which virtual time), permits (unparks not yet
	 * consumed), workers (every thread to see parked before time may move) and generation. Every
	 * change to any of them, and every move of the clock, increments generation and signals
	 * parkingChanged: parked threads wait on it for their time or their permit, and the advancing
	 * thread waits on it for the workers to park.
	 *
	 * now is written only by the advancing thread, under the lock, and only once the workers have
	 * settled: each is parked, with no permit, waiting for a later time. So no worker is between
	 * reading the clock and parking when the clock moves, and the end of a park (now at the park
	 * plus its nanos) is exactly the wake-up time the worker computed from its own reading. It is
	 * volatile so that nanoTime, the workers' most frequent call, takes no lock. A task running on
	 * a worker keeps that worker unsettled, so the clock cannot move under it: each task reads the
	 * time of its own tick. (jump, for tearing down only, moves it without waiting.)
	 *
	 * Virtual time starts at zero and an advance may not take it to Long.MAX_VALUE, so it never
	 * wraps: a park that would end past that is a park for ever, and times compare with plain <.
	 */

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition parkingChanged = this.lock.newCondition();

	private volatile long now;

	/** Parked threads, each with the virtual time it waits for; {@link #FOREVER} for no limit. */
	private final Map<Thread, Long> parked = new HashMap<>();

	private final Set<Thread> permits = new HashSet<>();

	/** Attached, or parked here at least once; dead ones are dropped when next looked at. */
	private final Set<Thread> workers = new LinkedHashSet<>();

	private long generation;

	/** How {@link VirtualClock#moveTowards} ended. */
	enum Step {

		/** The clock moved. */
		MOVED,

		/**
		 * Nothing to move to: the clock stands at the target with nothing due up to it, or every
		 * worker waits without limit.
		 */
		STAYED,

		/** Something parked, woke or was unparked since the workers settled: settle again. */
		UNSETTLED

	}

	/** Any thread, without the lock. */
	long now() {
		return this.now;
	}

	/** See {@link VirtualTicker#park(long)}. */
	void park(long nanos) {
		Thread current = Thread.currentThread();
		this.lock.lock();
		try {
			if (this.permits.remove(current)) {
				changed();
				return;
			}
			if (current.isInterrupted()) {
				return;
			}
			long wakeUpAt = (nanos >= FOREVER - this.now) ? FOREVER : this.now + nanos;
			this.workers.add(current);
			this.parked.put(current, wakeUpAt);
			changed();
			try {
				while (!this.permits.contains(current) && this.now < wakeUpAt) {
					this.parkingChanged.await();
				}
			}
			catch (InterruptedException ex) {
				current.interrupt();
			}
			finally {
				this.permits.remove(current);
				this.parked.remove(current);
				changed();
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/** See {@link VirtualTicker#unpark(Thread)}; {@code thread} is not {@code null}. */
	void unpark(Thread thread) {
		this.lock.lock();
		try {
			this.permits.add(thread);
			changed();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Makes {@code worker} one of the threads an advance must see parked. */
	void attach(Thread worker) {
		this.lock.lock();
		try {
			this.workers.add(worker);
			changed();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Whether {@code thread} has been attached or has parked here: it must not wait for an advance. */
	boolean isWorker(Thread thread) {
		this.lock.lock();
		try {
			return this.workers.contains(thread);
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * The virtual time {@code amount} after now. Called by the advancing thread, the one that
	 * moves the clock in an advance, or under the lock (jump): now cannot move under it.
	 * @throws IllegalArgumentException if it would reach {@link Long#MAX_VALUE}
	 */
	long targetAfter(Duration amount) {
		long left = FOREVER - 1 - this.now;
		long nanos;
		try {
			nanos = amount.toNanos();
		}
		catch (ArithmeticException overflow) {
			nanos = FOREVER;
		}
		if (nanos > left) {
			throw new IllegalArgumentException("amount must be at most " + Duration.ofNanos(left)
					+ " (virtual time stays below Long.MAX_VALUE nanoseconds, about 292 years), was " + amount);
		}
		return this.now + nanos;
	}

	/**
	 * Moves the clock to the earliest wake-up of a parked worker if it is at or before
	 * {@code target}, else to {@code target}, in one hold of the lock, if nothing parked, woke or
	 * was unparked since the workers settled at {@code settledGeneration}: a thread that schedules
	 * from outside meanwhile wakes a worker, and the clock must not move under a worker that is
	 * running. Only the advancing thread calls this.
	 * @param target how far to move at most; {@link #FOREVER} for "to the next wake-up, if any"
	 */
	Step moveTowards(long target, long settledGeneration) {
		this.lock.lock();
		try {
			if (this.generation != settledGeneration || !areWorkersSettled()) {
				return Step.UNSETTLED;
			}
			long next = Math.min(earliestWakeUpLocked(), target);
			if (next == this.now || next == FOREVER) {
				return Step.STAYED;
			}
			this.now = next;
			changed();
			return Step.MOVED;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Moves the clock {@code amount} ahead at once, waking every parked thread whose time has
	 * come, without waiting for anything to settle. See {@link VirtualTicker#jump(Duration)}.
	 */
	void jump(Duration amount) {
		this.lock.lock();
		try {
			this.now = targetAfter(amount);
			changed();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Lock held. */
	private void changed() {
		this.generation++;
		this.parkingChanged.signalAll();
	}

	/**
	 * The earliest virtual time a parked thread waits for; {@link #FOREVER} if none waits for a
	 * time. Called once the workers have settled, so no parked thread holds a permit.
	 */
	long earliestWakeUp() {
		this.lock.lock();
		try {
			return earliestWakeUpLocked();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Lock held. */
	private long earliestWakeUpLocked() {
		long earliest = FOREVER;
		for (long wakeUpAt : this.parked.values()) {
			earliest = Math.min(earliest, wakeUpAt);
		}
		return earliest;
	}

	/**
	 * Waits, in real time and until {@code giveUpAt} at the latest, for the workers to settle at
	 * the current virtual time.
	 * @return the generation at which the workers were seen settled, or {@link #TIMED_OUT}
	 */
	long awaitSettledWorkers(long giveUpAt) throws InterruptedException {
		this.lock.lock();
		try {
			while (!areWorkersSettled()) {
				long remaining = giveUpAt - System.nanoTime();
				if (remaining <= 0) {
					return TIMED_OUT;
				}
				this.parkingChanged.awaitNanos(Math.min(remaining, RECHECK_NANOS));
			}
			return this.generation;
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Whether nothing parked, woke or was unparked since {@code settledGeneration}. */
	boolean isStill(long settledGeneration) {
		this.lock.lock();
		try {
			return this.generation == settledGeneration;
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Lock held. */
	private boolean areWorkersSettled() {
		for (Iterator<Thread> iterator = this.workers.iterator(); iterator.hasNext();) {
			Thread worker = iterator.next();
			if (!worker.isAlive()) {
				iterator.remove();
				this.permits.remove(worker);
				continue;
			}
			if (!isSettled(worker)) {
				return false;
			}
		}
		return true;
	}

	/** Lock held. */
	private boolean isSettled(Thread worker) {
		Long wakeUpAt = this.parked.get(worker);
		return wakeUpAt != null && wakeUpAt > this.now && !this.permits.contains(worker);
	}

	/** Each live worker that has not settled, with why and the top of its stack: for a stuck advance's message. */
	List<String> describeUnsettledWorkers() {
		List<String> busy = new ArrayList<>();
		this.lock.lock();
		try {
			for (Thread worker : this.workers) {
				if (worker.isAlive() && !isSettled(worker)) {
					busy.add(describeUnsettled(worker));
				}
			}
		}
		finally {
			this.lock.unlock();
		}
		return busy;
	}

	/** Lock held. */
	private String describeUnsettled(Thread worker) {
		Long wakeUpAt = this.parked.get(worker);
		String why;
		if (wakeUpAt == null) {
			why = "is not parked on this ticker";
		}
		else if (this.permits.contains(worker)) {
			why = "was unparked and has not parked again";
		}
		else {
			why = "woke at its wake-up time and has not parked again";
		}
		StringBuilder description = new StringBuilder("thread \"").append(worker.getName())
			.append("\" (")
			.append(worker.getState())
			.append(") ")
			.append(why);
		StackTraceElement[] stack = worker.getStackTrace();
		for (int i = 0; i < Math.min(stack.length, STACK_FRAMES_SHOWN); i++) {
			description.append("\n     at ").append(stack[i]);
		}
		if (stack.length > STACK_FRAMES_SHOWN) {
			description.append("\n     ...");
		}
		return description.toString();
	}

}
