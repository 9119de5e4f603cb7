package io.github.wheeltimer.durable.run;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import io.github.wheeltimer.durable.arguments.DurableMethods;
import io.github.wheeltimer.durable.storage.CallRepository;
import io.github.wheeltimer.durable.storage.RowWrites;
import org.jspecify.annotations.Nullable;

/**
 * The run of the calls this instance holds, as stages that each hand a call only to a later one:
 * <ol>
 * <li>{@link Hold}: a claimed call waits on its method's wheel, or, due already, goes straight to
 * its gate;</li>
 * <li>{@link GateBatch}: the calls that fell due together pass their gates in one statement, then
 * go to their methods' executors;</li>
 * <li>{@link CallRunner}: on the executor, the arguments are read back and the method invoked;</li>
 * <li>{@link RunEnd}: the one outcome of the run, counted, and the row's last write;</li>
 * <li>{@link FinishBatch}: the rows of the calls that ran go together, the retries' rows wait.</li>
 * </ol>
 * {@link HandBack} takes a call from any stage that will not run it here; a call whose gate said
 * wait, and a retry due within the horizon, are held again: a new run, from the first stage. The
 * gates and the finishes are written on one thread of their own ({@link CallBatches}). The engine
 * builds this once and uses only it, and the held calls.
 */
public final class RunPipeline {

	private final CallBatches batches;

	private final HandBack handBack;

	private final GateBatch gate;

	private final FinishBatch finish;

	private final DurableMethods methods;

	private final DurableClock clock;

	/**
	 * @param lease how long a lapsed heartbeat keeps this instance's calls, for the warning of a
	 * run that outlived it
	 * @param horizon a retry due within it waits on this instance's wheel
	 */
	public RunPipeline(CallRepository calls, DurableMethods methods, HeldCalls held, RowWrites writes,
			CallCounters counters, DurableClock clock, UUID instance, Duration lease, Duration horizon) {
		this.methods = methods;
		this.clock = clock;
		// The batches' thread calls the two stages built after it; it starts only once they are.
		this.batches = new CallBatches(this::gate, this::finish, CallRepository.BATCH_LENGTH);
		this.handBack = new HandBack(calls, held, writes, counters, instance);
		RunEnd end = new RunEnd(calls, writes, counters, clock, instance, lease, horizon, this.batches, this.handBack);
		CallRunner runner = new CallRunner(calls, methods, held, counters, clock, instance, end);
		this.gate = new GateBatch(calls, held, writes, counters, instance, clock, this.batches, this.handBack, runner);
		this.finish = new FinishBatch(calls, held, writes, counters, instance, this.gate, this.gate.hold());
	}

	private void gate(List<HeldCall> batch) {
		this.gate.gate(batch);
	}

	private void finish(List<HeldCall> ended) {
		this.finish.finish(ended);
	}

	/** Starts the batches' thread, on the starting thread. */
	public void start() {
		// At least once a tick the rows of the calls that ran go; at once on a virtual clock, where
		// a test reads the table when the clock stands still.
		this.batches.start(this.clock.system() ? this.methods.shortestTick() : Duration.ZERO);
	}

	/**
	 * Ends the batches, writing the finishes still waiting, and hands back the calls that fell due
	 * too late to pass their gate; on the closing thread.
	 * @param wait the most to wait for a statement in progress
	 */
	public void stop(Duration wait) {
		for (HeldCall call : this.batches.stop(wait)) {
			this.handBack.handBack(call, GateBatch.STOPPED);
		}
	}

	/** @return where the calls this instance holds go when they fire */
	public GateEntry gate() {
		return this.gate;
	}

	/** Holds a claimed call on its method's wheel, or sends it to its gate if it is due already. */
	public void hold(HeldCall call) {
		this.gate.hold().hold(call);
	}

	/** @return what the batches are doing, for a virtual clock to wait for; {@code null} if idle */
	public @Nullable String busy() {
		return this.batches.busy();
	}

	/** @return the ids of the calls that wait for their gate */
	public Set<UUID> atGate() {
		return this.batches.atGate();
	}

	/** @return how many calls fell due and wait for their gate, or ran and wait for their finish */
	int waiting() {
		return this.batches.waiting();
	}

}
