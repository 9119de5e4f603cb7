package io.github.wheeltimer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The handshake that lets the worker sleep until its next planned wake-up (or for ever) without
 * missing what must wake it sooner, and without being woken by what can wait.
 *
 * <p>Before it parks, the worker publishes its <em>plan</em>: a threshold, the latest deadline a
 * new timeout may have and still fall due before the worker's wake-up, and two flags. A thread
 * that has enqueued something reads the plan and rings (unparks the worker) only if what it
 * enqueued cannot wait:
 * <ul>
 * <li>a new timeout due at or before the threshold;</li>
 * <li>a cancellation, while {@code CANCELS_RING} says the sleep outlasts the current tick: a
 * cancelled timeout is let go within about a tick;</li>
 * <li>the first new timeout into an empty queue, while {@code FIRST_RINGS} says the sleep is long
 * and the queue was quiet: the worker then sees a stream begin, and comes back for it halfway to
 * its wake-up. The flag stays off while a stream goes on, so that a worker which takes the queue
 * empty is not rung by the next timeout of the same stream;</li>
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
 * enqueuer sees the plan. A plan the worker replaces right before it parks (a sooner wake-up,
 * another flag) comes after its last look at the queues: an enqueuer whose ring finds the plan
 * replaced judges again by the new one. A worker rung awake twice within one tick plans no
 * ringing sleep until the next tick, so a stream of rings costs at most a few wake-ups per tick.
 * A stream of new timeouts keeps its long sleep, which its far timeouts do not ring, and which
 * cancellations ring until the worker, rung twice in the tick, was rung by one: then it too ends
 * at the tick's end.
 *
 * <p>{@code plan} is shared; the suppression fields are the worker's.
 */
final class WorkerWakeUp {

	/** No plan: nothing rings. */
	static final long RUNG = Long.MIN_VALUE;

	/** No plan, as RUNG, and the last ring was the first new timeout into an empty queue. */
	private static final long RUNG_BY_FIRST = Long.MIN_VALUE + 4;

	/** No plan, as RUNG, and the last ring was a cancellation. */
	private static final long RUNG_BY_CANCEL = Long.MIN_VALUE + 8;

	/** Plan flag: a cancellation rings. */
	private static final long CANCELS_RING = 1;

	/** Plan flag: the first new timeout into an empty queue rings. */
	private static final long FIRST_RINGS = 2;

	private static final long FLAGS = CANCELS_RING | FIRST_RINGS;

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

	/** The threshold rounded up past the flags' bits, with the flags in them; or RUNG. */
	private volatile long plan = RUNG;

	/** The tick in which the worker was last woken by a ring, to spot a second one. */
	private long lastRingTick = -1;

	/** The worker plans no ringing sleep before this tick (it was rung awake twice in one tick). */
	private long suppressedUntil = -1;

	/** The plan the worker published last (RUNG once it took it back). */
	private long published = RUNG;

	/** The last ring was the first new timeout into an empty queue: a stream may begin. */
	private boolean rungByFirst;

	/** The tick in which a cancellation last rang: cancellations are coming in. */
	private long lastCancelRingTick = -1;

	WorkerWakeUp(Ticker ticker) {
		this.ticker = ticker;
	}

	void attach(Thread worker) {
		this.worker = worker;
	}

	/** Any thread, after it enqueued a new timeout due at {@code deadline}. */
	void scheduled(long deadline, boolean intoEmptyQueue) {
		for (long plan = this.plan;;) {
			long rung;
			if (deadline <= plan) {
				rung = RUNG;
			}
			else if (intoEmptyQueue && (plan & FIRST_RINGS) != 0) {
				rung = RUNG_BY_FIRST;
			}
			else {
				return;
			}
			long found = ring(plan, rung);
			if (found == plan) {
				return;
			}
			plan = found;
		}
	}

	/** Any thread, after it enqueued a cancelled timeout. */
	void cancelled() {
		for (long plan = this.plan; (plan & CANCELS_RING) != 0;) {
			long found = ring(plan, RUNG_BY_CANCEL);
			if (found == plan) {
				return;
			}
			plan = found;
		}
	}

