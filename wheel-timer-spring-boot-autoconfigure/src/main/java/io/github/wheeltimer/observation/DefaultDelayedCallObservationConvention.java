package io.github.wheeltimer.observation;

import java.time.Duration;

import io.github.wheeltimer.observation.DelayedCallObservationDocumentation.HighCardinalityKeyNames;
import io.github.wheeltimer.observation.DelayedCallObservationDocumentation.LowCardinalityKeyNames;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;

import org.springframework.util.StringUtils;

/**
 * The observation of a delayed call as the starter names it, in the style of Spring's
 * {@code tasks.scheduled.execution}: {@code wheel.timer.delayed.call}, with a span called
 * {@code delayed orderService.cancelIfUnpaid}, and the keys of
 * {@link DelayedCallObservationDocumentation}.
 */
public class DefaultDelayedCallObservationConvention implements DelayedCallObservationConvention {

	/** The observation's name, and so its timer's. */
	public static final String NAME = "wheel.timer.delayed.call";

	private static final KeyValue NO_EXCEPTION = KeyValue.of(LowCardinalityKeyNames.EXCEPTION, "none");

	private static final KeyValue DURABLE = KeyValue.of(LowCardinalityKeyNames.DURABLE, "true");

	private static final KeyValue IN_MEMORY = KeyValue.of(LowCardinalityKeyNames.DURABLE, "false");

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(DelayedCallObservationContext context) {
		return "delayed " + StringUtils.uncapitalize(context.getMethod().method().getDeclaringClass().getSimpleName())
				+ "." + context.getMethod().method().getName();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(DelayedCallObservationContext context) {
		return KeyValues.of(KeyValue.of(LowCardinalityKeyNames.TIMER, context.getTimerName()),
				KeyValue.of(LowCardinalityKeyNames.CODE_NAMESPACE, context.getMethod().method().getDeclaringClass().getName()),
				KeyValue.of(LowCardinalityKeyNames.CODE_FUNCTION, context.getMethod().method().getName()),
				KeyValue.of(LowCardinalityKeyNames.OUTCOME, context.getOutcome().value()), exception(context),
				context.isDurable() ? DURABLE : IN_MEMORY);
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(DelayedCallObservationContext context) {
		KeyValues values = KeyValues.empty();
		Duration lateness = context.getLateness();
		if (lateness != null) {
			values = values.and(KeyValue.of(HighCardinalityKeyNames.LATENESS, lateness.toString()),
					KeyValue.of(HighCardinalityKeyNames.ATTEMPT, Integer.toString(context.getAttempt())));
		}
		String callId = context.getCallId();
		if (callId != null) {
			values = values.and(KeyValue.of(HighCardinalityKeyNames.CALL_ID, callId));
		}
		return values;
	}

	private static KeyValue exception(DelayedCallObservationContext context) {
		Throwable error = context.getError();
		if (error == null) {
			return NO_EXCEPTION;
		}
		String name = error.getClass().getSimpleName();
		return KeyValue.of(LowCardinalityKeyNames.EXCEPTION,
				StringUtils.hasText(name) ? name : error.getClass().getName());
	}

}
