package io.github.wheeltimer.durable.cooperation;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import io.github.wheeltimer.Timeout;
import io.github.wheeltimer.durable.arguments.DurableMethod;
import io.github.wheeltimer.durable.arguments.DurableMethods;
import io.github.wheeltimer.durable.run.CallCounters;
import io.github.wheeltimer.durable.run.CallRunner;
import io.github.wheeltimer.durable.run.DurableClock;
import io.github.wheeltimer.durable.run.HeldCall;
import io.github.wheeltimer.durable.run.HeldCalls;
import io.github.wheeltimer.durable.storage.CallCount;
import io.github.wheeltimer.durable.storage.CallRepository;
import io.github.wheeltimer.durable.storage.ClaimedCall;
import io.github.wheeltimer.durable.storage.DatabaseProblems.Source;
import io.github.wheeltimer.durable.storage.InstanceRepository;
import io.github.wheeltimer.durable.storage.InstanceStatus;
import io.github.wheeltimer.durable.storage.MethodShapes;
import io.github.wheeltimer.durable.storage.RowWrites;
import io.github.wheeltimer.durable.storage.StoredText;
import io.github.wheeltimer.durable.storage.UnreadableCalls;
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
 * clock.
 */
public final class ClaimPoller {

	private static final Log logger = LogFactory.getLog(ClaimPoller.class);

	private static final long CLEAN_UP_NANOS = TimeUnit.MINUTES.toNanos(1);

	/**
	 * The most calls of dead instances remembered at once, to say in a late call's log line which
	 * instance's lease it waited for: beyond that, the line says it less precisely.
	 */
	static final int MAX_TAKE_OVER_NOTES = 10_000;

	private final CallRepository calls;

	private final InstanceRepository instances;

	private final DurableMethods methods;

	private final ArgumentShapes shapes;

	private final HeldCalls held;

	private final CallRunner runner;

	private final RowWrites writes;

	private final InstancesView reports;

	private final CallCounters counters;

	private final DurableClock clock;

	private final Lease lease;

	private final DurableThreads scheduler;

	private final DurableSettings settings;

	private final UUID instance;

	/**
	 * The instance rows that had this instance's configured name when it started, with the
	 * heartbeat each had then: its previous run, whose calls it takes as soon as that heartbeat is
	 * seen to have stopped. Filled before the first poll.
	 */
	private final Map<UUID, Instant> predecessors = new ConcurrentHashMap<>();

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

	/**
	 * Polls only: the calls this instance's take-overs put back, by id, with what held them, until a
	 * poll claims them here (what the log line of a late call says it waited for) or for a minute
	 * (another instance claimed them).
	 */
	private final Map<UUID, TakeOver> takenOver = new HashMap<>();

	/** When this instance started, by the application's clock: a call due before waited for it. */
	private volatile Instant startedAt = Instant.MIN;

	/** Whether other instances' rows were there when this one started, alive or not: written before the first poll. */
	private volatile boolean othersAtStart;

	/** Polls only. */
	private long lastCleanUpNanos = Long.MIN_VALUE;

	/** Polls only: the {@link ArgumentShapes#changes()} the last count of waiting calls saw. */
	private int countedChanges;

	/** Written by the clean-ups, read by health checks. */
	private volatile StrandedCalls waiting = new StrandedCalls(0, 0);

	/** Polls only: when a poll last did more than claim. */
	private long lastFullPollNanos = System.nanoTime();

	public ClaimPoller(CallRepository calls, InstanceRepository instances, DurableMethods methods, ArgumentShapes shapes,
			HeldCalls held, CallRunner runner, RowWrites writes, InstancesView reports, CallCounters counters,
			DurableClock clock, Lease lease, DurableThreads scheduler, DurableSettings settings,
			UUID instance) {
		this.calls = calls;
		this.instances = instances;
		this.methods = methods;
		this.shapes = shapes;
		this.held = held;
		this.runner = runner;
		this.writes = writes;
		this.reports = reports;
		this.counters = counters;
		this.clock = clock;
		this.lease = lease;
		this.scheduler = scheduler;
		this.settings = settings;
		this.instance = instance;
		held.refillWith(this::refill);
	}