	/** Any thread, after it asked the worker something or took a timeout back from it. */
	void ring() {
		for (long plan = this.plan; !isRung(plan);) {
			long found = ring(plan, RUNG);
			if (found == plan) {
				return;
			}
			plan = found;
		}
	}

	/**
	 * Rings if the plan is still {@code plan}. If it is not, a ring came first or the worker woke
	 * (nothing to do), or the worker replaced its plan right before parking, after its last look
	 * at the queues: the caller judges again by the plan found, or the worker would sleep through
	 * what this thread enqueued.
	 * @return the plan found: {@code plan} if this rang
	 */
	private long ring(long plan, long rung) {
		long found = (long) PLAN.compareAndExchange(this, plan, rung);
		if (found == plan) {
			this.ticker.unpark(this.worker);
		}
		return found;
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
	 * Worker: the plan for a threshold and flags. Rounding the threshold up makes a ring for a
	 * deadline up to 3 ns past it at worst, never a missed one; {@link Long#MAX_VALUE} (no wake-up
	 * planned) rings for everything.
	 */
	static long plan(long threshold, boolean cancelsRing, boolean firstRings) {
		if (threshold > Long.MAX_VALUE - FLAGS) {
			return Long.MAX_VALUE;
		}
		return ((threshold + FLAGS) & ~FLAGS) | (cancelsRing ? CANCELS_RING : 0) | (firstRings ? FIRST_RINGS : 0);
	}

	/**
	 * Worker, awake: publishes a plan, during {@code tick}; the caller then reads its queues. A
	 * plan it published before and did not park on may have been rung since: that ring is noted,
	 * as one that woke it.
	 */
	void publish(long plan, long tick) {
		long found = (long) PLAN.getAndSet(this, plan);
		if (this.published != RUNG && found != this.published) {
			rung(tick, found);
		}
		this.published = plan;
	}

	/**
	 * Worker: replaces the plan it published with one that wakes no later, unless a ring came
	 * first; a ring is noted as one that woke it, during {@code tick}.
	 * @return whether the plan was replaced (if not, the worker must not park on it)
	 */
	boolean replace(long plan, long tick) {
		long found = (long) PLAN.compareAndExchange(this, this.published, plan);
		if (found != this.published) {
			this.published = RUNG;
			rung(tick, found);
			return false;
		}
		this.published = plan;
		return true;
	}

	/**
	 * Worker, after a park returns: takes the plan back (nothing rings until the next one), and
	 * notes whether a ring woke it.
	 */
	void woke(long tick) {
		long plan = (long) PLAN.getAndSet(this, RUNG);
		this.published = RUNG;
		this.rungByFirst = false;
		if (isRung(plan)) {
			rung(tick, plan);
		}
	}

	/** Whether {@code plan} is no plan: the worker is awake, or a ring is waking it. */
	private static boolean isRung(long plan) {
		return plan == RUNG || plan == RUNG_BY_FIRST || plan == RUNG_BY_CANCEL;
	}

	/**
	 * Worker: whether the plan it published lets the first new timeout into an empty queue ring
	 * (a plan with no wake-up rings for every timeout).
	 */
	boolean firstRings() {
		return (this.published & FIRST_RINGS) != 0;
	}

	/** Worker: whether a ring since it last woke was the first new timeout into an empty queue. */
	boolean rungByFirst() {
		return this.rungByFirst;
	}

	/** Worker: whether a cancellation rang during {@code tick}. */
	boolean rungByCancel(long tick) {
		return this.lastCancelRingTick == tick;
	}

	/**
	 * A ring woke the worker, or came before it could park; the second in one tick suppresses
	 * ringing sleeps for the rest of the tick.
	 */
	private void rung(long tick, long rung) {
		this.rungByFirst |= rung == RUNG_BY_FIRST;
		if (rung == RUNG_BY_CANCEL) {
			this.lastCancelRingTick = tick;
		}
		if (tick == this.lastRingTick) {
			this.suppressedUntil = tick + 1;
		}
		this.lastRingTick = tick;
	}

}
