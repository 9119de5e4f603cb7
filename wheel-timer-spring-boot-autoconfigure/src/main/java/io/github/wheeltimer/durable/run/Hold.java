package io.github.wheeltimer.durable.run;

import java.time.Duration;
import java.time.Instant;

import io.github.wheeltimer.HashedWheelTimer;
import org.jspecify.annotations.Nullable;

/**
 * The first stage of a call's run: a claimed call goes on its method's wheel, or, due already,
 * straight to its gate. A call its timer refuses goes back at once.
 * <p>
 * Threads: a caller's (after its transaction commits), the poll thread (claims), the gate thread
 * (a call whose gate said wait, a retry held again). Holds no state of its own.
 */
final class Hold {

	/**
	 * How long a call whose gate neither passed nor fenced it waits before it tries again: a
	 * caller's transaction that holds its row is usually short; a lapsed lease takes a heartbeat.
	 */
	private static final Duration GATE_WAIT = Duration.ofMillis(100);

	private final HeldCalls held;

	private final DurableClock clock;

	private final GateEntry gate;

	private final HandBack handBack;

	Hold(HeldCalls held, DurableClock clock, GateEntry gate, HandBack handBack) {
		this.held = held;
		this.clock = clock;
		this.gate = gate;
		this.handBack = handBack;
	}

	/**
	 * Holds a claimed call. One due already (a backlog, calls taken over, a run now, a re-queued
	 * failed call) has no tick to wait for: it joins the next batch of gates, in the backlog until
	 * it starts, run at once by its timer, which counts it with its timeouts.
	 */
	void hold(HeldCall call) {
		Instant now = this.clock.now();
		if (!call.due().isAfter(now)) {
			this.held.enterBacklog(call);
			if (!(call.method().timer() instanceof HashedWheelTimer timer)) {
				this.gate.enter(call);
				return;
			}
			try {
				// On this thread, at once: the call's run(Timeout) hands it to its gate.
				timer.runDue(call);
			}
			catch (RuntimeException refused) {
				this.handBack.handBack(call, "its timer refused it: " + refused.getMessage());
			}
			return;
		}
		refused(call, this.held.hold(call, now));
	}

	/**
	 * A call whose gate neither passed nor fenced it goes back on its wheel for a while, still in
	 * the backlog. This fire ends here; the next is a new timeout of its wheel.
	 */
	void holdAfterGateWait(HeldCall call) {
		call.withdrawn();
		refused(call, this.held.hold(call, this.clock.now(), GATE_WAIT));
	}

	private void refused(HeldCall call, @Nullable RuntimeException refused) {
		if (refused != null) {
			this.handBack.handBack(call, "its timer refused it: " + refused.getMessage());
		}
	}

}
