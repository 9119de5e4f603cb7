package io.github.wheeltimer.actuate;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * The {@link WheelTimerEndpoint} over HTTP: a stop of an unknown timer is a 404, like a read of
 * one, rather than the empty 204 a write operation would otherwise give.
 */
@EndpointWebExtension(endpoint = WheelTimerEndpoint.class)
public class WheelTimerEndpointWebExtension {

	private final WheelTimerEndpoint delegate;

	/**
	 * Creates the extension.
	 * @param delegate the endpoint
	 */
	public WheelTimerEndpointWebExtension(WheelTimerEndpoint delegate) {
		this.delegate = delegate;
	}

	/**
	 * Stops a timer gracefully; see {@link WheelTimerEndpoint#stop(String, Duration)}.
	 * @param name the timer's bean name
	 * @param drainTimeout how long to keep firing due calls, or {@code null} for the configured
	 * {@code wheel-timer.shutdown.drain-timeout}
	 * @return the report, or a 404 if there is no such timer
	 */
	@WriteOperation
	public WebEndpointResponse<WheelTimerEndpoint.StopReportDescriptor> stop(@Selector String name,
			@Nullable Duration drainTimeout) {
		WheelTimerEndpoint.StopReportDescriptor report = this.delegate.stop(name, drainTimeout);
		return (report != null) ? new WebEndpointResponse<>(report)
				: new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
	}

}
