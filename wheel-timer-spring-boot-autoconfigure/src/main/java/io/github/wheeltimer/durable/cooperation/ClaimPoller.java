package io.github.wheeltimer.durable.cooperation;

import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import io.github.wheeltimer.Timeout;
import io.github.wheeltimer.durable.arguments.DurableMethod;
import io.github.wheeltimer.durable.arguments.DurableMethods;
import io.github.wheeltimer.durable.run.CallCounters;
import io.github.wheeltimer.durable.run.DurableClock;
import io.github.wheeltimer.durable.run.HeldCall;
import io.github.wheeltimer.durable.run.HeldCalls;
import io.github.wheeltimer.durable.run.RunPipeline;
import io.github.wheeltimer.durable.storage.CallRepository;
import io.github.wheeltimer.durable.storage.ClaimedCall;
import io.github.wheeltimer.durable.storage.DatabaseProblems.Source;
import io.github.wheeltimer.durable.storage.InstanceRepository;
import io.github.wheeltimer.durable.storage.MethodShapes;
import io.github.wheeltimer.durable.storage.RowWrites;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * This instance's polls: each retries the writes that waited for the database, takes over the
 * calls of dead instances (and of this instance's previous run), cleans up once a minute, and
 * claims the calls coming within the horizon onto this instance's wheels, stopping once a batch
 * of due calls waits for its executors, so that a backlog is shared with the other instances.
 * <p>
 * Threads: polls run one at a time on the scheduler's poll thread, each arming the next when it
 * ends (or a refill bringing it forward, which runs only if it cancelled the armed one), so the
 * fields that only polls use need no lock. The closing thread stops them, then waits for the poll
 * in progress to end ({@link #awaitPollEnded()}). {@link #busy()} is read by a test's virtual
 * clock. Callers' threads only raise {@code claimsInDoubt}, which the next full poll takes.
 */
public final class ClaimPoller {

	private static final Log logger = LogFactory.getLog(ClaimPoller.class);

	private static final long CLEAN_UP_NANOS = TimeUnit.MINUTES.toNanos(1);

	private final CallRepository calls;

	private final InstanceRepository instances;

	private final DurableMethods methods;

	private final ArgumentShapes shapes;

	private final HeldCalls held;

	private final RunPipeline pipeline;

	private final RowWrites writes;

	private final InstancesView reports;

	private final CallCounters counters;

	private final DurableClock clock;

	private final DurableThreads scheduler;

	private final DurableSettings settings;

	private final UUID instance;

	private final TakeOvers takeOvers;

	private final CleanUp cleanUp;

	/**
	 * Polls launched and not yet ended: what a virtual clock waits for. Counted from the moment a
	 * poll is due until the next one is armed, so that the clock never sees an idle instance with
	 * no poll armed; a count, because a refill may launch a poll while the one before is arming.
	 */
	private final AtomicInteger polling = new AtomicInteger();

	private volatile boolean running;

	/**
	 * Held by a poll from before its check of {@link #running} until its claimed calls are on
	 * their wheels, so that the stop, once it has had this lock, knows that the drain finds every
	 * call a poll claimed, and that no claim lands after it: a claim sent before the stop and
	 * answered after its bulk release would take the released rows back (pending, and within the
	 * horizon) onto a stopping instance, which would hand them back a second time. The whole poll,
	 * not only its claims: the writes that waited for the database then have one retrier at a
	 * time, the poll and then the stop, in order. The stop waits for it interruptibly: its budget
	 * gives up on a poll the database holds.
	 */
	private final ReentrantLock pollInProgress = new ReentrantLock();

	private volatile @Nullable Timeout nextPoll;

	/** Polls only. */
	private long lastCleanUpNanos = Long.MIN_VALUE;

	/** Polls only: the {@link ArgumentShapes#changes()} the last count of waiting calls saw. */
	private int countedChanges;

	/** Polls only: when a poll last did more than claim. */
	private long lastFullPollNanos = System.nanoTime();

	/**
	 * Polls only: how many polls still compare the rows claimed here with the calls held here, set
	 * from {@code claimsInDoubt}. A claim (a poll's or a caller's write) that committed as the
	 * connection dropped leaves rows claimed by this live instance and held by none of its wheels,
	 * which no other instance takes over while it lives.
	 */
	private int doubtPasses;

	/** Polls only: the rows claimed here but held nowhere at the last of those passes. */
	private Set<UUID> unheld = Set.of();

	/**
	 * Raised by a poll that failed, or by a caller's thread whose write of a call claimed for this
	 * instance failed as the connection dropped: either may have committed, and no wheel holds its
	 * calls. Taken (cleared) by the next full poll, which starts the comparison's two passes.
	 */
	private final AtomicBoolean claimsInDoubt = new AtomicBoolean();

	public ClaimPoller(CallRepository calls, InstanceRepository instances, DurableMethods methods, ArgumentShapes shapes,
			HeldCalls held, RunPipeline pipeline, RowWrites writes, InstancesView reports, CallCounters counters,
			DurableClock clock, Lease lease, DurableThreads scheduler, DurableSettings settings,
			UUID instance) {
		this.calls = calls;
		this.instances = instances;
		this.methods = methods;
		this.shapes = shapes;
		this.held = held;
		this.pipeline = pipeline;
		this.writes = writes;
		this.reports = reports;
		this.counters = counters;
		this.clock = clock;
		this.scheduler = scheduler;
		this.settings = settings;
		this.instance = instance;
		this.takeOvers = new TakeOvers(calls, instances, methods, shapes, counters, lease, settings, instance);
		this.cleanUp = new CleanUp(calls, instances, held, reports, this.takeOvers, clock, settings);
		held.refillWith(this::refill);
	}


	/**
	 * Notes the instance rows there are as this instance starts, before it joins them; on the
	 * starting thread.
	 */
	public void notePredecessors() {
		this.takeOvers.notePredecessors();
	}

	/** Launches the first poll; on the starting thread. */
	public void start() {
		this.takeOvers.started(this.clock.now());
		this.running = true;
		this.polling.incrementAndGet();
		this.scheduler.pollNow(() -> poll(false));
	}

	/**
	 * No poll starts from now on; one in progress sends no further claim, but one already sent
	 * still lands: {@link #awaitPollEnded()} waits for it.
	 */
	public void stop() {
		this.running = false;
		Timeout next = this.nextPoll;
		if (next != null) {
			// Armed, not launched: not counted in polling.
			next.cancel();
		}
	}

	/**
	 * Has the next two full polls look for rows claimed by this instance and held by none of its
	 * wheels, and put them back to pending: a poll, or a caller's write that claimed a call here,
	 * failed as the connection dropped, and the database may have committed it. Any thread; one
	 * atomic store, and two small queries at the next polls.
	 */
	public void doubtClaims() {
		this.claimsInDoubt.set(true);
	}

	/**
	 * Waits, on the closing thread (or a thread of its budget), after {@link #stop()}, for the poll
	 * in progress to end: from then on every call a poll claimed is held, and no poll claims any
	 * more, since a later one finds {@code running} cleared under the same lock.
	 * @throws InterruptedException if the wait was interrupted: a poll may still be in progress
	 */
	public void awaitPollEnded() throws InterruptedException {
		this.pollInProgress.lockInterruptibly();
		this.pollInProgress.unlock();
	}

	/**
	 * @param refill whether a backlog brought it forward: it only claims, unless a poll interval
	 * passed since a poll did the rest (a long backlog brings every poll forward)
	 */
	private void poll(boolean refill) {
		boolean wantRefill = false;
		this.pollInProgress.lock();
		try {
			if (!this.running) {
				return;
			}
			long nowNanos = System.nanoTime();
			if (!refill || nowNanos - this.lastFullPollNanos >= this.settings.pollInterval().toNanos()) {
				this.lastFullPollNanos = nowNanos;
				this.writes.retryDeferred();
				// After the deferred hand-backs, and a poll interval apart (a refill can come at once).
				if (this.claimsInDoubt.getAndSet(false)) {
					this.doubtPasses = 2;
				}
				if (this.doubtPasses > 0) {
					settleClaimsInDoubt();
				}
				this.takeOvers.takeOverPredecessors();
				this.takeOvers.takeOverDeadOwners();
				if (this.lastCleanUpNanos == Long.MIN_VALUE || nowNanos - this.lastCleanUpNanos >= CLEAN_UP_NANOS) {
					this.lastCleanUpNanos = nowNanos;
					this.cleanUp.cleanUp();
				}
			}
			Instant now = this.clock.now();
			Instant horizon = now.plus(this.settings.horizon());
			List<String> claimable = this.methods.claimable();
			List<Map<String, MethodShapes>> live = this.instances.alive(this.settings.lease());
			this.shapes.live(live);
			int alive = live.size();
			// Alone, an instance claims all it will run; with others, what falls due before it polls
			// again (plus a margin for the poll's own time), then its share of the rest.
			Instant soon = (alive <= 1) ? horizon : soon(now, horizon);
			boolean more = claim(soon, claimable, Long.MAX_VALUE);
			if (!more && this.running && soon.isBefore(horizon)) {
				claim(horizon, claimable, share(soon, horizon, claimable, alive));
				// Claiming a share takes time: what falls due before the next poll counts from now.
				more = claim(soon(this.clock.now(), horizon), claimable, Long.MAX_VALUE);
			}
			// A batch of due calls waits for this instance's executors: what is left is the other
			// instances' to claim meanwhile, and this one's again once half of its backlog has started.
			wantRefill = more && this.running;
			if (!refill && (this.shapes.changes() != this.countedChanges || this.cleanUp.waiting().unreadable() > 0)) {
				// What this instance cannot read changed, or calls wait for another version: the health
				// check's count follows each poll (after its claims) until none waits, not each minute.
				this.countedChanges = this.shapes.changes();
				this.cleanUp.countWaiting(this.reports.instances(), null);
			}
			this.writes.succeeded(Source.POLL);
		}
		catch (RuntimeException ex) {
			// A poll the stop interrupted (waiting for a connection) says nothing of the database.
			if (this.running) {
				this.writes.failed(Source.POLL, ex);
				doubtClaims();
			}
		}
		finally {
			this.pollInProgress.unlock();
			// Counted as polling until the refill, if one is due already, is launched: between the
			// next poll's arming (which ends this poll's count) and the refill's own count, a virtual
			// clock would otherwise see an idle instance with calls still to claim.
			this.polling.incrementAndGet();
			try {
				armNextPoll();
				if (wantRefill) {
					this.held.wantRefill();
				}
			}
			finally {
				this.polling.decrementAndGet();
			}
		}
	}

	/**
	 * One pass of the comparison a failed poll or write asks for (see doubtPasses), in a full
	 * poll: a row claimed here and held nowhere at two passes a poll interval apart is not a call
	 * its caller is putting on a wheel (milliseconds, unless the caller's own after-commit work
	 * stalls for a poll interval: the call still runs once, fenced or replaced where its copies
	 * meet, with one claim too many counted), but a claim whose answer the database lost. It
	 * goes back to pending, to be claimed again: its claim was never counted. (A call whose gate
	 * lost its answer is handed back by the writes that wait for the database.)
	 */
	private void settleClaimsInDoubt() {
		// A call due already when claimed skips the wheel: from its fire to the end of its gate it
		// is at the gate instead.
		Set<UUID> atGate = this.pipeline.atGate();
		Set<UUID> unheldNow = new HashSet<>();
		for (UUID id : this.calls.claimedBy(this.instance)) {
			if (!this.held.holds(id) && !atGate.contains(id)) {
				unheldNow.add(id);
			}
		}
		int putBack = 0;
		for (UUID id : unheldNow) {
			if (this.unheld.contains(id) && this.calls.handBack(id, this.instance)) {
				putBack++;
			}
		}
		if (putBack > 0) {
			logger.warn("Put back " + putBack + ((putBack == 1) ? " durable call" : " durable calls")
					+ " claimed by this instance (by a poll or a caller's write) as its database failed, without"
					+ " hearing that the write had committed: pending again, to run at the due time here or on"
					+ " another instance");
		}
		this.doubtPasses--;
		this.unheld = (this.doubtPasses > 0) ? unheldNow : Set.of();
	}

	/**
	 * Claims the calls due up to {@code until}, earliest first, a batch per statement, until none
	 * is left, {@code limit} are claimed, this instance stops, or a batch of due calls waits.
	 * @return whether it stopped with calls perhaps left: the limit, the stop or the backlog
	 */
	private boolean claim(Instant until, List<String> claimable, long limit) {
		int batch = this.settings.batchSize();
		long left = limit;
		boolean more = true;
		while (more && left > 0 && this.running && !this.held.backlogFull()) {
			int asked = (int) Math.min(batch, left);
			List<ClaimedCall> rows = this.calls.claim(this.instance, until, claimable,
					this.shapes.skipped(claimable), asked);
			Instant now = this.clock.now();
			for (ClaimedCall row : rows) {
				this.counters.countClaimed();
				DurableMethod method = this.methods.require(row.methodId());
				if (!readable(method, row)) {
					continue;
				}
				HeldCall call = new HeldCall(method, row.id(), row.key(), row.arguments(), row.due(),
						row.tries(), row.traceParent(), this.held.claimFuture(row.id()), this.pipeline.gate());
				call.lateBecause(this.takeOvers.lateBecause(row, now));
				call.startedKey(row.startedKey());
				this.pipeline.hold(call);
			}
			left -= rows.size();
			more = rows.size() == asked;
		}
		return more && left > 0;
	}

	/**
	 * Whether this instance may run a claimed row. One of its own version's it can read (it proved
	 * at startup that its types make the round trip; one it cannot read all the same was changed by
	 * hand, and fails when it runs). One of another version's (a rolling deploy, a rollback), or
	 * written before rows recorded their version, is tried here, on the poll thread, before it is
	 * held. One that cannot be read goes back to pending at once, unstarted, and its method and
	 * shape are left to other instances from then on: the next claim, in this same poll, skips
	 * them. One that no version reads (not a JSON array of arguments) is held, to fail when it runs.
	 */
	private boolean readable(DurableMethod method, ClaimedCall row) {
		if (!this.shapes.foreign(method, row.shape())) {
			return true;
		}
		String unreadable = ArgumentShapes.whyUnreadable(method, row.arguments());
		if (unreadable == null) {
			return true;
		}
		// A row that names no shape (an older starter's) is known from now on as unread, so that the
		// other calls such starters wrote, which this instance may read, are not left with it.
		String shape = row.shape().isEmpty() ? CallRepository.UNREAD : row.shape();
		this.shapes.cannotRead(method, shape, unreadable);
		// Through the writes that wait for the database: a release that fails is retried by the next
		// poll, or the stop, rather than leaving the row claimed by a live instance.
		this.writes.write(new RowWrites.Write("Durable call " + row.id() + " to " + method, "given back unread",
				() -> this.calls.handBackAfterGate(row.id(), this.instance, row.tries().attempts(),
						shape.equals(row.shape()) ? null : shape),
				null));
		this.counters.countHandedBack(1);
		return false;
	}

	/**
	 * This instance's share of the calls due after {@code soon} and within the horizon: a burst
	 * due at one instant a few seconds ahead is shared by the live instances rather than taken by
	 * the first to poll. The share counts the calls already claimed in that window, by any
	 * instance, so that a later poll does not take half of what is left again. What an instance
	 * does not claim (it stopped, it is slow, it does not know the method) falls due before the
	 * next poll of some instance, which then claims it with everything else due before its own
	 * next poll: nothing waits past its due time for a share.
	 * @return how many calls to claim at most
	 */
	private long share(Instant soon, Instant horizon, List<String> claimable, int alive) {
		CallRepository.Share share = this.calls.share(this.instance, soon, horizon, claimable);
		long fair = (share.total() + alive - 1) / alive;
		return Math.max(0, fair - share.mine());
	}

	/** @return what falls due before the next poll, with a quarter of an interval for the polls' own time */
	private Instant soon(Instant now, Instant horizon) {
		Instant soon = now.plus(this.settings.pollInterval()).plus(this.settings.pollInterval().dividedBy(4));
		return soon.isBefore(horizon) ? soon : horizon;
	}

	/**
	 * Brings the next poll forward to now, once: a poll stopped claiming for the backlog, which is
	 * half gone. Only the poll that cancels the armed one runs, so polls stay one at a time.
	 */
	private void refill() {
		Timeout next = this.nextPoll;
		if (this.running && next != null && next.cancel()) {
			launchPoll(true);
		}
	}

	/**
	 * Busy from the moment a poll is due, so that a virtual clock waits for it to end: on the
	 * scheduler's wheel thread when the armed poll falls due, or on the thread whose call brought
	 * the backlog down to half (an executor's, a caller's, the closing one) for a refill.
	 */
	private void launchPoll(boolean refill) {
		this.polling.incrementAndGet();
		try {
			this.scheduler.pollNow(() -> poll(refill));
		}
		catch (RuntimeException refused) {
			if (this.running) {
				logger.warn("Durable calls' poll could not be started: " + refused);
			}
			armNextPoll();
		}
	}

	private void armNextPoll() {
		try {
			if (this.running) {
				this.nextPoll = this.scheduler.poll(() -> launchPoll(false), this.settings.pollInterval());
			}
		}
		catch (RuntimeException stopping) {
			// The scheduler ended: this instance is stopping.
		}
		finally {
			this.polling.decrementAndGet();
		}
	}

	/**
	 * What the last clean-up found waiting for an instance that does not run: calls of methods no
	 * live instance knows, and calls no live instance can read.
	 * @return the counts, both 0 before the first clean-up
	 */
	public StrandedCalls waiting() {
		return this.cleanUp.waiting();
	}

	/**
	 * Says whether a poll is in progress.
	 * @return {@code null} if idle, else what is in progress
	 */
	public @Nullable String busy() {
		return (this.polling.get() > 0) ? "a poll of durable calls is in progress" : null;
	}

}
