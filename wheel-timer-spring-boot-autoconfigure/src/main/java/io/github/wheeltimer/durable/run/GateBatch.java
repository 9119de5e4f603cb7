package io.github.wheeltimer.durable.run;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import io.github.wheeltimer.durable.storage.CallRepository;
import io.github.wheeltimer.durable.storage.DatabaseFailure;
import io.github.wheeltimer.durable.storage.DatabaseProblems.Source;
import io.github.wheeltimer.durable.storage.RowWrites;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.PessimisticLockingFailureException;

/**
 * The gate of the calls that fell due together: one conditional update moves their rows from
 * {@code CLAIMED} to {@code RUNNING} while they are still this instance's and its lease is fresh;
 * each call that passed goes to its method's executor. A call whose row another transaction holds
 * (or whose gate found the lease lapsed, or lost its locks on every try) is held again for a while;
 * one no longer ours is fenced.
 * <p>
 * Threads: timers' workers {@link #enter} fired calls into the {@link CallBatches batches};
 * {@link #gate} runs on the batches' thread, before anything of the calls' own.
 */
final class GateBatch implements GateEntry {

	private static final Log logger = LogFactory.getLog(GateBatch.class);

	static final String STOPPED = "it fell due as this instance stopped";

	private final CallRepository calls;

	private final HeldCalls held;

	private final RowWrites writes;

	private final CallCounters counters;

	private final UUID instance;

	private final CallBatches batches;

	private final HandBack handBack;

	private final Hold hold;

	private final CallRunner runner;

	GateBatch(CallRepository calls, HeldCalls held, RowWrites writes, CallCounters counters, UUID instance,
			DurableClock clock, CallBatches batches, HandBack handBack, CallRunner runner) {
		this.calls = calls;
		this.held = held;
		this.writes = writes;
		this.counters = counters;
		this.instance = instance;
		this.batches = batches;
		this.handBack = handBack;
		// The calls it holds again enter here: the one stage that holds calls needs this gate.
		this.hold = new Hold(held, clock, this, handBack);
		this.runner = runner;
	}

	/** @return the stage that holds calls, whose due calls enter this gate */
	Hold hold() {
		return this.hold;
	}

	@Override
	public void enter(HeldCall call) {
		if (!this.batches.fired(call)) {
			this.handBack.handBack(call, STOPPED);
		}
	}

	/** The call will not run here after all: its row goes back to pending for any instance. */
	@Override
	public void timerStopped(HeldCall call) {
		this.handBack.handBack(call, "its timer stopped");
	}

	/** The batches' thread: a batch of fired calls through their gates, then on to their executors. */
	void gate(List<HeldCall> batch) {
		Map<UUID, HeldCall> gating = new LinkedHashMap<>();
		List<HeldCall> fenced = new ArrayList<>();
		for (HeldCall call : batch) {
			// Off its wheel, and off the backlog once it starts on its executor's thread.
			this.held.dropAtGate(call);
			if (gating.putIfAbsent(call.id(), call) != null) {
				// Claimed twice (this instance took itself over): the row has one gate.
				fenced.add(call);
			}
		}
		try {
			CallRepository.Gates gates = startAll(gating);
			for (HeldCall call : gating.values()) {
				if (gates == null) {
					// Its row goes back (or, stopping with the database gone, is left to the lease).
					call.withdrawn();
					this.held.leaveBacklog(call);
				}
				else if (gates.waiting().contains(call.id())) {
					this.hold.holdAfterGateWait(call);
				}
				else if (!gates.passed().contains(call.id())) {
					// Not ours any more: cancelled, replaced, or taken over elsewhere.
					fenced.add(call);
				}
			}
			this.counters.fenced.add(fenced.size());
			for (HeldCall call : fenced) {
				call.withdrawn();
				this.held.leaveBacklog(call);
			}
			if (gates != null) {
				for (HeldCall call : gating.values()) {
					if (gates.passed().contains(call.id())) {
						this.held.dropFuture(call.id());
						execute(call);
					}
				}
			}
		}
		finally {
			batch.forEach((call) -> this.held.drained(call.id()));
		}
	}

	/**
	 * The gate statement of a batch.
	 * @return what the gates decided; {@code null} if none may start: the rows are handed back
	 * later or, while stopping with the database not answering, left to the lease
	 */
	private CallRepository.@Nullable Gates startAll(Map<UUID, HeldCall> gating) {
		try {
			AtomicReference<CallRepository.Gates> answer = new AtomicReference<>();
			if (!this.writes.run(() -> answer.set(this.calls.start(gating.keySet(), this.instance)))) {
				return null;
			}
			this.writes.succeeded(Source.CALLS);
			return answer.get();
		}
		catch (PessimisticLockingFailureException lost) {
			// Lost to other transactions' locks on every try (InnoDB's gap locks, under a crowd of
			// claims and callers): rolled back, so the rows are still claimed here, and wait on their
			// wheels for another try, as rows held by another transaction do. Handed back, they would
			// wait for a poll, late, on whichever instance claims them.
			logger.debug(gating.size() + " durable calls (" + gating.values().iterator().next() + "...) lost their"
					+ " start gate's locks on every try; they try again shortly: " + lost.getMessage());
			return new CallRepository.Gates(Set.of(), Set.copyOf(gating.keySet()));
		}
		catch (RuntimeException ex) {
			// One warning for an outage, not one per call due during it; a refusal is these rows' alone.
			this.writes.failed(Source.CALLS, ex);
			String failure = gating.size() + " durable calls (" + gating.values().iterator().next() + "...) cannot"
					+ " start, their database failed; they are handed back: " + ex.getMessage();
			if (DatabaseFailure.of(ex) == DatabaseFailure.REFUSED) {
				logger.error(failure);
			}
			else {
				logger.debug(failure);
			}
			// The gate's update may have passed with its answer lost: a row is then running at its
			// call's attempt, and goes back too.
			gating.values().forEach(this.handBack::afterGateLater);
			return null;
		}
	}

	/** Hands a call that passed its gate to its method's executor; one it refuses goes back. */
	private void execute(HeldCall call) {
		try {
			call.method().execute(() -> this.runner.run(call));
			this.counters.started.increment();
		}
		catch (RuntimeException | Error refused) {
			// Not a failure of the call: it goes back, to run later or elsewhere.
			call.withdrawn();
			this.held.leaveBacklog(call);
			logger.debug(call.description() + " handed back to the database: its executor refused it: " + refused);
			this.handBack.afterGate(call);
		}
	}

}
