package io.github.wheeltimer.durable.run;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.wheeltimer.Timeout;
import org.jspecify.annotations.Nullable;

/**
 * The calls this instance claimed and holds on its methods' wheels, in memory only: by id, by
 * key (so that a cancel or a replace frees one at once), the futures of calls not held yet, the
 * backlog of calls already due, and the drain of a stopping instance. Its owner writes no row:
 * whoever takes a call off (a cancel, a stop) writes what the row needs.
 * <p>
 * Threads: callers' threads and the poll's thread hold calls; the timers' workers fire them, the
 * gate thread drops them at their gates (and holds again those to retry), executors' threads
 * take them off the backlog as they start; the closing thread drains. Every map is
 * concurrent, and each removal names the call it removes, so that a newer claim of the same row
 * (or a newer call with the same key) is never taken for an older one. The backlog is a count,
 * left once per call through the call's own flag.
 */
public final class HeldCalls {

	private final Map<UUID, Timeout> held = new ConcurrentHashMap<>();

	/** The held calls that have a key, by method id and key. */
	private final Map<String, UUID> byKey = new ConcurrentHashMap<>();

	/** Futures of calls not held here yet, completed if a poll brings the call to this JVM. */
	private final Map<UUID, WeakReference<DurableResult>> futures = new ConcurrentHashMap<>();

	/**
	 * Calls already due when they went on a wheel and not started yet: what this instance's
	 * executors still have to get through. A poll claims no more once a batch is waiting, so that
	 * a backlog is shared with the other instances instead of hoarded by the first to poll.
	 */
	private final AtomicInteger backlog = new AtomicInteger();

	private final int batchSize;

	/** Set by a poll that stopped for the backlog: the next poll comes once half of it started. */
	private volatile boolean refillWanted;

	/** Brings the next poll forward; set once by the poller before the first call is held. */
	private volatile Runnable refill = () -> {
	};

	/**
	 * The held calls a stopping instance still runs itself. Set once by {@link #drain}; emptied by
	 * the executors' threads as the calls start, or by whoever hands one back.
	 */
	private volatile @Nullable Set<UUID> draining;

	public HeldCalls(int batchSize) {
		this.batchSize = batchSize;
	}

	public void refillWith(Runnable refill) {
		this.refill = refill;
	}

	/**
	 * Puts a claimed call on its method's wheel, to fire on the tick of its due time.
	 * @return {@code null}, or why the timer refused it: the caller then hands its row back
	 */
	@Nullable RuntimeException hold(HeldCall call, Instant now) {
		return hold(call, now, Duration.ZERO);
	}

	/**
	 * Puts a call on its method's wheel, to fire on the tick of its due time, or after
	 * {@code atLeast} if that is later (a gate to try again).
	 * @return {@code null}, or why the timer refused it: the caller then hands its row back
	 */
	@Nullable RuntimeException hold(HeldCall call, Instant now, Duration atLeast) {
		long delayNanos = Math.max(atLeast.toNanos(), Duration.between(now, call.due()).toNanos());
		if (delayNanos == 0) {
			// Before the wheel: a call that fires and starts at once leaves the backlog once, either way.
			enterBacklog(call);
		}
		Timeout timeout;
		try {
			timeout = call.durableMethod().method().timer().newTimeout(call, delayNanos, TimeUnit.NANOSECONDS);
		}
		catch (RuntimeException refused) {
			return refused;
		}
		Timeout previous = this.held.put(call.id(), timeout);
		if (previous != null && previous.task() instanceof HeldCall stale && stale != call && previous.cancel()) {
			// Claimed again while an older claim of the same row was still on the wheel (this instance
			// took itself over after a pause): the older one would fail its gate anyway.
			leaveBacklog(stale);
		}
		String key = call.key();
		if (key != null) {
			this.byKey.put(keyOf(call.durableMethod().id(), key), call.id());
		}
		if (timeout.isExpired()) {
			// It fired (and was taken off) before it was recorded.
			dropFired(call);
		}
		return null;
	}

	/** A call due already goes to its gate without a wheel: it counts in the backlog until it starts. */
	void enterBacklog(HeldCall call) {
		call.enterBacklog();
		this.backlog.incrementAndGet();
	}

	/** @return the id of the held call of that method and key, or {@code null} */
	public @Nullable UUID heldWith(String methodId, String key) {
		return this.byKey.get(keyOf(methodId, key));
	}

	/**
	 * Takes a cancelled or replaced call off its wheel, if it is still held here: only that call,
	 * never a newer one made with the same key in between.
	 * @return the call, if this took it off; the caller hands its row back if it is somehow there
	 */
	public @Nullable HeldCall drop(String methodId, String key, UUID id) {
		this.byKey.remove(keyOf(methodId, key), id);
		return drop(id);
	}

	/** @return the call with that id, if this took it off its wheel */
	public @Nullable HeldCall drop(UUID id) {
		Timeout timeout = this.held.get(id);
		if (timeout != null && timeout.task() instanceof HeldCall call && timeout.cancel()) {
			drop(call);
			return call;
		}
		return null;
	}

	/** Drops a held call that will not start here (it goes back, or was cancelled), and from the stop's drain. */
	void drop(HeldCall call) {
		dropFired(call);
		drained(call.id());
	}

