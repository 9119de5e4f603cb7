package io.github.wheeltimer.durable.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;

import io.github.wheeltimer.durable.cooperation.ClaimPoller;
import io.github.wheeltimer.durable.cooperation.DurableSettings;
import io.github.wheeltimer.durable.run.CallCounters;
import io.github.wheeltimer.durable.run.DurableClock;
import io.github.wheeltimer.durable.run.HeldCalls;
import io.github.wheeltimer.durable.run.RunPipeline;
import io.github.wheeltimer.durable.storage.CallRepository;
import io.github.wheeltimer.durable.storage.DatabaseProblems;
import io.github.wheeltimer.durable.storage.RowWrites;
import io.github.wheeltimer.durable.storage.ShutdownBudget;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The stop of this instance's durable calls: the calls it claimed and has not started go back to
 * the database, for the other instances (or this application's next start) to run. Those due
 * within a poll interval run here first, on their tick, and the stop waits for them to start:
 * handed back, they would wait for another instance's next poll. Under a virtual clock everything
 * goes back at once. A poll in progress ends first, so that each call goes back, and is counted,
 * once. Once the database is known unreachable, or the shutdown timeout is spent, the rest is left
 * to the lease, as after a crash, and one WARN line says so.
 * <p>
 * Threads: the one that closes the application, once; the poll it waits for runs on the poll
 * thread, and every statement goes through the stop's {@link ShutdownBudget}.
 */
final class Stopping {

	private static final Log logger = LogFactory.getLog(Stopping.class);

	/** How long past the last kept call's due time the stop waits for it to pass its gate. */
	private static final Duration DRAIN_SLACK = Duration.ofSeconds(1);

	private final CallRepository calls;

	private final HeldCalls held;

	private final RunPipeline pipeline;

	private final ClaimPoller poller;

	private final RowWrites writes;

	private final DatabaseProblems problems;

	private final CallCounters counters;

	private final DurableClock clock;

	private final DurableSettings settings;

	private final UUID instance;

	Stopping(CallRepository calls, HeldCalls held, RunPipeline pipeline, ClaimPoller poller, RowWrites writes,
			DatabaseProblems problems, CallCounters counters, DurableClock clock, DurableSettings settings,
			UUID instance) {
		this.calls = calls;
		this.held = held;
		this.pipeline = pipeline;
		this.poller = poller;
		this.writes = writes;
		this.problems = problems;
		this.counters = counters;
		this.clock = clock;
		this.settings = settings;
		this.instance = instance;
	}

	void stop() {
		// What is kept is what falls due within a poll interval of this moment: the wait for the poll
		// below must not widen it, holding the close for calls that the others could run on time.
		Instant stopping = this.clock.now();
		this.poller.stop();
		ShutdownBudget budget = this.writes.stopping();
		// Before the drain: a claim the poll in progress sent lands on a wheel, where the drain finds
		// it, and none lands after the release below, which it would undo (the rows it released are
		// pending and within the horizon), making this stop hand them back, and count them, twice.
		// Time on the database, so within the budget: a poll the database holds past it is left
		// behind, and with it every statement of this stop (the lease then hands the rows on).
		budget.run(this::awaitPollEnded);
		// A database known unreachable would refuse their gates: nothing is kept to run here.
		Instant keepUntil = (this.clock.system() && !this.problems.unreachable())
				? stopping.plus(this.settings.pollInterval()) : null;
		Map<String, Integer> byMethod = new TreeMap<>();
		this.held.drain(keepUntil).forEach((call) -> byMethod.merge(call.method().description(), 1, Integer::sum));
		boolean interrupted = false;
		try {
			// Finishes and failures that waited for the database first: their calls must not run again.
			this.writes.retryDeferred();
			int released = handBackAll(budget, keepUntil, Set.of());
			int ranHere = 0;
			if (keepUntil != null) {
				int kept = this.held.stillDraining().size();
				// Their gates are statements of the budget: a database that does not answer makes them give
				// up, and the wait ends with them.
				interrupted = !this.held.awaitDrained(keepUntil.plus(DRAIN_SLACK));
				// What did not fire in time goes back too, and so do claims that were not held (made while
				// stopping); calls that fired and wait for an executor thread still run here.
				this.held.dropUndrained()
					.forEach((call) -> byMethod.merge(call.method().description(), 1, Integer::sum));
				Set<UUID> starting = this.held.stillDraining();
				ranHere = kept - starting.size();
				// Calls due already when claimed wait for their gate without a wheel: they start here too.
				Set<UUID> leftClaimed = new HashSet<>(starting);
				leftClaimed.addAll(this.pipeline.atGate());
				released += handBackAll(budget, null, leftClaimed);
			}
			if (released > 0) {
				logger.warn(released + ((released == 1) ? " durable call" : " durable calls")
						+ " handed back to the database, to run on another instance or at the next start: "
						+ byMethod.entrySet()
							.stream()
							.map((entry) -> entry.getKey() + " x" + entry.getValue())
							.collect(Collectors.joining(", "))
						+ ((ranHere > 0) ? "; " + ranHere + " due within the poll interval started here first" : ""));
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Durable calls could not be handed back (" + ex.getMessage() + "); other instances take them"
					+ " over once this instance's lease (" + this.settings.lease() + ") runs out");
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/** On a thread of the stop's budget, which interrupts it once the budget is spent. */
	private void awaitPollEnded() {
		try {
			this.poller.awaitPollEnded();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** @return how many claimed calls went back, within the stop's budget */
	private int handBackAll(ShutdownBudget budget, @Nullable Instant after, Set<UUID> except) {
		int[] released = new int[1];
		budget.run(() -> released[0] = this.calls.handBackAll(this.instance, after, except));
		this.counters.countHandedBack(released[0]);
		return released[0];
	}

}
