package io.github.wheeltimer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Set;
import java.util.concurrent.Executor;

/**
 * The worker thread's loop, and the plan of its sleep: each pass takes what the queues bring,
 * moves the hand up to the clock, answers questions, and then plans when to wake and parks. It
 * owns, with the parts it works through, everything only the worker may touch: the wheel and its
 * hand; the consuming ends of the hand-off queues ({@link QueueIntake}, which also collects the
 * stop report); the firing of due timeouts and its counting batch ({@link Firing}). If starting
 * the worker thread fails, the starting thread takes its place once, to
 * {@linkplain #collectUnprocessed() collect} what the queues hold: no worker ever ran, so nothing
 * races it.
 *
 * <p>Other threads reach it only through the lock-free queues ({@code incoming} for new timeouts,
 * {@code cancellations} for cancelled ones), the {@link SoonestQueries} stack, and the
 * {@link WorkerWakeUp} handshake that rouses it. It publishes {@code awakeSince} (when its current
 * pass of work began) with opaque stores, for readers of the lag. It only looks at the queues
 * ({@code isEmpty}) to plan its sleep; the intake takes from them, in bounded runs that this
 * plan relies on (see QueueIntake).
 */
final class TimerWorker implements Runnable {

	/** {@code awakeSince} while the worker is parked, has not started, or has ended. */
	static final long NOT_AWAKE = Long.MIN_VALUE;

	/**
	 * Most timeouts of the next turn staged per pass (see Wheel): about 100 us of work, so that a
	 * burst due in the next turn is sorted into its buckets over the passes before it starts.
	 */
	private static final int STAGE_BATCH = 1 << 12;

	/**
	 * New timeouts that do not ring wait in the queue for at most half the worker's sleep, and at
	 * most this many ticks: a stream of them is taken in bulk, well before anything in it can fall
	 * due, and the take stays short (16 ticks of 100,000 new timeouts a second at 100 ms are
	 * 160,000, about 5 ms of work).
	 */
	static final long MAX_QUEUED_TICKS = 16;

	/**
	 * New timeouts taken in one wake-up that make a stream: more than the one that rang and the
	 * few scheduled with it, fewer than a fast stream brings in while the worker wakes up.
	 */
	private static final int STREAM = 64;

	private static final VarHandle AWAKE_SINCE;

