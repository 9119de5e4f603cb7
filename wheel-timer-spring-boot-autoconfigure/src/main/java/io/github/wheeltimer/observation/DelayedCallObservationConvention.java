package io.github.wheeltimer.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the observation of each delayed call. Define a bean of this type to replace
 * {@link DefaultDelayedCallObservationConvention}, or extend that to add to it.
 */
public interface DelayedCallObservationConvention extends ObservationConvention<DelayedCallObservationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof DelayedCallObservationContext;
	}

}
