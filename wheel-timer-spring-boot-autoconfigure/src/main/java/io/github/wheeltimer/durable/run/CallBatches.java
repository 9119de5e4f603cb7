package io.github.wheeltimer.durable.run;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The start gates and the finishes of this instance's calls, a batch per statement, on a thread
 * of its own: the calls that fall due on one tick pass their gates together, then go to their
 * executors; the rows of calls that ran go together, at least once a tick, and at the stop.
 * <p>
 * Threads: timers' workers put fired calls in, executors' threads put ended calls in, and the
 * batches' thread takes them out. Whatever came in while a statement ran makes the next batch,
 * so a tick's calls take one statement or a few, and a burst grows its batches by itself. Once
 * {@link #stop stopped}, whoever puts a call in (or the closing thread) takes the batches out
 * itself; the queues are safe for several takers, and each call is taken once.
 */
final class CallBatches {

	private static final Log logger = LogFactory.getLog(CallBatches.class);

	private final Queue<HeldCall> fired = new ConcurrentLinkedQueue<>();

	private final Queue<HeldCall> ended = new ConcurrentLinkedQueue<>();

	/** Ended calls not written yet: the first one wakes the thread, which then waits a tick for more. */
	private final AtomicInteger unwritten = new AtomicInteger();

	/** The ids of fired calls whose gate has not ended: what a stop leaves claimed, to start here. */
	private final Set<UUID> atGate = ConcurrentHashMap.newKeySet();

	/** Calls in either queue or in a batch being written: what a virtual clock waits for. */
	private final AtomicInteger inProgress = new AtomicInteger();

	private final Consumer<List<HeldCall>> gate;

	private final Consumer<List<HeldCall>> finish;

	private final int batchLength;

	private final Thread thread;

	/** How long an ended call waits for others to share its statement: a tick; none on a virtual clock. */
	private volatile long finishDelayNanos;

	/**
	 * How long the first call that falls due after a quiet spell waits for the rest of its tick, which
	 * its timer's worker fires right after it: a twentieth of a tick, at most 200 µs; none on a
	 * virtual clock.
	 */
	private volatile long gatherNanos;

	private volatile boolean stopped;

	/**
	 * @param gate passes a batch of fired calls through their gates and hands them on
	 * @param finish writes the end of a batch of calls that ran
	 * @param batchLength the most calls of one statement
	 */
	CallBatches(Consumer<List<HeldCall>> gate, Consumer<List<HeldCall>> finish, int batchLength) {
		this.gate = gate;
		this.finish = finish;
		this.batchLength = batchLength;
		// A daemon, as every thread of durable calls, so that a JVM whose context was never closed exits.
		this.thread = new Thread(this::loop, "wheel-timer-durable-gate-1");
		this.thread.setDaemon(true);
	}

	/** @param tick the shortest tick of the wheels whose calls come here; zero on a virtual clock */
	void start(Duration tick) {
		this.finishDelayNanos = tick.toNanos();
		this.gatherNanos = Math.min(tick.toNanos() / 20, TimeUnit.MICROSECONDS.toNanos(200));
		this.thread.start();
	}

	/**
	 * A timer's worker: the call fell due. It waits for the batch that gates it.
	 * @return {@code false} if stopped: the caller hands the call back
	 */
	boolean fired(HeldCall call) {
		if (this.stopped) {
			return false;
		}
		this.inProgress.incrementAndGet();
		this.atGate.add(call.id());
		this.fired.add(call);
		if (this.stopped && this.fired.remove(call)) {
			// Stopped meanwhile, and the stop's last look may have missed it.
			this.atGate.remove(call.id());
			this.inProgress.decrementAndGet();
			return false;
		}
		LockSupport.unpark(this.thread);
		return true;
	}

	/** An executor's thread: the call ran, and its row is to go. */
	void ran(HeldCall call) {
		this.inProgress.incrementAndGet();
		this.ended.add(call);
		boolean first = this.unwritten.getAndIncrement() == 0;
		if (this.stopped) {
			// No thread to wait for: this one writes what it finds.
			while (finishBatch()) {
				// Until the queue is empty.
			}
		}
		else if (first) {
			LockSupport.unpark(this.thread);
		}
	}

	/**
	 * The thread's loop. Gates come first, as calls wait for them; ended calls wait until one of
	 * their statements is full, a gate's batch went by (a busy tick), or a tick has passed.
	 */
	private void loop() {
		long finishAt = Long.MAX_VALUE;
		boolean idle = true;
		while (!this.stopped) {
			// A method run here (a caller-runs executor) may leave the flag set: parking must still park.
			Thread.interrupted();
			if (idle && this.gatherNanos > 0 && !this.fired.isEmpty()) {
				// Woken by the first call of a tick: the worker fires the rest within microseconds.
				LockSupport.parkNanos(this, this.gatherNanos);
			}
			boolean gated = gateBatch();
			idle = !gated;
			if (this.unwritten.get() > 0) {
				long now = System.nanoTime();
				if (finishAt == Long.MAX_VALUE) {
					finishAt = now + this.finishDelayNanos;
				}
				if (gated || now - finishAt >= 0 || this.unwritten.get() >= this.batchLength) {
					finishBatch();
					finishAt = Long.MAX_VALUE;
					continue;
				}
			}
			if (gated || !this.fired.isEmpty()) {
				continue;
			}
			if (finishAt == Long.MAX_VALUE) {
				LockSupport.park(this);
			}
			else {
				LockSupport.parkNanos(this, finishAt - System.nanoTime());
			}
		}
	}

	/** @return whether a batch of fired calls went through its gates */
	private boolean gateBatch() {
		List<HeldCall> batch = take(this.fired);
		if (batch.isEmpty()) {
			return false;
		}
		try {
			this.gate.accept(batch);
		}
		catch (RuntimeException | Error ex) {
			logger.error("Durable calls' start gates failed unexpectedly; their rows are left to the lease", ex);
		}
		finally {
			batch.forEach((call) -> this.atGate.remove(call.id()));
			this.inProgress.addAndGet(-batch.size());
		}
		return true;
	}

	/** @return whether a batch of ended calls was written */
	private boolean finishBatch() {
		List<HeldCall> batch = take(this.ended);
		if (batch.isEmpty()) {
			return false;
		}
		this.unwritten.addAndGet(-batch.size());
		try {
			this.finish.accept(batch);
		}
		catch (RuntimeException | Error ex) {
			logger.error("Durable calls' finishes failed unexpectedly; their rows are left to the lease", ex);
		}
		finally {
			this.inProgress.addAndGet(-batch.size());
		}
		return true;
	}

	private List<HeldCall> take(Queue<HeldCall> queue) {
		List<HeldCall> batch = new ArrayList<>();
		HeldCall call;
		while (batch.size() < this.batchLength && (call = queue.poll()) != null) {
			batch.add(call);
		}
		return batch;
	}

	/**
	 * Ends the thread, waiting for its statement in progress (which the stop's budget bounds),
	 * then writes what ended meanwhile on the calling thread.
	 * @param wait the most to wait for the thread
	 * @return the fired calls that never reached a gate: the caller hands them back
	 */
	List<HeldCall> stop(Duration wait) {
		this.stopped = true;
		LockSupport.unpark(this.thread);
		if (this.thread.isAlive() && this.thread != Thread.currentThread()) {
			try {
				this.thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(wait.toNanos())));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		while (finishBatch()) {
			// Until the queue is empty.
		}
		List<HeldCall> unstarted = new ArrayList<>();
		HeldCall call;
		while ((call = this.fired.poll()) != null) {
			this.atGate.remove(call.id());
			this.inProgress.decrementAndGet();
			unstarted.add(call);
		}
		return unstarted;
	}

	/** @return the ids of the fired calls whose gate has not ended */
	Set<UUID> atGate() {
		return Set.copyOf(this.atGate);
	}

	/** @return how many calls wait for a batch, or are in one being written */
	int waiting() {
		return this.inProgress.get();
	}

	/**
	 * Says whether calls wait for a batch.
	 * @return {@code null} if none, else how many
	 */
	@Nullable String busy() {
		int waiting = waiting();
		return (waiting > 0) ? waiting + " durable calls wait for the batch of their start gate or of their finish"
				: null;
	}

}
