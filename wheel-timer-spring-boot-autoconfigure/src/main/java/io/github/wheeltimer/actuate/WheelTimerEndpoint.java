package io.github.wheeltimer.actuate;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.Timeout;
import io.github.wheeltimer.WheelSnapshot;
import io.github.wheeltimer.annotation.DelayedMethodRegistry;
import io.github.wheeltimer.annotation.UnprocessedCalls;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code wheeltimer} Actuator endpoint: what each {@link HashedWheelTimer} bean is doing, and
 * a graceful stop of one of them.
 * <ul>
 * <li>{@code GET /actuator/wheeltimer}: every timer by bean name, with its state, configuration,
 * counters, tick lag and worker thread.</li>
 * <li>{@code GET /actuator/wheeltimer/{name}}: the same for one timer, plus what each level of its
 * wheel holds, the {@value #NEXT_TIMEOUTS} timeouts due first (with the delayed method each one
 * will call, and a durable call's key and id) and its {@code @DelayedExecution} methods. An unknown name is a 404.</li>
 * <li>{@code POST /actuator/wheeltimer/{name}}, with an optional body
 * {@code {"drainTimeout": "PT5S"}}: stops the timer gracefully and reports what fired during the
 * drain and what was left. The calls left have their futures cancelled.</li>
 * <li>{@code GET /actuator/wheeltimer/durable/failed}, with an optional {@code ?method=orders.remind}:
 * the newest failed durable calls, with their key and error.</li>
 * <li>{@code POST /actuator/wheeltimer/durable/failed}, with an optional body
 * {@code {"method": "orders.remind"}}: puts the failed durable calls (all, or of one method id)
 * back to pending, due now, for any instance to run again; each gets its key back, unless a
 * pending call holds it now.</li>
 * <li>{@code GET /actuator/wheeltimer/durable/calls?method=&key=&state=&page=&size=}: a page of
 * durable calls, each with its due time, state, attempts, owner, trace and arguments (shown as
 * {@code management.endpoint.wheeltimer.show-arguments} allows); {@code GET .../durable/calls/{id}}:
 * one call.</li>
 * <li>{@code POST /actuator/wheeltimer/durable/calls/{id}}, with {@code {"action": "run"}} or
 * {@code {"action": "reschedule", "due": "..."}}: runs a waiting call now or moves it (a failed one
 * waits again); {@code DELETE} there cancels a waiting call or deletes a failed one.</li>
 * <li>{@code DELETE /actuator/wheeltimer/durable/methods/{methodId}}: deletes the calls of a
 * method no live instance knows.</li>
 * </ul>
 * The {@code POST}s and {@code DELETE}s need write access
 * ({@code management.endpoint.wheeltimer.access=unrestricted}): the endpoint is read-only by
 * default, and says which it is in its main answer ({@code access}).
 * Durations are ISO-8601 strings, such as {@code "PT0.1S"}. What it answers is described by
 * {@link WheelTimersDescriptor} (the timers) and {@link DurableCallsDescriptor} (durable calls).
 */
@Endpoint(id = "wheeltimer", defaultAccess = Access.READ_ONLY)
public class WheelTimerEndpoint {

	/** How many of the timeouts due first a timer's details list. */
	static final int NEXT_TIMEOUTS = 10;

	/** The most occupied slots a timer's details list per level: level 0 may have millions. */
	static final int MAX_LISTED_SLOTS = 4096;

	/** The most distinct methods a stop report lists, largest counts first. */
	static final int MAX_REPORTED_METHODS = 20;

	/** The first part of the paths of durable calls' administration, which {@link DurableCallsRequests} serves. */
	static final String DURABLE = "durable";

	private static final Log logger = LogFactory.getLog(WheelTimerEndpoint.class);

	private final Map<String, HashedWheelTimer> timers;

	/** How long a timer's details wait for its worker to list the next timeouts, by bean name. */
	private final Map<String, Duration> answerWaits = new TreeMap<>();

	private final @Nullable DelayedMethodRegistry registry;

	private final Function<String, Duration> defaultDrainTimeouts;

	private final @Nullable DurableCallsRequests durable;

	private final Access access;

	/**
	 * Creates the endpoint.
	 * @param timers the timers, by bean name
	 * @param registry the {@code @DelayedExecution} methods, or {@code null} if there are none
	 * @param defaultDrainTimeouts how long a stop of the timer of a given bean name drains when
	 * the request does not say
	 */
	public WheelTimerEndpoint(Map<String, HashedWheelTimer> timers, @Nullable DelayedMethodRegistry registry,
			Function<String, Duration> defaultDrainTimeouts) {
		this(timers, registry, defaultDrainTimeouts, null);
	}

	/**
	 * Creates the endpoint, showing durable calls too.
	 * @param timers the timers, by bean name
	 * @param registry the {@code @DelayedExecution} methods, or {@code null} if there are none
	 * @param defaultDrainTimeouts how long a stop of the timer of a given bean name drains when
	 * the request does not say
	 * @param durable what the endpoint reads and changes of durable calls, or {@code null} if they
	 * are off
	 */
	public WheelTimerEndpoint(Map<String, HashedWheelTimer> timers, @Nullable DelayedMethodRegistry registry,
			Function<String, Duration> defaultDrainTimeouts, @Nullable DurableCallsOperations durable) {
		this(timers, registry, defaultDrainTimeouts, durable, Access.READ_ONLY, Show.NEVER, Set.of());
	}

	/**
	 * Creates the endpoint, showing durable calls and what it allows.
	 * @param timers the timers, by bean name
	 * @param registry the {@code @DelayedExecution} methods, or {@code null} if there are none
	 * @param defaultDrainTimeouts how long a stop of the timer of a given bean name drains when
	 * the request does not say
	 * @param durable what the endpoint reads and changes of durable calls, or {@code null} if they
	 * are off
	 * @param access what the application lets this endpoint do
	 * ({@code management.endpoint.wheeltimer.access}), said in its answer so that a console shows
	 * only what it may do
	 * @param showArguments when durable calls' arguments are shown
	 * @param roles the roles that see arguments when {@code showArguments} is
	 * {@link Show#WHEN_AUTHORIZED}; empty: any authenticated user
	 */
	public WheelTimerEndpoint(Map<String, HashedWheelTimer> timers, @Nullable DelayedMethodRegistry registry,
			Function<String, Duration> defaultDrainTimeouts, @Nullable DurableCallsOperations durable, Access access,
			Show showArguments, Set<String> roles) {
		this.access = access;
		this.durable = (durable != null) ? new DurableCallsRequests(durable, showArguments, roles) : null;
		this.timers = Collections.unmodifiableMap(new TreeMap<>(timers));
		this.timers.forEach((name, timer) -> this.answerWaits.put(name, answerWait(timer.snapshot().tickDuration())));
		this.registry = registry;
		this.defaultDrainTimeouts = defaultDrainTimeouts;
	}

	/**
	 * Describes every timer.
	 * @return the timers by bean name
	 */
	@ReadOperation
	public WheelTimersDescriptor timers() {
		Map<String, WheelTimersDescriptor.WheelTimerDescriptor> descriptors = new LinkedHashMap<>();
		this.timers.forEach((name, timer) -> descriptors.put(name, WheelTimersDescriptor.WheelTimerDescriptor.of(timer.snapshot())));
		return new WheelTimersDescriptor(this.access.name(), descriptors,
				(this.durable != null) ? this.durable.describe() : null);
	}

	/**
	 * Returns the names of the timers this endpoint covers.
	 * @return the bean names, sorted
	 */
	Set<String> timerNames() {
		return new TreeSet<>(this.timers.keySet());
	}

	/**
	 * Describes one timer in detail.
	 * @param name the timer's bean name
	 * @return the details, or {@code null} if there is no such timer
	 */
	@ReadOperation
	public WheelTimersDescriptor.@Nullable WheelTimerDetailsDescriptor timer(@Selector String name) {
		HashedWheelTimer timer = this.timers.get(name);
		if (timer == null) {
			return null;
		}
		// The worker moves new timeouts onto the wheel before it answers: a snapshot taken after
		// the answer shows them in its levels too.
		List<Timeout> nextTimeouts = nextTimeouts(timer, this.answerWaits.get(name));
		WheelSnapshot snapshot = timer.snapshot();
		List<WheelTimersDescriptor.DelayedMethodDescriptor> methods = (this.registry != null) ? this.registry.methods()
			.stream()
			.filter((method) -> method.timerBeanName().equals(name))
			.map(WheelTimersDescriptor.DelayedMethodDescriptor::new)
			.toList() : List.of();
		return WheelTimersDescriptor.WheelTimerDetailsDescriptor.of(snapshot, nextTimeouts, methods);
	}

	/**
	 * Stops a timer gracefully: it refuses new calls at once, keeps firing the ones that fall due
	 * within the drain timeout, and cancels the rest, whose callers' futures are cancelled too.
	 * Blocks until the timer has stopped.
	 * @param name the timer's bean name
	 * @param drainTimeout how long to keep firing due calls; the application's
	 * {@code wheel-timer.shutdown.drain-timeout} when not given
	 * @return the report, or {@code null} if there is no such timer
	 */
	@WriteOperation
	public WheelTimersDescriptor.@Nullable StopReportDescriptor stop(@Selector String name, @Nullable Duration drainTimeout) {
		HashedWheelTimer timer = this.timers.get(name);
		if (timer == null) {
			return null;
		}
		Duration drain = (drainTimeout != null) ? drainTimeout : this.defaultDrainTimeouts.apply(name);
		if (drain.isNegative()) {
			throw new InvalidEndpointRequestException(
					"drainTimeout must be zero or positive, was " + drain,
					"Invalid drainTimeout '" + drain + "': it must be zero or positive, such as \"PT5S\"");
		}
		boolean alreadyStopped = timer.snapshot().state() == WheelSnapshot.State.SHUTDOWN;
		long firedBefore = timer.counters().fired();
		long started = System.nanoTime();
		Set<Timeout> unprocessed = timer.stopGracefully(drain);
		Duration took = Duration.ofNanos(System.nanoTime() - started);
		UnprocessedCalls calls = UnprocessedCalls.of(unprocessed);
		if (!calls.isEmpty()) {
			logger.warn(calls.describe(name) + " (stopped through the wheeltimer endpoint)");
		}
		else if (!alreadyStopped) {
			logger.info("Timer '" + name + "' stopped through the wheeltimer endpoint");
		}
		String state = timer.snapshot().state().name();
		return new WheelTimersDescriptor.StopReportDescriptor(name, state, alreadyStopped, DurationFormat.iso(drain),
				DurationFormat.iso(took), timer.counters().fired() - firedBefore, calls);
	}

	/**
	 * Lists durable calls. Answers at
	 * <ul>
	 * <li>{@code GET /actuator/wheeltimer/durable/failed?method=orders.remind}: the newest failed
	 * calls, with their key and error;</li>
	 * <li>{@code GET /actuator/wheeltimer/durable/calls?method=&key=&state=&page=&size=}: a page of
	 * calls of any state, with their arguments (see {@code show-arguments}).</li>
	 * </ul>
	 * @param section {@code durable}
	 * @param list {@code failed} or {@code calls}
	 * @param method only the calls of this durable method id, or {@code null} for all
	 * @param key only the calls made with this key, of every method unless {@code method} is given,
	 * or {@code null}
	 * @param state only the calls in this state ({@code PENDING}, {@code CLAIMED}, {@code RUNNING},
	 * {@code FAILED}), or {@code null}
	 * @param page the page, from 0 ({@code null}: 0)
	 * @param size the most calls on a page, up to {@value DurableCallsRequests#MAX_PAGE} ({@code null}:
	 * {@value DurableCallsRequests#PAGE})
	 * @param securityContext who asks: decides whether arguments are shown
	 * @return the calls, or {@code null} if durable calls are off or the path names something else
	 * @throws InvalidEndpointRequestException if a parameter is out of range
	 */
	@ReadOperation
	public @Nullable OperationResponseBody durable(@Selector String section, @Selector String list,
			@Nullable String method, @Nullable String key, @Nullable String state, @Nullable Integer page,
			@Nullable Integer size, SecurityContext securityContext) {
		DurableCallsRequests durable = durable(section);
		return (durable != null) ? durable.list(list, method, key, state, page, size, securityContext) : null;
	}

	/**
	 * Re-queues failed durable calls: they are pending again, due now, with no error and no
	 * attempts, for any instance to run; each gets its key back, unless a pending call holds it
	 * now (it then stays failed, listed in the answer). Answers at
	 * {@code POST /actuator/wheeltimer/durable/failed}.
	 * @param section {@code durable}
	 * @param calls {@code failed}
	 * @param method only the failed calls of this durable method id, or {@code null} for all
	 * @return what was re-queued, or {@code null} if durable calls are off or the path names
	 * something else
	 */
	@WriteOperation
	public DurableCallsDescriptor.@Nullable RequeueDescriptor requeue(@Selector String section, @Selector String calls,
			@Nullable String method) {
		DurableCallsRequests durable = durable(section);
		return (durable != null) ? durable.requeue(calls, method) : null;
	}

	/**
	 * Reads one durable call, in any state. Answers at
	 * {@code GET /actuator/wheeltimer/durable/calls/{id}}.
	 * @param section {@code durable}
	 * @param list {@code calls}
	 * @param id the call's id
	 * @param securityContext who asks: decides whether arguments are shown
	 * @return the call, or {@code null} if there is none, durable calls are off or the path names
	 * something else
	 * @throws InvalidEndpointRequestException if the id is not a UUID
	 */
	@ReadOperation
	public DurableCallsDescriptor.@Nullable CallDescriptor call(@Selector String section, @Selector String list,
			@Selector String id, SecurityContext securityContext) {
		DurableCallsRequests durable = durable(section);
		return (durable != null) ? durable.call(list, id, securityContext) : null;
	}

	/**
	 * Runs a durable call now, or reschedules it. Answers at
	 * {@code POST /actuator/wheeltimer/durable/calls/{id}}, with a body
	 * {@code {"action": "run"}} or {@code {"action": "reschedule", "due": "2026-11-26T18:25:00Z"}}.
	 * A waiting call moves to its new time under a new id, which the answer gives; a failed call
	 * waits again, as if new (no attempts, no error, its key back).
	 * @param section {@code durable}
	 * @param list {@code calls}
	 * @param id the call's id
	 * @param action {@code run} or {@code reschedule}
	 * @param due for {@code reschedule}: when it runs, an ISO-8601 instant by the application's clock
	 * @param securityContext who asks: decides whether arguments are shown
	 * @return the call as it is now, or {@code null} if it is neither waiting nor failed, durable
	 * calls are off or the path names something else
	 * @throws InvalidEndpointRequestException if the id, the action or the due time is invalid
	 * @throws IllegalStateException if the call failed and a waiting call holds its key
	 */
	@WriteOperation
	public DurableCallsDescriptor.@Nullable CallDescriptor change(@Selector String section, @Selector String list,
			@Selector String id, @Nullable String action, @Nullable String due, SecurityContext securityContext) {
		DurableCallsRequests durable = durable(section);
		return (durable != null) ? durable.change(list, id, action, due, securityContext) : null;
	}

	/**
	 * Cancels a waiting durable call or deletes a failed one, at
	 * {@code DELETE /actuator/wheeltimer/durable/calls/{id}}; or deletes the waiting and failed calls
	 * of a method no live instance knows, at
	 * {@code DELETE /actuator/wheeltimer/durable/methods/{methodId}}.
	 * @param section {@code durable}
	 * @param list {@code calls} or {@code methods}
	 * @param target the call's id, or the method's durable id
	 * @param securityContext who asks: decides whether arguments are shown
	 * @return the call as it was, or what was deleted; {@code null} if there is no such call,
	 * durable calls are off or the path names something else
	 * @throws InvalidEndpointRequestException if the id is not a UUID
	 * @throws IllegalStateException if an instance knows the method
	 */
	@DeleteOperation
	public @Nullable OperationResponseBody delete(@Selector String section, @Selector String list,
			@Selector String target, SecurityContext securityContext) {
		DurableCallsRequests durable = durable(section);
		return (durable != null) ? durable.delete(list, target, securityContext) : null;
	}

	/** @return the durable calls when the path is theirs, else {@code null} */
	private @Nullable DurableCallsRequests durable(String section) {
		return DURABLE.equals(section) ? this.durable : null;
	}

	/**
	 * Whether durable calls are on, so that failed ones can be listed and re-queued.
	 * @return {@code true} if they are
	 */
	boolean durableCalls() {
		return this.durable != null;
	}

	/**
	 * The worker answers between ticks; a worker busy with a task of its own thread may not. The
	 * wait covers a tick and then some, within bounds that keep a request short.
	 */
	private static Duration answerWait(Duration tick) {
		return Duration.ofMillis(Math.min(Math.max(tick.toMillis() * 2, 1_000), 5_000));
	}

	private static @Nullable List<Timeout> nextTimeouts(HashedWheelTimer timer, Duration wait) {
		try {
			return timer.nextTimeouts(NEXT_TIMEOUTS, wait);
		}
		catch (TimeoutException ex) {
			return null;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
	}

}
