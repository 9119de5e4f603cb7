package io.github.wheeltimer.observation;

import java.util.Map;

import io.github.wheeltimer.annotation.DelayedCallObserver;
import io.github.wheeltimer.annotation.DelayedCallOutcome;
import io.github.wheeltimer.annotation.DelayedMethod;
import org.jspecify.annotations.Nullable;

/**
 * Carries the caller's context to each delayed call, and observes nothing: for an application
 * with no {@code ObservationRegistry} bean. Created by the auto-configuration.
 * <p>
 * A caller with nothing to carry gets {@link CallerContext#NONE}, as does {@link #none()}: the
 * executor's thread is then left as its own decorators set it.
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
	public CallerContext capture() {
		Map<String, String> mdc = this.carrier.mdc();
		Object snapshot = this.carrier.snapshot();
		return (mdc == null && snapshot == null) ? CallerContext.NONE : new Propagated(mdc, snapshot);
	}

	@Override
	public CallerContext none() {
		return CallerContext.NONE;
	}

	/** A caller's thread locals, put back around the run. */
	private final class Propagated extends CallContextCarrier.Carried {

		Propagated(@Nullable Map<String, String> mdc, @Nullable Object snapshot) {
			super(mdc, snapshot);
		}

		@Override
		public Run start(DelayedMethod method, long latenessNanos, int attempt, @Nullable String callId,
				@Nullable String traceParent) {
			CallContextCarrier.CarriedRun run = new CallContextCarrier.CarriedRun();
			PropagatingCallObserver.this.carrier.restore(this, run);
			return run;
		}

		@Override
		public void ended(DelayedMethod method, DelayedCallOutcome outcome, @Nullable Throwable failure) {
		}

	}

}
