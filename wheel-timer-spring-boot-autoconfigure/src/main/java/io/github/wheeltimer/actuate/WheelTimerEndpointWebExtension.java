package io.github.wheeltimer.actuate;

import java.time.Duration;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
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
		WheelTimersDescriptor.WheelTimerDetailsDescriptor details = this.delegate.timer(name);
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
			WheelTimersDescriptor.StopReportDescriptor report = this.delegate.stop(name, drain);
			return (report != null) ? new WebEndpointResponse<>(report) : notFound(name);
		}
		catch (InvalidEndpointRequestException ex) {
			return badRequest(ex.getReason());
		}
	}

	/**
	 * Lists durable calls; see
	 * {@link WheelTimerEndpoint#durable(String, String, String, String, String, Integer, Integer, SecurityContext)}.
	 * @param section {@code durable}
	 * @param list {@code failed} or {@code calls}
	 * @param method only the calls of this durable method id, or {@code null} for all
	 * @param key only the calls made with this key, or {@code null}
	 * @param state only the calls in this state, or {@code null}
	 * @param page the page, from 0
	 * @param size the most calls on a page
	 * @param securityContext who asks
	 * @return the calls; a 400 that says which parameter is wrong; a 404 if durable calls are off
	 * or the path names nothing
	 */
	@ReadOperation
	public WebEndpointResponse<OperationResponseBody> durable(@Selector String section, @Selector String list,
			@Nullable String method, @Nullable String key, @Nullable String state, @Nullable Integer page,
			@Nullable Integer size, SecurityContext securityContext) {
		return answer(() -> this.delegate.durable(section, list, method, key, state, page, size, securityContext),
				() -> nothingAt(section + "/" + list));
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
		return answer(() -> this.delegate.requeue(section, calls, method), () -> nothingAt(section + "/" + calls));
	}

	/**
	 * Reads one durable call; see
	 * {@link WheelTimerEndpoint#call(String, String, String, SecurityContext)}.
	 * @param section {@code durable}
	 * @param list {@code calls}
	 * @param id the call's id
	 * @param securityContext who asks
	 * @return the call; a 400 if the id is not a UUID; a 404 if there is no such call
	 */
	@ReadOperation
	public WebEndpointResponse<OperationResponseBody> call(@Selector String section, @Selector String list,
			@Selector String id, SecurityContext securityContext) {
		return answer(() -> this.delegate.call(section, list, id, securityContext),
				() -> noCall(section, list, id, "it ran, it was cancelled, or it never existed"));
	}

	/**
	 * Runs a durable call now, or reschedules it; see
	 * {@link WheelTimerEndpoint#change(String, String, String, String, String, SecurityContext)}.
	 * @param section {@code durable}
	 * @param list {@code calls}
	 * @param id the call's id
	 * @param action {@code run} or {@code reschedule}
	 * @param due for {@code reschedule}: when it runs
	 * @param securityContext who asks
	 * @return the call as it is now; a 400 if the id, action or due time is invalid; a 404 if
	 * there is no such call; a 409 if it is running, or it failed and a waiting call holds its key
	 */
	@WriteOperation
	public WebEndpointResponse<OperationResponseBody> change(@Selector String section, @Selector String list,
			@Selector String id, @Nullable String action, @Nullable String due, SecurityContext securityContext) {
		return answer(() -> this.delegate.change(section, list, id, action, due, securityContext),
				() -> noCall(section, list, id, "it ran, it was cancelled, or it never existed"));
	}

	/**
	 * Cancels or deletes a durable call, or the calls of a method no live instance knows; see
	 * {@link WheelTimerEndpoint#delete(String, String, String, SecurityContext)}.
	 * @param section {@code durable}
	 * @param list {@code calls} or {@code methods}
	 * @param target the call's id, or the method's durable id
	 * @param securityContext who asks
	 * @return the call as it was, or what was deleted; a 400 if the id is not a UUID; a 404 if
	 * there is no such call; a 409 if it is running, or an instance knows the method
	 */
	@DeleteOperation
	public WebEndpointResponse<OperationResponseBody> delete(@Selector String section, @Selector String list,
			@Selector String target, SecurityContext securityContext) {
		return answer(() -> this.delegate.delete(section, list, target, securityContext),
				() -> noCall(section, list, target, "it ran, it was cancelled already, or it never existed"));
	}

	/**
	 * Answers an operation on durable calls: a 400 for a bad parameter, a 409 for a change the
	 * call's state forbids, a 503 that says why while their database cannot be read, and the
	 * given 404 when there is nothing to answer.
	 */
	private WebEndpointResponse<OperationResponseBody> answer(Supplier<@Nullable OperationResponseBody> operation,
			Supplier<WebEndpointResponse<OperationResponseBody>> notFound) {
		OperationResponseBody body;
		try {
			body = operation.get();
		}
		catch (DurableCallsUnavailableException ex) {
			return error(WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE, "Service Unavailable",
					String.valueOf(ex.getMessage()));
		}
		catch (InvalidEndpointRequestException ex) {
			return badRequest(ex.getReason());
		}
		catch (IllegalStateException ex) {
			return error(STATUS_CONFLICT, "Conflict", String.valueOf(ex.getMessage()));
		}
		return (body != null) ? new WebEndpointResponse<>(body) : notFound.get();
	}

	/** The call of a change that found nothing to change: a 409 if it is there but running. */
	private WebEndpointResponse<OperationResponseBody> noCall(String section, String list, String id, String why) {
		if (!this.delegate.durableCalls() || !WheelTimerEndpoint.DURABLE.equals(section)
				|| !(DurableCallsRequests.CALLS.equals(list) || DurableCallsRequests.METHODS.equals(list))) {
			return nothingAt(section + "/" + list + "/" + id);
		}
		DurableCallsDescriptor.CallDescriptor call;
		try {
			call = this.delegate.call(section, list, id, SecurityContext.NONE);
		}
		catch (RuntimeException ex) {
			call = null;
		}
		if (call != null && "RUNNING".equals(call.state())) {
			return error(STATUS_CONFLICT, "Conflict", "The durable call " + id + " of " + call.methodId()
					+ " is running: a call that started cannot be cancelled, run or rescheduled");
		}
		return error(WebEndpointResponse.STATUS_NOT_FOUND, "Not Found",
				"No durable call " + id + " waits or failed: " + why);
	}

	private WebEndpointResponse<OperationResponseBody> nothingAt(String path) {
		String why = this.delegate.durableCalls()
				? "Nothing at '" + path + "'; durable calls are listed at 'durable/calls' and 'durable/failed', one"
						+ " call is at 'durable/calls/{id}', and the calls of a method no instance knows at"
						+ " 'durable/methods/{methodId}'"
				: "Durable calls are off (wheel-timer.durable.enabled, or no durable method), so there are no durable"
						+ " calls to list or change";
		return error(WebEndpointResponse.STATUS_NOT_FOUND, "Not Found", why);
	}

	private static WebEndpointResponse<OperationResponseBody> error(int status, String error, String message) {
		return new WebEndpointResponse<>(new ErrorDescriptor(status, error, message), status);
	}

	/** HTTP's 409: the request conflicts with the call's state. */
	private static final int STATUS_CONFLICT = 409;

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