	static {
		try {
			AWAKE_SINCE = MethodHandles.lookup().findVarHandle(TimerWorker.class, "awakeSince", long.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	final IntrusiveMpscQueue incoming = new IntrusiveMpscQueue();

	/** Only looked at here, to plan the sleep: the intake takes from it. */
	private final ChunkedMpscQueue<HashedWheelTimeout> cancellations;

	final SoonestQueries queries = new SoonestQueries();

	final WorkerWakeUp wakeUp;

	final Wheel wheel;

	private final HashedWheelTimer timer;

	private final TimerCounters counters;

	private final long tickNanos;

	/** MAX_QUEUED_TICKS in nanoseconds, saturated. */
	private final long maxQueuedNanos;

	private final Firing firing;

	private final QueueIntake intake;

	/** When the current pass of work began; NOT_AWAKE while parked. */
	private long awakeSince = NOT_AWAKE;

	/** The threshold of the published plan, or RUNG when none stands. */
	private long threshold = WorkerWakeUp.RUNG;

	/** A question waits for the take that precedes its answer. */
	private boolean answering;

	TimerWorker(HashedWheelTimer timer, TimerCounters counters, ChunkedMpscQueue<HashedWheelTimeout> cancellations,
			Wheel wheel, long tickNanos, Executor taskExecutor, Ticker ticker) {
		this.timer = timer;
		this.cancellations = cancellations;
		this.counters = counters;
		this.wheel = wheel;
		this.tickNanos = tickNanos;
		this.maxQueuedNanos = (tickNanos > Long.MAX_VALUE / MAX_QUEUED_TICKS) ? Long.MAX_VALUE
				: MAX_QUEUED_TICKS * tickNanos;
		this.wakeUp = new WorkerWakeUp(ticker);
		this.firing = new Firing(timer, counters, wheel, taskExecutor);
		this.intake = new QueueIntake(this.incoming, cancellations, wheel, this.firing, timer, counters);
	}

	/** Any thread: when the current pass began, or NOT_AWAKE. */
	long awakeSince() {
		return (long) AWAKE_SINCE.getOpaque(this);
	}

	@Override
	public void run() {
		try {
			this.wheel.startAt(this.timer.elapsedNanos() / this.tickNanos);
			loop();
		}
		catch (Throwable ex) {
			this.timer.workerFailed(ex);
		}
		finally {
			try {
				this.timer.workerEnding(collectUnprocessed());
			}
			finally {
				AWAKE_SINCE.setOpaque(this, NOT_AWAKE);
				this.timer.workerEnded();
			}
		}
	}

	private void loop() {
		wokeUp();
		while (true) {
			startPass(this.timer.elapsedNanos());
			boolean moreCancellations = this.intake.takeCancellations();
			if (isStopDue()) {
				return;
			}
			boolean stopping = this.timer.isStopping();
			boolean asked = !this.answering && !this.queries.isEmpty();
			if (stopping || asked) {
				// A stop takes everything, to know what falls due in its drain (nothing new is
				// accepted); a question is answered from the whole wheel, queue included.
				this.intake.includeQueued();
				this.answering |= asked;
			}
			boolean moreIncoming = this.intake.takeNew();
			if (this.answering && !moreIncoming) {
				this.answering = false;
				this.queries.answer(this.wheel);
			}
			long clockTick = this.timer.elapsedNanos() / this.tickNanos;
			if (clockTick > this.wheel.hand() && !catchUp(clockTick)) {
				return;
			}
			this.wheel.stage(STAGE_BATCH);
			// The counters, not the wheel: a timeout taken back by its racing scheduler may
			// still be linked, refused, in the wheel.
			if (stopping && this.counters.pending() == 0) {
				return;
			}
			if (!moreCancellations && !moreIncoming) {
				if (stopping && nothingFallsDueBeforeStopDeadline()) {
					return;
				}
				sleep();
			}
		}
	}

	/**
	 * Begins a pass of work: readers count the lag of a pass that outlasts a tick from here. The
	 * pass before, if the worker went straight on without parking, ends now.
	 */
	private void startPass(long now) {
		endPass(now);
		AWAKE_SINCE.setOpaque(this, now);
	}

	/** Ends a pass: one that outlasted its tick is lag, kept if it is the worst so far. */
	private void endPass(long now) {
		if (this.awakeSince != NOT_AWAKE) {
			this.counters.lag(now - this.awakeSince - this.tickNanos);
			AWAKE_SINCE.setOpaque(this, NOT_AWAKE);
		}
	}

	private boolean isStopDue() {
		return this.timer.isStopping() && this.timer.elapsedNanos() >= this.timer.stopDeadline();
	}

	/**
	 * A drain waits for timeouts that can still fire in it, not for its whole length. One due
	 * exactly at the stop deadline cannot: the stop is due first (see isStopDue).
	 */
	private boolean nothingFallsDueBeforeStopDeadline() {
		return this.incoming.isEmpty()
				&& this.wheel.endOf(this.wheel.nextDueTick()) >= this.timer.stopDeadline();
	}

	/**
	 * Moves the hand to {@code clockTick}, firing every tick before it that holds something.
	 * @return {@code false} if a stop became due meanwhile and the worker must end now
	 */
	private boolean catchUp(long clockTick) {
		while (this.firing.fireNextDueTick(clockTick)) {
			if (isStopDue()) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Plans the next wake-up and parks until it, unless something must be done first (then it
	 * returns to the loop, its plan published or not). The plan (see WorkerWakeUp) lets new
	 * timeouts due later, and cancellations while the worker wakes within the tick anyway, wait in
	 * their queues: they are taken in one run at the next wake-up, away from the threads adding to
	 * the queues' tails.
	 */
	private void sleep() {
		long now = this.timer.elapsedNanos();
		long hand = this.wheel.hand();
		if (now / this.tickNanos > hand) {
			return;
		}
		long nextBoundary = this.wheel.endOf(hand);
		long wakeAt = this.wheel.endOf(this.wheel.nextDueTick());
		if (this.timer.isStopping()) {
			wakeAt = Math.min(wakeAt, this.timer.stopDeadline());
		}
		// Many new timeouts taken since the worker woke, or the first of them into an empty queue
		// ringing a second time in one tick, are a stream: a worker that takes the queue empty
		// must not be rung by the next of them (that ring would come again and again), and comes
		// back for them halfway to its wake-up instead.
		boolean rungTwice = !this.wakeUp.mayRing(hand);
		boolean streaming = (this.wakeUp.rungByFirst() && rungTwice) || this.intake.takenSinceWake() >= STREAM;
		if (rungTwice && (!streaming || this.wakeUp.rungByCancel(hand))) {
			// Rung twice in this tick: no sleep that rings until the next. A stream's plan is not
			// rung by its far timeouts, but would be by the cancels that come with them, each
			// ringing it again: with a cancel having rung in this tick, the sleep ends at the
			// boundary instead.
			wakeAt = Math.min(wakeAt, nextBoundary);
		}
		else if (streaming) {
			// Back for the stream halfway to the wake-up (16 ticks at most), to take it in bulk
			// before anything in it can fall due; planned so from the start, so that no plan is
			// rung by the stream's far timeouts. On a tick boundary: the plan's threshold counts
			// on it.
			long halfway = now + Math.max(this.tickNanos, Math.min((wakeAt - now) / 2, this.maxQueuedNanos));
			wakeAt = Math.min(wakeAt, halfway / this.tickNanos * this.tickNanos);
		}
		long threshold = threshold(wakeAt);
		if (threshold > this.threshold) {
			// A later wake-up than the plan the queue's newer timeouts were compared with (or no
			// plan at all): they are taken first, as any of them may fall due before it.
			this.wakeUp.publish(plan(wakeAt, nextBoundary, !streaming && this.incoming.isEmpty()), hand);
			this.threshold = threshold;
			this.intake.includeQueued();
			boolean more = this.intake.takeNew();
			if (more || this.wheel.endOf(this.wheel.nextDueTick()) < wakeAt) {
				// More than a batch, or one of them falls due sooner: back to the loop, which
				// fires what is due and plans again.
				return;
			}
		}
		else if (threshold < this.threshold && !replacePlan(wakeAt, nextBoundary, !streaming && this.incoming.isEmpty())) {
			return;
		}
		if (!this.queries.isEmpty()) {
			return;
		}
		// What came in while the worker was awake did not ring: wake within a tick for
		// cancellations.
		long sleepUntil = wakeAt;
		boolean queued = !this.incoming.isEmpty();
		// A timeout cancelled in the queue is let go by the take: with the queue empty, it was.
		if (!this.cancellations.isEmpty() || (queued && this.intake.cancelledQueuedSinceWake())) {
			sleepUntil = Math.min(sleepUntil, nextBoundary);
		}
		if (queued && !streaming) {
			// A few more, not yet a stream: take them now.
			this.intake.includeQueued();
			return;
		}
		// Not a stream, the plan must let the next new timeout ring: one published while timeouts
		// still came in would not, and the worker would leave them queued until its wake-up.
		boolean quietNeeded = !streaming && !this.wakeUp.firstRings() && sleepUntil > nextBoundary;
		if (sleepUntil < wakeAt || quietNeeded) {
			if (!replacePlan(sleepUntil, nextBoundary, !streaming)) {
				return;
			}
			if (quietNeeded && !this.incoming.isEmpty()) {
				// Came in before the quiet plan stood (it is read after the plan, as a producer does).
				this.intake.includeQueued();
				return;
			}
		}
		endPass(now);
		this.timer.ticker().park((sleepUntil == Long.MAX_VALUE) ? Long.MAX_VALUE : sleepUntil - now);
		// A stray interrupt would make every later park return at once.
		Thread.interrupted();
		this.wakeUp.woke(this.timer.elapsedNanos() / this.tickNanos);
		wokeUp();
	}

	/**
	 * The worker is up (started, or back from a park): no plan stands, and what the queues hold
	 * now is this wake-up's work.
	 */
	private void wokeUp() {
		this.threshold = WorkerWakeUp.RUNG;
		this.intake.wokeUp();
	}

	/** The latest deadline of a new timeout that would fall due before a wake-up at {@code wakeAt}. */
	private long threshold(long wakeAt) {
		return (wakeAt == Long.MAX_VALUE) ? Long.MAX_VALUE : wakeAt - this.tickNanos;
	}

	/**
	 * The plan of a sleep until {@code wakeAt}: cancellations ring if it outlasts the current tick,
	 * and the first new timeout into an empty queue too if the queue was {@code quiet}.
	 */
	private long plan(long wakeAt, long nextBoundary, boolean quiet) {
		return WorkerWakeUp.plan(threshold(wakeAt), wakeAt > nextBoundary, quiet && wakeAt > nextBoundary);
	}

	/**
	 * Replaces the published plan with one that wakes no later.
	 * @return {@code false} if a ring came first: the worker is wanted, and must not park
	 */
	private boolean replacePlan(long wakeAt, long nextBoundary, boolean quiet) {
		if (!this.wakeUp.replace(plan(wakeAt, nextBoundary, quiet), this.wheel.hand())) {
			this.threshold = WorkerWakeUp.RUNG;
			return false;
		}
		this.threshold = threshold(wakeAt);
		return true;
	}

	/**
	 * Cancels every timeout that has not run, for the stop report (see QueueIntake). Called once
	 * the timer is stopping, by the worker as it ends, or by the thread whose start of the worker
	 * failed.
	 */
	Set<Timeout> collectUnprocessed() {
		return this.intake.collectUnprocessed();
	}

}
