package io.github.wheeltimer.actuate;

import java.time.Duration;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;
import org.springframework.boot.convert.DurationStyle;

/**
 * The {@link WheelTimerEndpoint} over HTTP. An unknown timer is a 404 and a bad drain timeout a
 * 400, each with a body that says why: Actuator would otherwise answer an empty 404, an empty 204
 * for a stop of an unknown timer, and a 400 with no reason.
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
	 * Describes one timer in detail; see {@link WheelTimerEndpoint#timer(String)}.
	 * @param name the timer's bean name
	 * @return the details, or a 404 if there is no such timer
	 */
	@ReadOperation
	public WebEndpointResponse<OperationResponseBody> timer(@Selector String name) {
		WheelTimerEndpoint.WheelTimerDetailsDescriptor details = this.delegate.timer(name);
		return (details != null) ? new WebEndpointResponse<>(details) : notFound(name);
	}

	/**
	 * Stops a timer gracefully; see {@link WheelTimerEndpoint#stop(String, Duration)}.
	 * @param name the timer's bean name
	 * @param drainTimeout how long to keep firing due calls, as Spring Boot reads durations in
	 * properties ({@code "PT5S"}, {@code "5s"}; a bare number is milliseconds), or {@code null} for
	 * the configured {@code wheel-timer.shutdown.drain-timeout}
	 * @return the report; a 400 if the drain timeout is unreadable or negative; a 404 if there is
	 * no such timer
	 */
	@WriteOperation
	public WebEndpointResponse<OperationResponseBody> stop(@Selector String name, @Nullable String drainTimeout) {
		Duration drain;
		try {
			drain = (drainTimeout != null) ? DurationStyle.detectAndParse(drainTimeout) : null;
		}
		catch (IllegalArgumentException ex) {
			return badRequest("Invalid drainTimeout '" + drainTimeout
					+ "': it must be a duration such as \"PT5S\" or \"5s\" (a bare number is milliseconds)");
		}
		try {
			WheelTimerEndpoint.StopReportDescriptor report = this.delegate.stop(name, drain);
			return (report != null) ? new WebEndpointResponse<>(report) : notFound(name);
		}
		catch (InvalidEndpointRequestException ex) {
			return badRequest(ex.getReason());
		}
	}

	/**
	 * Lists failed durable calls; see {@link WheelTimerEndpoint#failed(String, String, String)}.
	 * @param section {@code durable}
	 * @param calls {@code failed}
	 * @param method only the failed calls of this durable method id, or {@code null} for all
	 * @return the failed calls; a 404 if durable calls are off or the path is not
	 * {@code durable/failed}
	 */
	@ReadOperation
	public WebEndpointResponse<OperationResponseBody> failed(@Selector String section, @Selector String calls,
			@Nullable String method) {
		return durable(section, calls, () -> this.delegate.failed(section, calls, method));
	}

	/**
	 * Re-queues failed durable calls; see {@link WheelTimerEndpoint#requeue(String, String, String)}.
	 * @param section {@code durable}
	 * @param calls {@code failed}
	 * @param method only the failed calls of this durable method id, or {@code null} for all
	 * @return what was re-queued; a 404 if durable calls are off or the path is not
	 * {@code durable/failed}
	 */
	@WriteOperation
	public WebEndpointResponse<OperationResponseBody> requeue(@Selector String section, @Selector String calls,
			@Nullable String method) {
		return durable(section, calls, () -> this.delegate.requeue(section, calls, method));
	}

	/**
	 * Answers an operation on the failed durable calls: a 404 that says where they are for another
	 * path, a 503 that says why while their database cannot be read.
	 */
	private WebEndpointResponse<OperationResponseBody> durable(String section, String calls,
			Supplier<@Nullable OperationResponseBody> operation) {
		OperationResponseBody body;
		try {
			body = operation.get();
		}
		catch (DurableCallsUnavailableException ex) {
			return new WebEndpointResponse<>(new ErrorDescriptor(WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE,
					"Service Unavailable", String.valueOf(ex.getMessage())), WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
		}
		return (body != null) ? new WebEndpointResponse<>(body) : durableNotFound(section, calls);
	}

	private WebEndpointResponse<OperationResponseBody> durableNotFound(String section, String calls) {
		String why = this.delegate.durableCalls()
				? "Nothing at '" + section + "/" + calls + "'; failed durable calls are listed and re-queued at '"
						+ WheelTimerEndpoint.FAILED_PATH + "'"
				: "Durable calls are off (wheel-timer.durable.enabled, or no durable method), so there are no failed"
						+ " calls to list or re-queue";
		return new WebEndpointResponse<>(new ErrorDescriptor(WebEndpointResponse.STATUS_NOT_FOUND, "Not Found", why),
				WebEndpointResponse.STATUS_NOT_FOUND);
	}

	private WebEndpointResponse<OperationResponseBody> notFound(String name) {
		return new WebEndpointResponse<>(new ErrorDescriptor(WebEndpointResponse.STATUS_NOT_FOUND, "Not Found",
				"No timer named '" + name + "'; the timers are " + this.delegate.timerNames()),
				WebEndpointResponse.STATUS_NOT_FOUND);
	}

	private static WebEndpointResponse<OperationResponseBody> badRequest(String message) {
		return new WebEndpointResponse<>(
				new ErrorDescriptor(WebEndpointResponse.STATUS_BAD_REQUEST, "Bad Request", message),
				WebEndpointResponse.STATUS_BAD_REQUEST);
	}

	/**
	 * Why a request was refused.
	 *
	 * @param status the HTTP status
	 * @param error the status's reason phrase
	 * @param message what was wrong, and what is allowed
	 */
	public record ErrorDescriptor(int status, String error, String message) implements OperationResponseBody {

	}

}
