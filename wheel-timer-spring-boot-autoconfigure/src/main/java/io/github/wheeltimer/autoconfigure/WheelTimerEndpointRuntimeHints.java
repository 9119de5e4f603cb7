package io.github.wheeltimer.autoconfigure;

import io.github.wheeltimer.actuate.DurableCallsDescriptor;
import io.github.wheeltimer.actuate.WheelTimerEndpoint;
import io.github.wheeltimer.actuate.WheelTimersDescriptor;
import io.github.wheeltimer.actuate.WheelTimerEndpointWebExtension;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What the {@code wheeltimer} endpoint's answers need in a native image: Jackson writes each
 * descriptor (records, and the types they hold) by reflection. The web extension's operations
 * declare their bodies only as {@code OperationResponseBody}, so Actuator's own processing of the
 * operations' return types cannot find them.
 */
final class WheelTimerEndpointRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(),
				WheelTimersDescriptor.class, WheelTimersDescriptor.WheelTimerDetailsDescriptor.class,
				WheelTimersDescriptor.StopReportDescriptor.class, DurableCallsDescriptor.RequeueDescriptor.class,
				DurableCallsDescriptor.FailedCallsDescriptor.class, DurableCallsDescriptor.class,
				DurableCallsDescriptor.CallDescriptor.class, DurableCallsDescriptor.CallPageDescriptor.class,
				DurableCallsDescriptor.DeletedCallsDescriptor.class, WheelTimerEndpointWebExtension.ErrorDescriptor.class);
	}

}
