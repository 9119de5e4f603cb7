package io.github.wheeltimer.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;

import io.github.wheeltimer.Ticker;

/**
 * A virtual clock for one timer, moved event by event by one driving thread, that also times the
 * timer's worker: each <em>pass</em>, from the moment the worker returns from a park until it
 * parks again, is measured in wall-clock time ({@link System#nanoTime()}) and in the worker's CPU
 * time, and kept. The CPU time tells a pass that worked long from one that was descheduled (on a
 * machine shared with others, the worst wall-clock pass is often the latter). Reading it costs a
 * system call (well under a microsecond) at each end of a pass, which the worker's CPU time
 * includes.
 * <p>
 * Why not {@code VirtualTicker} (module {@code wheel-timer-test})? It is made for tests: every move
 * of its clock signals every parked thread, which wakes and looks at the clock again, and each
 * advance checks that all workers have settled under a lock. Row H2 moves the clock tens of
 * millions of times (once per new near timeout, every 100 virtual microseconds for 30 virtual
 * minutes), almost always while the worker sleeps until a later tick: waking the worker for each
 * would swamp the passes it measures with passes the real clock never causes. Here the worker is
 * woken only when the clock reaches the time it asked for, or when the timer unparks it (a new
 * timeout while it sleeps armed, a stop).
 * <p>
 * Protocol: one atomic word, {@code state}, holds the worker's state: {@link #RUNNING}; running
 * with an unpark pending ({@link #PERMIT}); or parked, as the virtual time it waits for (zero or
 * more: virtual time starts at zero). The worker parks with one CAS from {@link #RUNNING} to that
 * time, or takes a pending permit and goes on; a waker (an unpark, or a move of the clock that
 * reaches the time) flips a parked state to {@link #RUNNING} with a CAS, and whoever wins it wakes
 * the worker, once. No state is ever seen as parked by mistake, so the driver moves the clock only
 * while the worker is really parked ({@link #awaitParked()} first): the worker is never between
 * reading the clock and parking when it moves, and a park ends exactly at the time the worker
 * computed. Only one worker may park on a ticker, and only one thread drives it.
 */
final class DrivenTicker implements Ticker {

	private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

	/** {@code state} while the worker works (or has not parked yet). */
	private static final long RUNNING = Long.MIN_VALUE;

	/** {@code state} while the worker works and an unpark came meanwhile: its next park returns at once. */
	private static final long PERMIT = Long.MIN_VALUE + 1;

	/** How often the driver looks before it blocks: a pass often ends within microseconds. */
	private static final int SPINS = 200;

	private volatile long now;

	/** {@link #RUNNING}, {@link #PERMIT}, or the virtual time the parked worker waits for. */
	private final AtomicLong state = new AtomicLong(RUNNING);

	private volatile Thread worker;

	private volatile Thread driver;

	/** While set, an unpark only leaves {@link #heldPermit}: the driver passes it on at {@link #release()}. */
	private volatile boolean holding;

	private volatile boolean heldPermit;

	// Written by the worker only; read by the driver while the worker is parked (the CAS that
	// parks it publishes them, and the driver reads state before them).

	/** Whether a pass is being timed: not during the worker's start-up, before its first park. */
	private boolean inPass;

	/** Wall-clock start of the current pass. */
	private long passStartedAt;

	/** The worker's CPU time at the start of the current pass. */
	private long passCpuAtStart;

	/** Virtual time at which the current pass started. */
	private long passVirtualStart;

	/** Wall-clock length of each pass, in nanoseconds, in the order they ran. */
	private long[] passes = new long[1 << 16];

	/** The worker's CPU time in each pass, in nanoseconds. */
	private long[] passCpu = new long[1 << 16];

	/** The virtual time at which each pass started. */
	private long[] passStarts = new long[1 << 16];

	private int passCount;

	@Override
	public long nanoTime() {
		return this.now;
	}

	/**
	 * Called by the worker. A park that returns at once (no wait asked for, or an unpark came
	 * first) does not end the pass: the worker never stopped working.
	 */
	@Override
	public void park(long nanos) {
		if (nanos <= 0) {
			return;
		}
		Thread current = Thread.currentThread();
		this.worker = current;
		long now = this.now;
		long until = (nanos >= Long.MAX_VALUE - now) ? Long.MAX_VALUE : now + nanos;
		// Recorded before the CAS that parks, which publishes it to the driver; taken back if an
		// unpark was pending.
		boolean timed = this.inPass;
		if (timed) {
			endPass();
		}
		while (true) {
			long state = this.state.get();
			if (state == PERMIT) {
				if (this.state.compareAndSet(PERMIT, RUNNING)) {
					if (timed) {
						this.passCount--;
					}
					return;
				}
			}
			else if (this.state.compareAndSet(RUNNING, until)) {
				break;
			}
		}
		Thread driver = this.driver;
		if (driver != null) {
			LockSupport.unpark(driver);
		}
		while (this.state.get() != RUNNING) {
			LockSupport.park(this);
			if (current.isInterrupted() && this.state.compareAndSet(until, RUNNING)) {
				break;
			}
		}
		startPass();
	}

