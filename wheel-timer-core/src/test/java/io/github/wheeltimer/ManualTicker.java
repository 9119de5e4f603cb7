package io.github.wheeltimer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A clock that only moves when a test says so. Threads parked on it wake when their time comes,
 * when unparked, or when interrupted, like {@link java.util.concurrent.locks.LockSupport}. A park
 * of {@code n} nanoseconds lasts until {@code n} after the parking thread last read the clock.
 *
 * <p>{@link #awaitIdle()} is what makes negative assertions safe without sleeping: it returns
 * once some thread (the timer's worker) is parked with nothing to wake it at the current time, so
 * everything due up to now has been done.
 */
final class ManualTicker implements Ticker {

	private static final long IDLE_WAIT_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(10);

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition changed = this.lock.newCondition();

	private long now;

	/** Parked threads and the ticker time they wait for; {@code null} means for ever. */
	private final Map<Thread, Long> parked = new HashMap<>();

	private final Set<Thread> permits = new HashSet<>();

	private final List<Long> parkRequests = new ArrayList<>();

	/** Each thread's last reading: a park counts from there, as if it were a deadline. */
	private final Map<Thread, Long> lastReading = new HashMap<>();

	ManualTicker(long start) {
		this.now = start;
	}

	/** Starts near the end of the long range, so that every test also crosses the wrap-around. */
	ManualTicker() {
		this(Long.MAX_VALUE - TimeUnit.MINUTES.toNanos(1));
	}

	@Override
	public long nanoTime() {
		this.lock.lock();
		try {
			this.lastReading.put(Thread.currentThread(), this.now);
			return this.now;
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public void park(long nanos) {
		Thread current = Thread.currentThread();
		this.lock.lock();
		try {
			this.parkRequests.add(nanos);
			if (this.permits.remove(current) || nanos <= 0) {
				return;
			}
			// The caller computed nanos from its last reading; the test may have moved the clock
			// since. Counting from that reading models an ideal sleep, which the real clock
			// approaches to within the few microseconds between reading and parking.
			Long until = (nanos == Long.MAX_VALUE) ? null : this.lastReading.getOrDefault(current, this.now) + nanos;
			this.parked.put(current, until);
			this.changed.signalAll();
			while (!this.permits.contains(current) && !current.isInterrupted()
					&& (until == null || this.now - until < 0)) {
				this.changed.await();
			}
		}
		catch (InterruptedException ex) {
			current.interrupt();
		}
		finally {
			this.permits.remove(current);
			this.parked.remove(current);
			this.changed.signalAll();
			this.lock.unlock();
		}
	}

	@Override
	public void unpark(Thread thread) {
		if (thread == null) {
			return;
		}
		this.lock.lock();
		try {
			this.permits.add(thread);
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	void advance(Duration duration) {
		this.lock.lock();
		try {
			this.now += duration.toNanos();
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Advances time in steps of {@code step}, waiting for the worker to go idle after each, so
	 * that the timer sees every tick boundary as it would in real time.
	 */
	void advanceInSteps(Duration total, Duration step) {
		for (long done = 0; done < total.toNanos(); done += step.toNanos()) {
			advance(step);
			awaitIdle();
		}
	}

	/** Waits (in real time, bounded) until a parked thread has nothing to wake it now. */
	void awaitIdle() {
		this.lock.lock();
		try {
			long remaining = IDLE_WAIT_LIMIT_NANOS;
			while (!isSomeThreadIdle()) {
				if (remaining <= 0) {
					throw new AssertionError("The timer's worker did not go idle within 10s; parked: " + this.parked);
				}
				remaining = this.changed.awaitNanos(remaining);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new AssertionError("Interrupted while waiting for the worker to go idle", ex);
		}
		finally {
			this.lock.unlock();
		}
	}

	private boolean isSomeThreadIdle() {
		for (Map.Entry<Thread, Long> entry : this.parked.entrySet()) {
			Long until = entry.getValue();
			if (!this.permits.contains(entry.getKey()) && (until == null || this.now - until < 0)) {
				return true;
			}
		}
		return false;
	}

	/** How long, in ticker time, the idle thread will sleep; {@code null} for ever. */
	Duration idleSleepRemaining() {
		this.lock.lock();
		try {
			for (Long until : this.parked.values()) {
				return (until == null) ? null : Duration.ofNanos(until - this.now);
			}
			throw new AssertionError("No thread is parked");
		}
		finally {
			this.lock.unlock();
		}
	}

	int parkCount() {
		this.lock.lock();
		try {
			return this.parkRequests.size();
		}
		finally {
			this.lock.unlock();
		}
	}

}
