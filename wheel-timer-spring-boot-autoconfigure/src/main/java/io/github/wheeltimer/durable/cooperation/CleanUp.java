package io.github.wheeltimer.durable.cooperation;

import java.time.Instant;
import java.util.List;

import io.github.wheeltimer.durable.run.DurableClock;
import io.github.wheeltimer.durable.run.HeldCalls;
import io.github.wheeltimer.durable.storage.CallCount;
import io.github.wheeltimer.durable.storage.CallRepository;
import io.github.wheeltimer.durable.storage.InstanceRepository;
import io.github.wheeltimer.durable.storage.InstanceStatus;
import io.github.wheeltimer.durable.storage.UnreadableCalls;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The poll's clean-up, once a minute: rows past their retention go, and the calls that wait for
 * an instance that does not run (of a method no live instance knows, or written by a version none
 * reads) are counted for the health check and said in a warning.
 * <p>
 * Threads: the poll thread; {@link #waiting()} is read by health checks, through a volatile.
 */
final class CleanUp {

	private static final Log logger = LogFactory.getLog(CleanUp.class);

	private final CallRepository calls;

	private final InstanceRepository instances;

	private final HeldCalls held;

	private final InstancesView reports;

	private final TakeOvers takeOvers;

	private final DurableClock clock;

	private final DurableSettings settings;

	/** Written by the clean-ups, read by health checks. */
	private volatile StrandedCalls waiting = new StrandedCalls(0, 0);

	CleanUp(CallRepository calls, InstanceRepository instances, HeldCalls held, InstancesView reports,
			TakeOvers takeOvers, DurableClock clock, DurableSettings settings) {
		this.calls = calls;
		this.instances = instances;
		this.held = held;
		this.reports = reports;
		this.takeOvers = takeOvers;
		this.clock = clock;
		this.settings = settings;
	}

	/** Removes what is past its retention: once a minute is plenty, and keeps an idle instance quiet. */
	void cleanUp() {
		long nowNanos = System.nanoTime();
		this.takeOvers.forgetOldNotes(nowNanos);
		this.calls.deleteFailedBefore(this.settings.failedRetention());
		this.instances.deleteSilentFor(this.settings.lease().multipliedBy(10));
		this.held.dropLostFutures();
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
	List<UnreadableCalls> countWaiting(List<InstanceStatus> instances, @Nullable List<CallCount> unknown) {
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
	StrandedCalls waiting() {
		return this.waiting;
	}

}
