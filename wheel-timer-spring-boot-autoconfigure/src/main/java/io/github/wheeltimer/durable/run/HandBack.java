package io.github.wheeltimer.durable.run;

import java.util.UUID;

import io.github.wheeltimer.durable.storage.CallRepository;
import io.github.wheeltimer.durable.storage.RowWrites;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Where a held call goes when it will not run here after all: its row goes back to
 * {@code PENDING}, for any instance. The end of the line for a call; any thread may send one here
 * (a stop, a refusing timer or executor, a failed gate, a run whose end the database failed).
 */
final class HandBack {

	private static final Log logger = LogFactory.getLog(HandBack.class);

	private final CallRepository calls;

	private final HeldCalls held;

	private final RowWrites writes;

	private final CallCounters counters;

	private final UUID instance;

	HandBack(CallRepository calls, HeldCalls held, RowWrites writes, CallCounters counters, UUID instance) {
		this.calls = calls;
		this.held = held;
		this.writes = writes;
		this.counters = counters;
		this.instance = instance;
	}

	/** A held call whose gate has not run: off this instance's memory, its row back. */
	void handBack(HeldCall call, String why) {
		call.withdrawn();
		this.held.drop(call);
		logger.debug(call.description() + " handed back to the database: " + why);
		this.writes.write(write(call, false));
	}

	/**
	 * A call whose gate ran (and failed, or passed for an executor that refused it, or for a run
	 * whose end the database failed): its row may be running at this attempt, and goes back.
	 */
	void afterGate(HeldCall call) {
		this.writes.write(write(call, true));
	}

	/** As {@link #afterGate}, left to the next poll: the database just failed the gate's statement. */
	void afterGateLater(HeldCall call) {
		this.writes.defer(write(call, true));
	}

	/**
	 * Counted when the row goes back, not when asked: a stop's bulk hand-back may give the same row
	 * back first, and counts it then.
	 */
	private RowWrites.Write write(HeldCall call, boolean afterGate) {
		return new RowWrites.Write(call.description(), "handed back", () -> {
			boolean back = afterGate ? this.calls.handBackAfterGate(call.id(), this.instance, call.attempt())
					: this.calls.handBack(call.id(), this.instance);
			if (back) {
				this.counters.handedBack.increment();
			}
		}, null);
	}

}