	/** Drops a call that fired, or will not start here: off its wheel's index and the backlog. */
	void dropFired(HeldCall call) {
		dropAtGate(call);
		leaveBacklog(call);
	}

	/**
	 * Drops a call that fired and is at its gate, keeping it in the backlog until it starts on
	 * its executor's thread or will not start here ({@link #leaveBacklog}): a batch that passed its
	 * gates but waits for busy executors still holds a poll back.
	 */
	void dropAtGate(HeldCall call) {
		this.held.computeIfPresent(call.id(), (id, timeout) -> (timeout.task() == call) ? null : timeout);
		String key = call.key();
		if (key != null) {
			this.byKey.remove(keyOf(call.durableMethod().id(), key), call.id());
		}
	}

	/** The call started on its executor's thread, or will not start here: it leaves the backlog, once. */
	void leaveBacklog(HeldCall call) {
		if (call.leaveBacklog()) {
			this.backlog.decrementAndGet();
			refillIfHalfGone();
		}
	}

	/** Brings the next poll forward once, if a poll wants it and half of the backlog has started. */
	private void refillIfHalfGone() {
		if (this.refillWanted && this.backlog.get() <= this.batchSize / 2) {
			this.refillWanted = false;
			this.refill.run();
		}
	}

	/** @return whether a batch of due calls waits for this instance's executors */
	public boolean backlogFull() {
		return this.backlog.get() >= this.batchSize;
	}

	/** A poll stopped claiming for the backlog: the next one comes once half of it started. */
	public void wantRefill() {
		this.refillWanted = true;
		refillIfHalfGone();
	}

	/** Keeps a caller's future until the call is held, here or nowhere. */
	public void awaitHolding(UUID id, DurableResult result) {
		this.futures.put(id, new WeakReference<>(result));
	}

	/** @return the future of a call a poll claimed, if its caller is in this JVM and still wants it */
	public @Nullable DurableResult claimFuture(UUID id) {
		WeakReference<DurableResult> future = this.futures.remove(id);
		return (future != null) ? future.get() : null;
	}

	/** Drops a caller's future: its call is held now, rolled back, or passed its gate. */
	public void dropFuture(UUID id) {
		this.futures.remove(id);
	}

	/** Drops the futures whose callers no longer hold them: the clean-up's, once a minute. */
	public void dropLostFutures() {
		this.futures.values().removeIf((reference) -> reference.get() == null);
	}

	public int size() {
		return this.held.size();
	}

	/** @return whether the call with that id is on a wheel here, or fired and not yet at its gate */
	public boolean holds(UUID id) {
		return this.held.containsKey(id);
	}

	/**
	 * Starts the drain of a stopping instance: keeps on their wheels the calls due by
	 * {@code keepUntil} (to start here), and takes the others off.
	 * @param keepUntil the last due time kept, or {@code null} to keep none
	 * @return the calls taken off, whose rows go back
	 */
	public List<HeldCall> drain(@Nullable Instant keepUntil) {
		Set<UUID> kept = ConcurrentHashMap.newKeySet();
		this.draining = kept;
		List<HeldCall> off = new ArrayList<>();
		for (Timeout timeout : new ArrayList<>(this.held.values())) {
			if (!(timeout.task() instanceof HeldCall call)) {
				continue;
			}
			if (keepUntil != null && !call.due().isAfter(keepUntil)) {
				// Added before the check: drop() removes it from held, then from kept.
				kept.add(call.id());
				if (!this.held.containsKey(call.id())) {
					kept.remove(call.id());
				}
			}
			else if (timeout.cancel()) {
				drop(call);
				off.add(call);
			}
		}
		return off;
	}

	/**
	 * Waits until the kept calls have started (or gone back), or until {@code deadline}.
	 * @return {@code false} if the thread was interrupted: the stop goes on without waiting
	 */
	public boolean awaitDrained(Instant deadline) {
		Set<UUID> kept = this.draining;
		if (kept == null) {
			return true;
		}
		synchronized (kept) {
			while (!kept.isEmpty()) {
				long waitMillis = Duration.between(Instant.now(), deadline).toMillis();
				if (waitMillis <= 0) {
					return true;
				}
				try {
					kept.wait(waitMillis);
				}
				catch (InterruptedException ex) {
					return false;
				}
			}
		}
		return true;
	}

	/**
	 * Ends the wait for the kept calls: those still on their wheels are taken off.
	 * @return the calls taken off, whose rows go back
	 */
	public List<HeldCall> dropUndrained() {
		List<HeldCall> off = new ArrayList<>();
		for (UUID id : stillDraining()) {
			HeldCall call = drop(id);
			if (call != null) {
				off.add(call);
			}
		}
		return off;
	}

	/** @return the kept calls that have not started yet: they fired, and wait for an executor's thread */
	public Set<UUID> stillDraining() {
		Set<UUID> kept = this.draining;
		return (kept != null) ? Set.copyOf(kept) : Set.of();
	}

	/** Tells a stopping instance that one of the calls it kept has started, or will not start here. */
	void drained(UUID id) {
		Set<UUID> kept = this.draining;
		if (kept != null && kept.remove(id) && kept.isEmpty()) {
			synchronized (kept) {
				kept.notifyAll();
			}
		}
	}

	private static String keyOf(String methodId, String key) {
		return methodId + '\u0000' + key;
	}

}
