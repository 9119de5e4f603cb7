package io.github.wheeltimer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The handshake that lets the worker sleep until the next due tick (or for ever) without missing
 * a new timeout, a cancellation or a question.
 *
 * <p>Before a sleep that ends later than the next tick boundary, the worker {@linkplain #arm()
 * arms}: it sets {@code armed = 1}, then checks its queues once more. A thread that enqueues
 * {@linkplain #ring() rings} after its enqueue: it reads {@code armed}, and whoever flips it
 * 1 -> 0 unparks the worker. Both sides write then read volatiles (Dekker), so either the worker
 * sees the new element or the enqueuer sees the flag: nothing waits longer than one tick to reach
 * the wheel. A sleep that ends at the next boundary is not armed: its elements are picked up there
 * anyway. A worker woken twice within one tick stops arming until the next tick, so a stream of
 * schedules or cancels costs at most a few wake-ups per tick, never one per call.
 *
 * <p>{@code armed} is shared; the suppression fields are the worker's.
 */
final class WorkerWakeUp {

	private static final VarHandle ARMED;

	static {
		try {
			ARMED = MethodHandles.lookup().findVarHandle(WorkerWakeUp.class, "armed", int.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final Ticker ticker;

	private volatile Thread worker;

	private volatile int armed;

	/** The tick in which the worker was last woken by a ring, to spot a second one. */
	private long lastRingTick = -1;

	/** The worker does not arm before this tick (it was rung awake twice in one tick). */
	private long suppressedUntil = -1;

	WorkerWakeUp(Ticker ticker) {
		this.ticker = ticker;
	}

	void attach(Thread worker) {
		this.worker = worker;
	}

	/** Any thread, after it enqueued something for the worker. */
	void ring() {
		if (this.armed != 0 && ARMED.compareAndSet(this, 1, 0)) {
			this.ticker.unpark(this.worker);
		}
	}

	/** Wakes the worker whatever it sleeps for: a stop. */
	void interrupt() {
		this.ticker.unpark(this.worker);
	}

	/** Worker: whether it may arm during {@code tick}, not being rung too often. */
	boolean mayArm(long tick) {
		return tick >= this.suppressedUntil;
	}

	/** Worker: arms; the caller must check its queues afterwards, and {@link #disarm()} if any has work. */
	void arm() {
		this.armed = 1;
	}

	void disarm() {
		this.armed = 0;
	}

	/**
	 * Worker, after an armed park returns: if a ring woke it (the flag was already 0), notes it,
	 * and suppresses arming for the rest of the tick if this is the second ring in it.
	 */
	void parked(long tick) {
		if ((int) ARMED.getAndSet(this, 0) == 0) {
			if (tick == this.lastRingTick) {
				this.suppressedUntil = tick + 1;
			}
			this.lastRingTick = tick;
		}
	}

}