	/**
	 * Notes the instance rows there are as this instance starts: whether another instance shared
	 * the calls (what the line of a call due before this start says it waited for), and those of
	 * this instance's configured name, its previous runs. On the starting thread, before this
	 * instance joins the instance table.
	 */
	public void notePredecessors() {
		List<InstanceStatus> others = this.instances.instances(this.settings.lease());
		this.othersAtStart = !others.isEmpty();
		if (this.settings.instanceNameConfigured()) {
			String name = StoredText.of(this.settings.instanceName(), CallRepository.NAME_LENGTH);
			others.stream()
				.filter((other) -> other.name().equals(name) && other.heartbeat() != null
						&& !other.id().equals(this.instance))
				.forEach((other) -> this.predecessors.put(other.id(), other.heartbeat()));
		}
	}

	/** Launches the first poll; on the starting thread. */
	public void start() {
		this.startedAt = this.clock.now();
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
				takeOverPredecessors();
				takeOverDeadOwners();
				if (this.lastCleanUpNanos == Long.MIN_VALUE || nowNanos - this.lastCleanUpNanos >= CLEAN_UP_NANOS) {
					this.lastCleanUpNanos = nowNanos;
					cleanUp();
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
			if (!refill && (this.shapes.changes() != this.countedChanges || this.waiting.unreadable() > 0)) {
				// What this instance cannot read changed, or calls wait for another version: the health
				// check's count follows each poll (after its claims) until none waits, not each minute.
				this.countedChanges = this.shapes.changes();
				countWaiting(this.reports.instances(), null);
			}
			this.writes.succeeded(Source.POLL);
		}
		catch (RuntimeException ex) {
			// A poll the stop interrupted (waiting for a connection) says nothing of the database.
			if (this.running) {
				this.writes.failed(Source.POLL, ex);
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
				this.counters.claimed.increment();
				DurableMethod method = this.methods.require(row.methodId());
				if (!readable(method, row)) {
					continue;
				}
				HeldCall call = new HeldCall(method, row.id(), row.key(), row.arguments(), row.due(),
						row.tries(), row.traceParent(), this.held.claimFuture(row.id()), this.runner);
				call.lateBecause(lateBecause(row, now));
				call.startedKey(row.startedKey());
				this.runner.hold(call);
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
		this.counters.handedBack.increment();
		return false;
	}

	/**
	 * Why a call claimed late was not claimed in time, as far as this instance can tell: what its
	 * log line says if it starts late.
	 * @return the reason, or {@code null} if it is claimed in time (late, it waited here)
	 */
	private @Nullable String lateBecause(ClaimedCall row, Instant now) {
		TakeOver takeOver = this.takenOver.remove(row.id());
		if (takeOver != null) {
			return takeOver.reason();
		}
		if (Duration.between(row.due(), now).compareTo(this.settings.horizon()) <= 0) {
			return null;
		}
		if (row.tries().cutShort()) {
			return "it had started on an instance that then died, or lost its lease, before the call ended: it"
					+ " waited for that lease to run out, and for an instance to take the call over";
		}
		DurableMethod method = this.methods.find(row.methodId());
		if (method != null && !row.shape().isEmpty() && this.shapes.foreign(method, row.shape())) {
			return "it was written by another version of the application (argument shape "
					+ ArgumentShapes.shapeName(row.shape()) + "): it may have waited while no live instance that"
					+ " reads it claimed it (its version stopped, or was rolled back), or for any instance to run";
		}
		if (row.due().isBefore(this.startedAt)) {
			return this.othersAtStart
					? "it fell due before this instance started (at " + this.startedAt + "), while other instances"
							+ " shared the calls: the one that held it died, and its lease (" + this.settings.lease()
							+ ") had to run out before another took it over, or none could claim it then (its database"
							+ " failed, or calls due before it held the claims back)"
					: "no instance was running to claim it when it fell due; this instance started at " + this.startedAt;
		}
		return "this instance was running when it fell due but did not claim it then: another instance held it and"
				+ " did not start it (it died, and its lease had to run out, or it stopped), or this instance's polls"
				+ " could not claim it (its database failed, or calls due before it held its claims back)";
	}

	/**
	 * Remembers what held the calls a take-over put back, for the log line of those that start
	 * late here; up to {@link #MAX_TAKE_OVER_NOTES}.
	 */
	private void noteTakeOver(Iterable<UUID> ids, String reason) {
		long now = System.nanoTime();
		for (UUID id : ids) {
			if (this.takenOver.size() >= MAX_TAKE_OVER_NOTES) {
				return;
			}
			this.takenOver.put(id, new TakeOver(reason, now));
		}
	}

	/** What held a call a take-over put back, and when that was noted (System.nanoTime()). */
	private record TakeOver(String reason, long notedNanos) {
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
	 * Takes the calls of this instance's previous run: an instance whose name is configured (a
	 * StatefulSet's pod, a systemd unit) restarted after a crash knows that an instance row of its
	 * own name is its predecessor, and need not wait for its lease. Only once that row's heartbeat
	 * is seen to have stopped (older than half the lease and unchanged since this instance
	 * started), and once this instance has itself reached the database for two heartbeat
	 * intervals: a live replica that shares the name (a mistake, warned about) beats meanwhile.
	 */
	private void takeOverPredecessors() {
		Duration twoBeats = this.settings.heartbeatInterval().multipliedBy(2).plusMillis(100);
		if (this.predecessors.isEmpty() || !this.lease.connectedFor(twoBeats)) {
			return;
		}
		Duration half = this.settings.lease().dividedBy(2);
		// The shortest lease allowed is two beats: then half of it would be a single beat.
		List<InstanceStatus> others = this.instances.instances((half.compareTo(twoBeats) >= 0) ? half : twoBeats);
		// A row gone meanwhile (the normal take-over removed it) leaves nothing to wait for.
		this.predecessors.keySet().retainAll(others.stream().map(InstanceStatus::id).toList());
		for (InstanceStatus other : others) {
			Instant seen = this.predecessors.get(other.id());
			if (seen == null) {
				continue;
			}
			if (!Objects.equals(seen, other.heartbeat())) {
				this.predecessors.remove(other.id());
				logger.warn("Another live instance is named '" + other.name() + "', as this one: its calls are not"
						+ " taken over at this start. Give each instance a name of its own"
						+ " (wheel-timer.durable.instance-name), such as its pod's name");
			}
			else if (!other.alive()) {
				this.predecessors.remove(other.id());
				List<UUID> taken = this.calls.takeOverCallsOf(other.id());
				this.counters.takenOver.add(taken.size());
				noteTakeOver(taken, "it was held by the previous run of this instance, '" + other.name() + "' ("
						+ other.id() + "), whose heartbeat stopped at " + other.heartbeat()
						+ "; this instance took it over at its start, once it had seen that heartbeat stopped");
				logger.info("Took over " + taken.size() + " durable calls of the previous run of instance '"
						+ other.name() + "', whose heartbeat stopped at " + other.heartbeat());
				// Its row goes too; should this fail, the clean-up removes it with the other silent ones.
				this.instances.unregister(other.id());
			}
		}
	}

	/** At every poll: a dead instance's calls wait at most its lease and one poll. */
	private void takeOverDeadOwners() {
		if (!this.lease.connectedForALease()) {
			return;
		}
		Map<UUID, UUID> taken = this.calls.takeOverDeadOwners();
		if (taken.isEmpty()) {
			return;
		}
		this.counters.takenOver.add(taken.size());
		logger.info("Took over " + taken.size() + " durable calls of instances whose lease ran out");
		// One more statement, only when there was something to take over: what the late ones waited for.
		Map<UUID, InstanceStatus> owners = new HashMap<>();
		this.instances.instances(this.settings.lease()).forEach((owner) -> owners.put(owner.id(), owner));
		Map<UUID, List<UUID>> byOwner = new LinkedHashMap<>();
		taken.forEach((id, owner) -> byOwner.computeIfAbsent(owner, (key) -> new ArrayList<>()).add(id));
		byOwner.forEach((owner, ids) -> noteTakeOver(ids, waitedForTheLeaseOf(owner, owners.get(owner))));
	}

	/** What a call of a dead instance waited for, said once per instance and shared by its calls. */
	private String waitedForTheLeaseOf(UUID id, @Nullable InstanceStatus owner) {
		String died = (owner != null)
				? "instance '" + owner.name() + "' (" + id + "), which died holding it with its last heartbeat at "
						+ owner.heartbeat()
				: "instance " + id + ", which died holding it and is no longer listed";
		return "it waited for the lease of " + died + "; this instance took it over once that lease ("
				+ this.settings.lease() + ") had run out";
	}

	/** Removes what is past its retention: once a minute is plenty, and keeps an idle instance quiet. */
	private void cleanUp() {
		long nowNanos = System.nanoTime();
		this.takenOver.values().removeIf((note) -> nowNanos - note.notedNanos() >= CLEAN_UP_NANOS);
		this.calls.deleteFailedBefore(this.settings.failedRetention());
		this.instances.deleteSilentFor(this.settings.lease().multipliedBy(10));
		this.held.forgetLostFutures();
		// Not a failure (an instance that knows them may be on its way), but nothing runs them until then.
		Instant now = this.clock.now();
		List<InstanceStatus> instances = this.reports.instances();
		List<CallCount> unknown = this.reports.pendingOfUnknownMethods(instances);
		for (CallCount waiting : unknown) {
			Instant due = waiting.earliestDue();
			if (due != null && due.isBefore(now)) {
				logger.warn(waiting.count() + " durable calls of method id '" + waiting.name() + "' are waiting, the"
						+ " oldest since " + due + ": no live instance knows that method (renamed without"
						+ " @DelayedExecution(id = ...), or removed?); they run once an instance that knows it starts");
			}
		}
		List<UnreadableCalls> unreadable = countWaiting(instances, unknown);
		for (UnreadableCalls waiting : unreadable) {
			Instant due = waiting.earliestDue();
			if (due != null && due.isBefore(now)) {
				logger.warn(waiting.count() + " durable calls of method id '" + waiting.methodId() + "' are waiting,"
						+ " the oldest since " + due + ": they were written by a version of the application (argument"
						+ " shape " + ArgumentShapes.shapeName(waiting.shape()) + ") whose arguments no live instance"
						+ " can read; they run once an instance that reads them starts (that version, or one made to"
						+ " read them: see the WARN line each instance logged when it first met them)");
			}
		}
	}

	/**
	 * Counts the calls that wait for an instance that is not running, for health checks.
	 * @param unknown the calls of methods no live instance knows, as just read; {@code null} between
	 * clean-ups, which keep the count the last one read
	 * @return the calls no live instance can read
	 */
	private List<UnreadableCalls> countWaiting(List<InstanceStatus> instances, @Nullable List<CallCount> unknown) {
		List<UnreadableCalls> unreadable = this.reports.unreadable(instances);
		long unknownMethods = (unknown != null) ? unknown.stream().mapToLong(CallCount::count).sum()
				: this.waiting.unknownMethods();
		this.waiting = new StrandedCalls(unknownMethods,
				unreadable.stream().mapToLong(UnreadableCalls::count).sum());
		return unreadable;
	}

	/**
	 * What the last clean-up found waiting for an instance that does not run: calls of methods no
	 * live instance knows, and calls no live instance can read.
	 * @return the counts, both 0 before the first clean-up
	 */
	public StrandedCalls waiting() {
		return this.waiting;
	}

	/**
	 * Says whether a poll is in progress.
	 * @return {@code null} if idle, else what is in progress
	 */
	public @Nullable String busy() {
		return (this.polling.get() > 0) ? "a poll of durable calls is in progress" : null;
	}

}
