package io.github.wheeltimer.observation;

import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;

import io.github.wheeltimer.annotation.DelayedCallObserver;
import io.github.wheeltimer.annotation.DelayedCallOutcome;
import io.github.wheeltimer.annotation.DelayedMethod;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * Carries the caller's context to each delayed call and observes the call: one
 * {@code wheel.timer.delayed.call} observation per call, a child of the caller's observation.
 * Created by the auto-configuration when the application has an {@link ObservationRegistry}.
 * <p>
 * Threads: {@link #capture()} and {@link #traceParent()} on the caller's; a context's
 * {@code start} on the executor's, which also opens and closes the scopes there; a run's
 * {@code stop} on whichever thread completes the method's future; a context's {@code ended} on the
 * thread that learnt the call will not run. The observation's context is confined to the run until
 * it stops.
 * <p>
 * A caller with nothing to carry, and {@link #none()}, get one shared context that carries nothing
 * and still observes: its observation's parent is whatever observation is current where it starts.
 */
public final class ObservingCallObserver implements DelayedCallObserver {

	private static final DefaultDelayedCallObservationConvention DEFAULT_CONVENTION = new DefaultDelayedCallObservationConvention();

	private final ObservationRegistry registry;

	private final @Nullable DelayedCallObservationConvention convention;

	private final CallContextCarrier carrier;

	private final Supplier<@Nullable String> traceParents;

	/** Carries nothing, observes. */
	private final Observed none = new Observed(null, null, null);

	/**
	 * Creates the observer.
	 * @param registry the application's registry
	 * @param convention the application's convention, or {@code null} for the default one
	 * @param mdc whether SLF4J is on the class path, to carry the MDC
	 * @param snapshots whether context-propagation is on the class path, to carry a {@code ContextSnapshot}
	 * @param traceParents gives the current span as a W3C {@code traceparent}, or {@code null}
	 */
	public ObservingCallObserver(ObservationRegistry registry, @Nullable DelayedCallObservationConvention convention,
			boolean mdc, boolean snapshots, Supplier<@Nullable String> traceParents) {
		this.registry = registry;
		this.convention = convention;
		this.carrier = new CallContextCarrier(mdc, snapshots, false);
		this.traceParents = traceParents;
	}

	@Override
	public CallerContext capture() {
		Observation observation = this.registry.getCurrentObservation();
		Map<String, String> mdc = this.carrier.mdc();
		Object snapshot = this.carrier.snapshot();
		return (mdc == null && snapshot == null && observation == null) ? this.none
				: new Observed(mdc, snapshot, observation);
	}

	@Override
	public CallerContext none() {
		return this.none;
	}

	@Override
	public boolean observes() {
		return !this.registry.isNoop();
	}

	@Override
	public @Nullable String traceParent() {
		return this.traceParents.get();
	}

	/**
	 * A caller's thread locals, put back around the run, and its observation, the parent of the
	 * call's.
	 */
	private final class Observed extends CallContextCarrier.Carried {

		private final @Nullable Observation parent;

		Observed(@Nullable Map<String, String> mdc, @Nullable Object snapshot, @Nullable Observation parent) {
			super(mdc, snapshot);
			this.parent = parent;
		}

		@Override
		public Run start(DelayedMethod method, long latenessNanos, int attempt, @Nullable String callId,
				@Nullable String traceParent) {
			ObservedRun run = new ObservedRun();
			ObservingCallObserver.this.carrier.restore(this, run);
			Observation parent = this.parent;
			Observation observation = observation(() -> new DelayedCallObservationContext(method,
					Duration.ofNanos(Math.max(0, latenessNanos)), attempt, callId, traceParent, DelayedCallOutcome.RAN),
					parent)
				.start();
			run.observation = observation;
			// The caller's observation is carried as the parent, not in the snapshot: the call's own is
			// current. Disabled (management.observations.enable), the call still runs in its caller's trace.
			Observation current = (observation.isNoop() && parent != null) ? parent : observation;
			run.scope = current.openScope();
			return run;
		}

		@Override
		public void ended(DelayedMethod method, DelayedCallOutcome outcome, @Nullable Throwable failure) {
			Observation observation = observation(
					() -> new DelayedCallObservationContext(method, null, null, null, outcome), this.parent);
			observation.start();
			if (failure != null) {
				observation.error(failure);
			}
			observation.stop();
		}

	}

	/** The context is made only if the call is observed: not for a no-op registry, nor a disabled observation. */
	private Observation observation(Supplier<DelayedCallObservationContext> context, @Nullable Observation parent) {
		Observation observation = DelayedCallObservationDocumentation.DELAYED_CALL.observation(this.convention,
				DEFAULT_CONVENTION, context, this.registry);
		if (parent != null) {
			observation.parentObservation(parent);
		}
		return observation;
	}

	/** A run with an observation: its scope closes first, then the carried thread locals go. */
	private static final class ObservedRun extends CallContextCarrier.CarriedRun {

		@Nullable Observation observation;

		Observation.@Nullable Scope scope;

		@Override
		public void leave() {
			if (this.scope != null) {
				this.scope.close();
			}
			super.leave();
		}

		@Override
		public void stop(@Nullable Throwable failure) {
			Observation observation = this.observation;
			if (observation == null) {
				return;
			}
			if (failure != null) {
				if (observation.getContext() instanceof DelayedCallObservationContext context) {
					context.setOutcome(DelayedCallOutcome.FAILED);
				}
				observation.error(failure);
			}
			observation.stop();
		}

	}

}
