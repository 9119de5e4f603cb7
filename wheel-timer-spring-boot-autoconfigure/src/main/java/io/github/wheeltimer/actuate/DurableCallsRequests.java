package io.github.wheeltimer.actuate;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;

/**
 * The durable calls' administration behind the {@code durable/...} paths of the
 * {@link WheelTimerEndpoint}: reads the requests' paths and parameters (turning a bad one into a
 * bad request that says what is allowed), hands them to the {@link DurableCallsOperations}, and
 * hides the calls' arguments from those who may not see them. The endpoint keeps the operations
 * Actuator maps; the timers' part of it knows nothing of durable calls but this class.
 */
final class DurableCallsRequests {

	static final String CALLS = "calls";

	static final String FAILED = "failed";

	static final String METHODS = "methods";

	private final DurableCallsOperations durable;

	private final Show showArguments;

	private final Set<String> roles;

	/**
	 * @param durable what the endpoint reads and changes of durable calls
	 * @param showArguments when durable calls' arguments are shown
	 * @param roles the roles that see arguments when {@code showArguments} is
	 * {@link Show#WHEN_AUTHORIZED}; empty: any authenticated user
	 */
	DurableCallsRequests(DurableCallsOperations durable, Show showArguments, Set<String> roles) {
		this.durable = durable;
		this.showArguments = showArguments;
		this.roles = Set.copyOf(roles);
	}

	DurableCallsDescriptor describe() {
		return this.durable.describe();
	}

	/** @see WheelTimerEndpoint#durable */
	@Nullable OperationResponseBody list(String list, @Nullable String method, @Nullable String key,
			@Nullable String state, @Nullable Integer page, @Nullable Integer size, SecurityContext securityContext) {
		if (FAILED.equals(list)) {
			return this.durable.failed(methodId(method));
		}
		if (!CALLS.equals(list)) {
			return null;
		}
		int pageSize = (size != null) ? size : PAGE;
		if (pageSize < 1 || pageSize > MAX_PAGE) {
			throw invalid("size must be between 1 and " + MAX_PAGE + ", was " + pageSize);
		}
		DurableCallsDescriptor.CallPageDescriptor calls = request(() -> this.durable.calls(methodId(method),
				methodId(key), methodId(state), (page != null) ? page : 0, pageSize));
		return argumentsShown(securityContext) ? calls : calls.withArgumentsHidden();
	}

	/** @see WheelTimerEndpoint#requeue */
	DurableCallsDescriptor.@Nullable RequeueDescriptor requeue(String calls, @Nullable String method) {
		return FAILED.equals(calls) ? this.durable.requeue(methodId(method)) : null;
	}

	/** @see WheelTimerEndpoint#call */
	DurableCallsDescriptor.@Nullable CallDescriptor call(String list, String id, SecurityContext securityContext) {
		return CALLS.equals(list) ? shown(this.durable.call(callId(id)), securityContext) : null;
	}

	/** @see WheelTimerEndpoint#change */
	DurableCallsDescriptor.@Nullable CallDescriptor change(String list, String id, @Nullable String action,
			@Nullable String due, SecurityContext securityContext) {
		if (!CALLS.equals(list)) {
			return null;
		}
		UUID call = callId(id);
		Instant at;
		if ("run".equals(action)) {
			at = null;
		}
		else if ("reschedule".equals(action)) {
			at = instant(due);
		}
		else {
			throw invalid("action must be \"run\" or \"reschedule\" (with \"due\"), was "
					+ ((action != null) ? "\"" + action + "\"" : "missing"));
		}
		return shown(request(() -> this.durable.reschedule(call, at)), securityContext);
	}

	/** @see WheelTimerEndpoint#delete */
	@Nullable OperationResponseBody delete(String list, String target, SecurityContext securityContext) {
		if (METHODS.equals(list)) {
			return this.durable.deleteCallsOf(target);
		}
		return CALLS.equals(list) ? shown(this.durable.cancel(callId(target)), securityContext) : null;
	}

	private boolean argumentsShown(SecurityContext securityContext) {
		return this.showArguments.isShown(securityContext, this.roles);
	}

	private DurableCallsDescriptor.@Nullable CallDescriptor shown(
			DurableCallsDescriptor.@Nullable CallDescriptor call, SecurityContext securityContext) {
		return (call == null || argumentsShown(securityContext)) ? call : call.withArgumentsHidden();
	}

	private static UUID callId(String id) {
		try {
			return UUID.fromString(id);
		}
		catch (IllegalArgumentException ex) {
			throw invalid("A durable call's id is a UUID, such as 0b6f0e1c-4c1e-4e8b-9a4f-2d0c5c3e1a7b; was '" + id
					+ "'");
		}
	}

	private static Instant instant(@Nullable String due) {
		if (due == null || due.isBlank()) {
			throw invalid("due is missing: reschedule needs an ISO-8601 instant, such as \"2026-11-26T18:25:00Z\"");
		}
		try {
			return OffsetDateTime.parse(due.trim()).toInstant();
		}
		catch (DateTimeParseException ex) {
			throw invalid("Invalid due '" + due + "': it must be an ISO-8601 instant with its offset, such as"
					+ " \"2026-11-26T18:25:00Z\" or \"2026-11-26T19:25:00+01:00\"");
		}
	}

	/** Turns an argument the durable calls refused into a bad request. */
	private static <T> T request(Supplier<T> operation) {
		try {
			return operation.get();
		}
		catch (IllegalArgumentException ex) {
			throw invalid(String.valueOf(ex.getMessage()));
		}
	}

	private static InvalidEndpointRequestException invalid(String message) {
		return new InvalidEndpointRequestException(message, message);
	}

	private static @Nullable String methodId(@Nullable String method) {
		return (method != null && !method.isBlank()) ? method.trim() : null;
	}

	/** The default and the largest number of calls on a page of {@code durable/calls}. */
	static final int PAGE = 20;

	static final int MAX_PAGE = 200;

}
