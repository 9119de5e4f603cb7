package io.github.wheeltimer.virtualtime;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.wheeltimer.virtualtime.VirtualTicker.Work;

/**
 * Waits, in real time, until what fell due at the current virtual time is done: the workers of a
 * {@link VirtualClock} have parked again and the registered {@link Work} is idle. Gives up after
 * the settle timeout with a message that says what is still busy. Only the advancing thread
 * settles; any thread may register work or set the timeout.
 *
 * <p>Registered work is asked without the clock's lock: it reads other objects (a timer's
 * counters, an executor), which may take locks of their own. A check therefore spans two moments:
 * the workers are settled at generation g, then the work is idle, then the generation is still g.
 * A worker that woke, parked or was unparked in between (a task on an executor scheduling a
 * timeout, say) changes the generation and sends the check round again.
 *
 * <p>Works are asked one after another, and may hand work to each other: a call that ends on an
 * executor queues its row's write for another thread, then counts itself done. Asked just before
 * that hand-off, the writer is idle; asked just after it, the executor is idle too, while the
 * write is still to come. So a first pass that finds every work idle is confirmed by a second
 * one: work that moved between two works during the first is seen where it went.
 */
final class Settler {

	/** The first real pause while registered work is busy; each next pause doubles, up to the longest. */
	private static final long FIRST_POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(50);

	private static final long LONGEST_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	private final VirtualClock clock;

	private final List<Work> registeredWork = new CopyOnWriteArrayList<>();

	private volatile Duration timeout = VirtualTicker.DEFAULT_SETTLE_TIMEOUT;

	Settler(VirtualClock clock) {
		this.clock = clock;
	}

	/** Any thread: from now on, settling also waits for {@code work} to be idle. */
	void add(Work work) {
		this.registeredWork.add(work);
	}

	/** Any thread: the longest wait of each settle, positive. */
	void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

	/**
	 * Waits, in real time and for at most the settle timeout, until the workers have settled at
	 * the current virtual time and the registered work is idle, both seen at one generation.
	 * @return the generation at which the workers and the work were seen settled
	 * @throws IllegalStateException if the timeout ran out (saying what is still busy), or the
	 * thread was interrupted (its interrupt flag stays set)
	 */
	long settle() {
		long startedAt = System.nanoTime();
		long giveUpAt = startedAt + saturatedNanos(this.timeout);
		long pollNanos = FIRST_POLL_NANOS;
		while (true) {
			long settledGeneration = awaitSettledWorkers(giveUpAt);
			if (settledGeneration == VirtualClock.TIMED_OUT) {
				throw stuck(startedAt);
			}
			String busy = firstBusyWork();
			if (busy == null) {
				busy = firstBusyWork();
			}
			if (busy == null) {
				if (this.clock.isStill(settledGeneration)) {
					return settledGeneration;
				}
				pollNanos = FIRST_POLL_NANOS;
				continue;
			}
			if (System.nanoTime() - giveUpAt >= 0) {
				throw stuck(startedAt);
			}
			// The work runs on threads that do not signal us: look again after a short pause,
			// longer each time, so that a long task costs few looks and a short one little delay.
			LockSupport.parkNanos(this, pollNanos);
			if (Thread.currentThread().isInterrupted()) {
				throw interrupted(null);
			}
			pollNanos = Math.min(pollNanos * 2, LONGEST_POLL_NANOS);
		}
	}

	/** @return the generation at which the workers were seen settled, or TIMED_OUT */
	private long awaitSettledWorkers(long giveUpAt) {
		try {
			return this.clock.awaitSettledWorkers(giveUpAt);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw interrupted(ex);
		}
	}

	private String firstBusyWork() {
		for (Work work : this.registeredWork) {
			String busy = work.busy();
			if (busy != null) {
				return busy;
			}
		}
		return null;
	}

	/** The advance stops; the interrupt flag stays set for the caller to see. */
	private IllegalStateException interrupted(InterruptedException cause) {
		return new IllegalStateException("Interrupted while waiting for the timers to settle at virtual time "
				+ Duration.ofNanos(this.clock.now()), cause);
	}

	private IllegalStateException stuck(long startedAt) {
		long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedAt);
		List<String> busy = this.clock.describeUnsettledWorkers();
		for (Work work : this.registeredWork) {
			String description = work.busy();
			if (description != null) {
				busy.add(description);
			}
		}
		StringBuilder message = new StringBuilder("Virtual time is stuck at ")
			.append(Duration.ofNanos(this.clock.now()))
			.append(": what fell due was not done after ").append(waitedMillis).append(" ms of real time");
		if (busy.isEmpty()) {
			message.append(", though it finished just as the wait ran out");
		}
		else {
			message.append("; still busy:");
			for (String description : busy) {
				message.append("\n - ").append(description);
			}
		}
		message.append("\nA task that blocks (on a latch, a lock, a slow call, or a thread that waits for virtual time)"
				+ " holds virtual time still; if a task really needs longer, raise setSettleTimeout (now "
				+ this.timeout + ").");
		return new IllegalStateException(message.toString());
	}

	private static long saturatedNanos(Duration duration) {
		try {
			return duration.toNanos();
		}
		catch (ArithmeticException overflow) {
			return Long.MAX_VALUE;
		}
	}

}
