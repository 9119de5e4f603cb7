package io.github.wheeltimer.observation;

import io.github.wheeltimer.annotation.DelayedCallObserver;
import io.github.wheeltimer.annotation.DelayedCallOutcome;
import io.github.wheeltimer.annotation.DelayedMethod;
import org.jspecify.annotations.Nullable;

/**
 * Carries the caller's context to each delayed call, and observes nothing: for an application
 * with no {@code ObservationRegistry} bean. Created by the auto-configuration.
 */
public final class PropagatingCallObserver implements DelayedCallObserver {

	private final CallContextCarrier carrier;

	/**
	 * Creates the observer.
	 * @param mdc whether SLF4J is on the class path, to carry the MDC
	 * @param snapshots whether context-propagation is on the class path, to carry a {@code ContextSnapshot}
	 */
	public PropagatingCallObserver(boolean mdc, boolean snapshots) {
		this.carrier = new CallContextCarrier(mdc, snapshots, true);
	}

	@Override
	public @Nullable Object capture() {
		return this.carrier.capture(null);
	}

	@Override
	public Run start(DelayedMethod method, @Nullable Object carried, long latenessNanos, @Nullable String callId,
			@Nullable String traceParent) {
		if (carried == null) {
			// The caller had nothing: the executor's thread is left as its own decorators set it.
			return Run.NONE;
		}
		CallContextCarrier.CarriedRun run = new CallContextCarrier.CarriedRun();
		this.carrier.restore((CallContextCarrier.Carried) carried, run);
		return run;
	}

	@Override
	public void ended(DelayedMethod method, @Nullable Object carried, DelayedCallOutcome outcome,
			@Nullable Throwable failure) {
	}

}