	@Override
	public void unpark(Thread thread) {
		if (thread == null) {
			return;
		}
		if (this.holding) {
			this.heldPermit = true;
			return;
		}
		wake();
	}

	/** Wakes the worker if it is parked, else leaves it a permit. */
	private void wake() {
		while (true) {
			long state = this.state.get();
			if (state == PERMIT || (state == RUNNING && this.state.compareAndSet(RUNNING, PERMIT))) {
				return;
			}
			if (state >= 0 && this.state.compareAndSet(state, RUNNING)) {
				LockSupport.unpark(this.worker);
				return;
			}
		}
	}

	/**
	 * Driver only, while the worker is parked and no other thread schedules or cancels: from now
	 * until {@link #release()}, the timer's unparks do not wake the worker, so that what the driver
	 * does meanwhile, such as scheduling a burst, reaches the worker all at once, as if it had
	 * happened in one instant.
	 */
	void hold() {
		this.holding = true;
	}

	/** Driver only: ends a {@link #hold()}, and passes on the unpark that came meanwhile, if any. */
	void release() {
		this.holding = false;
		if (this.heldPermit) {
			this.heldPermit = false;
			wake();
		}
	}

	/**
	 * Makes the calling thread the driver: the one thread that moves the clock, and that the worker
	 * wakes when it parks.
	 */
	void drivenFromHere() {
		this.driver = Thread.currentThread();
	}

	/** Driver only: waits until the worker has parked (it may be working at the current time). */
	void awaitParked() {
		for (int i = 0; i < SPINS; i++) {
			if (this.state.get() >= 0) {
				return;
			}
			Thread.onSpinWait();
		}
		while (this.state.get() < 0) {
			LockSupport.park(this);
		}
	}

	/**
	 * Driver only, once {@link #awaitParked()} returned: the virtual time the worker waits for,
	 * {@link Long#MAX_VALUE} when it waits without limit (nothing pending).
	 */
	long wakeUpAt() {
		return this.state.get();
	}

	/**
	 * Driver only, once {@link #awaitParked()} returned: moves the clock to {@code time} (not before
	 * the current time), and wakes the worker if that is the time it waits for, or later.
	 */
	void moveTo(long time) {
		if (time < this.now) {
			throw new IllegalArgumentException("virtual time cannot go back from " + this.now + " to " + time);
		}
		this.now = time;
		long until = this.state.get();
		if (until >= 0 && time >= until && this.state.compareAndSet(until, RUNNING)) {
			LockSupport.unpark(this.worker);
		}
	}

	private void startPass() {
		this.inPass = true;
		this.passVirtualStart = this.now;
		this.passCpuAtStart = THREADS.getCurrentThreadCpuTime();
		this.passStartedAt = System.nanoTime();
	}

	private void endPass() {
		long length = System.nanoTime() - this.passStartedAt;
		long cpu = THREADS.getCurrentThreadCpuTime() - this.passCpuAtStart;
		if (this.passCount == this.passes.length) {
			this.passes = Arrays.copyOf(this.passes, this.passCount * 2);
			this.passCpu = Arrays.copyOf(this.passCpu, this.passCount * 2);
			this.passStarts = Arrays.copyOf(this.passStarts, this.passCount * 2);
		}
		this.passes[this.passCount] = length;
		this.passCpu[this.passCount] = cpu;
		this.passStarts[this.passCount] = this.passVirtualStart;
		this.passCount++;
	}

	/** Driver only, while the worker is parked: the passes so far. */
	Passes passes() {
		return new Passes(Arrays.copyOf(this.passes, this.passCount), Arrays.copyOf(this.passCpu, this.passCount),
				Arrays.copyOf(this.passStarts, this.passCount));
	}

	/**
	 * The worker's passes.
	 *
	 * @param lengths the wall-clock length of each, in nanoseconds
	 * @param cpu the worker's CPU time in each, in nanoseconds
	 * @param virtualStarts the virtual time at which each started
	 */
	record Passes(long[] lengths, long[] cpu, long[] virtualStarts) {

		int count() {
			return this.lengths.length;
		}

		/**
		 * The index of the pass that started at or after {@code virtualFrom} and before
		 * {@code virtualTo} with the largest of {@code figures} (the lengths or the CPU times), or
		 * -1 if none did.
		 */
		int worst(long[] figures, long virtualFrom, long virtualTo) {
			int worst = -1;
			for (int i = 0; i < figures.length; i++) {
				if (this.virtualStarts[i] >= virtualFrom && this.virtualStarts[i] < virtualTo
						&& (worst < 0 || figures[i] > figures[worst])) {
					worst = i;
				}
			}
			return worst;
		}

		/** Nearest-rank percentile of the lengths of the passes from {@code virtualFrom} on, in ns. */
		long percentileFrom(long virtualFrom, double fraction) {
			long[] sorted = IntStream.range(0, this.lengths.length)
				.filter((i) -> this.virtualStarts[i] >= virtualFrom)
				.mapToLong((i) -> this.lengths[i])
				.sorted()
				.toArray();
			if (sorted.length == 0) {
				return 0;
			}
			int rank = (int) Math.ceil(fraction * sorted.length);
			return sorted[Math.max(0, rank - 1)];
		}

	}

}
