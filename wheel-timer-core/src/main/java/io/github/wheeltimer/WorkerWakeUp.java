package io.github.wheeltimer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The handshake that lets the worker sleep until its next planned wake-up (or for ever) without
 * missing what must wake it sooner, and without being woken by what can wait.
 *
 * <p>Before it parks, the worker publishes its <em>plan</em>: a threshold, the latest deadline a
 * new timeout may have and still fall due before the worker's wake-up, and a flag that says the
 * sleep outlasts the current tick. A thread that has enqueued something reads the plan and rings
 * (unparks the worker) only if what it enqueued cannot wait:
 * <ul>
 * <li>a new timeout due at or before the threshold;</li>
 * <li>during a long sleep, a cancellation (a cancelled timeout is let go within about a tick) or
 * the first new timeout into an empty queue (the worker then sees a stream begin, and bounds how
 * long its timeouts wait);</li>
 * <li>a question, or a timeout taken back after a stop.</li>
 * </ul>
 * Everything else stays in the queues until the worker wakes as planned, and is then taken in
 * one run: a stream of far timeouts, or of cancellations while the worker wakes every tick
 * anyway, costs it nothing while it comes in.
 *
 * <p>Whoever moves the plan to {@code RUNG} with a compare-and-set unparks the worker, so that a
 * burst of rings costs one unpark. While the plan is {@code RUNG} (the worker is awake, or about
 * to be) nothing rings: the worker looks at its queues before it sleeps again. Both sides write
 * then read volatiles (Dekker): the worker publishes its plan, then reads the queues; an enqueuer
 * enqueues (a full fence), then reads the plan. So either the worker sees the new element or the
 * enqueuer sees the plan. A worker rung awake twice within one tick plans no ringing sleep until
 * the next tick, so a stream of rings costs at most a few wake-ups per tick.
 *
 * <p>{@code plan} is shared; the suppression fields are the worker's.
 */
final class WorkerWakeUp {

	/** No plan: nothing rings. */
	static final long RUNG = Long.MIN_VALUE;

	/** Plan flag: the sleep outlasts the current tick. */
	private static final long LONG_SLEEP = 1;

	private static final VarHandle PLAN;

	static {
		try {
			PLAN = MethodHandles.lookup().findVarHandle(WorkerWakeUp.class, "plan", long.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final Ticker ticker;

	private volatile Thread worker;

	/** The threshold rounded up to an even number, with the flag in its lowest bit; or RUNG. */
	private volatile long plan = RUNG;

	/** The tick in which the worker was last woken by a ring, to spot a second one. */
	private long lastRingTick = -1;

	/** The worker plans no ringing sleep before this tick (it was rung awake twice in one tick). */
	private long suppressedUntil = -1;

	WorkerWakeUp(Ticker ticker) {
		this.ticker = ticker;
	}

	void attach(Thread worker) {
		this.worker = worker;
	}

	/** Any thread, after it enqueued a new timeout due at {@code deadline}. */
	void scheduled(long deadline, boolean intoEmptyQueue) {
		long plan = this.plan;
		if (deadline <= plan || (intoEmptyQueue && (plan & LONG_SLEEP) != 0)) {
			ring(plan);
		}
	}

	/** Any thread, after it enqueued a cancelled timeout. */
	void cancelled() {
		long plan = this.plan;
		if ((plan & LONG_SLEEP) != 0) {
			ring(plan);
		}
	}

	/** Any thread, after it asked the worker something or took a timeout back from it. */
	void ring() {
		long plan = this.plan;
		if (plan != RUNG) {
			ring(plan);
		}
	}

	private void ring(long plan) {
		if (PLAN.compareAndSet(this, plan, RUNG)) {
			this.ticker.unpark(this.worker);
		}
	}

	/** Wakes the worker whatever it sleeps for: a stop. */
	void interrupt() {
		this.ticker.unpark(this.worker);
	}

	/** Worker: whether it may plan a sleep that rings during {@code tick}, not being rung too often. */
	boolean mayRing(long tick) {
		return tick >= this.suppressedUntil;
	}

	/**
	 * Worker: the plan for a threshold and a sleep that does or does not outlast the current tick.
	 * Rounding the threshold up makes a ring for a deadline 1 ns past it at worst, never a missed
	 * one; {@link Long#MAX_VALUE} (no wake-up planned) rings for everything.
	 */
	static long plan(long threshold, boolean longSleep) {
		if (threshold >= Long.MAX_VALUE - 1) {
			return Long.MAX_VALUE;
		}
		return ((threshold + 1) & ~LONG_SLEEP) | (longSleep ? LONG_SLEEP : 0);
	}

	/** Worker, awake (the plan is RUNG): publishes a plan; the caller then reads its queues. */
	void publish(long plan) {
		this.plan = plan;
	}

	/**
	 * Worker: replaces the plan it published with one that wakes it no later.
	 * @return {@code false} if a ring came first (the worker must not park on it)
	 */
	boolean replace(long published, long plan) {
		return PLAN.compareAndSet(this, published, plan);
	}

	/**
	 * Worker, after a park returns: takes the plan back (nothing rings until the next one), and
	 * notes whether a ring woke it.
	 */
	void woke(long tick) {
		if ((long) PLAN.getAndSet(this, RUNG) == RUNG) {
			rung(tick);
		}
	}

	/**
	 * Worker: a ring woke it, or came before it could park; the second in one tick suppresses
	 * ringing sleeps for the rest of the tick.
	 */
	void rung(long tick) {
		if (tick == this.lastRingTick) {
			this.suppressedUntil = tick + 1;
		}
		this.lastRingTick = tick;
	}

}
