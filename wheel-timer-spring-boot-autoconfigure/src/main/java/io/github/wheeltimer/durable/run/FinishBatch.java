package io.github.wheeltimer.durable.run;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.github.wheeltimer.durable.storage.CallRepository;
import io.github.wheeltimer.durable.storage.RowWrites;

/**
 * The last stage of a run: the rows of the calls that ran go, in one statement, and those of
 * failed attempts that a {@code @Retryable} tries again wait for their retries, in another. A
 * retry due within the horizon is then a new held call, held on this instance's wheel: a new run.
 * <p>
 * Threads: the batches' thread, or, once they stopped, the thread that ended a run.
 */
final class FinishBatch {

	private final CallRepository calls;

	private final HeldCalls held;

	private final RowWrites writes;

	private final CallCounters counters;

	private final UUID instance;

	private final GateEntry gate;

	private final Hold hold;

	FinishBatch(CallRepository calls, HeldCalls held, RowWrites writes, CallCounters counters, UUID instance,
			GateEntry gate, Hold hold) {
		this.calls = calls;
		this.held = held;
		this.writes = writes;
		this.counters = counters;
		this.instance = instance;
		this.gate = gate;
		this.hold = hold;
	}

	void finish(List<HeldCall> ended) {
		List<HeldCall> ran = new ArrayList<>(ended.size());
		List<HeldCall> failed = new ArrayList<>();
		for (HeldCall call : ended) {
			((call.retry() != null) ? failed : ran).add(call);
		}
		if (!ran.isEmpty()) {
			List<UUID> ids = ran.stream().map(HeldCall::id).toList();
			this.writes.write(new RowWrites.Write(ran.size() + " durable calls (" + ran.get(0) + "...)", "finished",
					() -> this.calls.finish(ids), null));
			this.counters.ran.add(ran.size());
		}
		if (!failed.isEmpty()) {
			retryAll(failed);
		}
	}

	/** The rows of failed attempts go back to wait for their retries, in one round trip. */
	private void retryAll(List<HeldCall> failed) {
		List<CallRepository.Retry> retries = failed.stream().map(HeldCall::retry).toList();
		this.writes.write(new RowWrites.Write(failed.size() + " durable calls (" + failed.get(0) + "...)", "set to retry",
				() -> holdRetries(failed, this.calls.retryAll(this.instance, retries)), () -> {
					// The database refused an error's text: each one alone, the refused one without it.
					for (HeldCall call : failed) {
						CallRepository.Retry retry = call.retry();
						this.writes.write(call.description(), "set to retry",
								() -> holdRetries(List.of(call), List.of(this.calls.retry(this.instance, retry))),
								() -> holdRetries(List.of(call), List.of(this.calls.retry(this.instance,
										retry.withError(RunEnd.ERROR_REFUSED)))));
					}
				}));
	}

	/**
	 * Holds each retry whose row waits for it on this instance's wheel: known by its key only if
	 * its row holds the key again, so that a cancel or a new call by that key never takes another
	 * call's place. A retry left pending keeps its caller's future for the poll that claims it here.
	 */
	private void holdRetries(List<HeldCall> failed, List<CallRepository.Retried> retried) {
		for (int i = 0; i < failed.size(); i++) {
			HeldCall call = failed.get(i);
			CallRepository.Retry retry = call.retry();
			if (retried.get(i) == CallRepository.Retried.LOST) {
				// Taken over while it ran (a pause longer than the lease): no longer this attempt's to retry.
				continue;
			}
			String key = (retried.get(i) == CallRepository.Retried.WITH_KEY) ? call.namedKey() : null;
			HeldCall next = new HeldCall(call.durableMethod(), call.id(), key, call.arguments(), retry.due(),
					retry.after(), call.traceParent(), call.result(), this.gate);
			next.startedKey(call.namedKey());
			DurableResult result = next.result();
			if (retry.holder() != null) {
				this.hold.hold(next);
			}
			else if (result != null) {
				this.held.awaitHolding(next.id(), result);
			}
		}
	}

}
