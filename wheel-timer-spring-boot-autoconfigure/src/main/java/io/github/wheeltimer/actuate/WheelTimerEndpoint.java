package io.github.wheeltimer.actuate;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
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
import java.util.function.Supplier;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.Timeout;
import io.github.wheeltimer.WheelSnapshot;
import io.github.wheeltimer.annotation.DelayedMethod;
import io.github.wheeltimer.annotation.DelayedMethodRegistry;
import io.github.wheeltimer.annotation.DelayedTask;
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
 * Durations are ISO-8601 strings, such as {@code "PT0.1S"}.
 */
@Endpoint(id = "wheeltimer", defaultAccess = Access.READ_ONLY)
public class WheelTimerEndpoint {

	/** How many of the timeouts due first a timer's details list. */
	static final int NEXT_TIMEOUTS = 10;

	/** The most occupied slots a timer's details list per level: level 0 may have millions. */
	static final int MAX_LISTED_SLOTS = 4096;

	/** The most distinct methods a stop report lists, largest counts first. */
	static final int MAX_REPORTED_METHODS = 20;

	private static final Log logger = LogFactory.getLog(WheelTimerEndpoint.class);

	private final Map<String, HashedWheelTimer> timers;

	/** How long a timer's details wait for its worker to list the next timeouts, by bean name. */
	private final Map<String, Duration> answerWaits = new TreeMap<>();

	private final @Nullable DelayedMethodRegistry registry;

	private final Function<String, Duration> defaultDrainTimeouts;

	private final @Nullable DurableCallsOperations durable;

	private final Access access;

	private final Show showArguments;

	private final Set<String> roles;

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
		this.showArguments = showArguments;
		this.roles = Set.copyOf(roles);
		this.durable = durable;
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
		Map<String, WheelTimerDescriptor> descriptors = new LinkedHashMap<>();
		this.timers.forEach((name, timer) -> descriptors.put(name, WheelTimerDescriptor.of(timer.snapshot())));
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
	public @Nullable WheelTimerDetailsDescriptor timer(@Selector String name) {
		HashedWheelTimer timer = this.timers.get(name);
		if (timer == null) {
			return null;
		}
		// The worker moves new timeouts onto the wheel before it answers: a snapshot taken after
		// the answer shows them in its levels too.
		List<Timeout> nextTimeouts = nextTimeouts(timer, this.answerWaits.get(name));
		WheelSnapshot snapshot = timer.snapshot();
		List<DelayedMethodDescriptor> methods = (this.registry != null) ? this.registry.methods()
			.stream()
			.filter((method) -> method.timerBeanName().equals(name))
			.map(DelayedMethodDescriptor::new)
			.toList() : List.of();
		return WheelTimerDetailsDescriptor.of(snapshot, nextTimeouts, methods);
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
	public @Nullable StopReportDescriptor stop(@Selector String name, @Nullable Duration drainTimeout) {
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
		return new StopReportDescriptor(name, state, alreadyStopped, DurationFormat.iso(drain),
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
	 * @param size the most calls on a page, up to {@value #MAX_PAGE} ({@code null}:
	 * {@value #PAGE})
	 * @param securityContext who asks: decides whether arguments are shown
	 * @return the calls, or {@code null} if durable calls are off or the path names something else
	 * @throws InvalidEndpointRequestException if a parameter is out of range
	 */
	@ReadOperation
	public @Nullable OperationResponseBody durable(@Selector String section, @Selector String list,
			@Nullable String method, @Nullable String key, @Nullable String state, @Nullable Integer page,
			@Nullable Integer size, SecurityContext securityContext) {
		DurableCallsOperations durable = durable(section);
		if (durable == null) {
			return null;
		}
		if (FAILED.equals(list)) {
			return durable.failed(methodId(method));
		}
		if (!CALLS.equals(list)) {
			return null;
		}
		int pageSize = (size != null) ? size : PAGE;
		if (pageSize < 1 || pageSize > MAX_PAGE) {
			throw invalid("size must be between 1 and " + MAX_PAGE + ", was " + pageSize);
		}
		DurableCallsDescriptor.CallPageDescriptor calls = request(() -> durable.calls(methodId(method),
				methodId(key), methodId(state), (page != null) ? page : 0, pageSize));
		return argumentsShown(securityContext) ? calls : calls.withArgumentsHidden();
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
	public @Nullable RequeueDescriptor requeue(@Selector String section, @Selector String calls,
			@Nullable String method) {
		DurableCallsOperations durable = durable(section);
		return (durable != null && FAILED.equals(calls)) ? durable.requeue(methodId(method)) : null;
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
		DurableCallsOperations durable = durable(section);
		if (durable == null || !CALLS.equals(list)) {
			return null;
		}
		return shown(durable.call(callId(id)), securityContext);
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
		DurableCallsOperations durable = durable(section);
		if (durable == null || !CALLS.equals(list)) {
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
		return shown(request(() -> durable.reschedule(call, at)), securityContext);
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
		DurableCallsOperations durable = durable(section);
		if (durable == null) {
			return null;
		}
		if (METHODS.equals(list)) {
			return durable.deleteCallsOf(target);
		}
		return CALLS.equals(list) ? shown(durable.cancel(callId(target)), securityContext) : null;
	}

	/** @return the durable calls when the path is theirs, else {@code null} */
	private @Nullable DurableCallsOperations durable(String section) {
		return DURABLE.equals(section) ? this.durable : null;
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

	static final String DURABLE = "durable";

	static final String CALLS = "calls";

	static final String FAILED = "failed";

	static final String METHODS = "methods";

	/** The path, below the endpoint's, of the failed durable calls. */
	static final String FAILED_PATH = DURABLE + "/" + FAILED;

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

	/**
	 * What a re-queue of failed durable calls did.
	 *
	 * @param method the method id whose failed calls were re-queued, or {@code null} for all
	 * @param requeued how many calls are pending again
	 * @param keyInUse the failed calls left failed because a pending call of the same method holds
	 * their key now (a newer call replaced them, as it would have replaced them pending); cancel
	 * that call first to run one of them again
	 */
	public record RequeueDescriptor(@Nullable String method, int requeued,
			List<DurableCallsDescriptor.FailedCallDescriptor> keyInUse) implements OperationResponseBody {
	}

	/**
	 * The failed durable calls.
	 *
	 * @param method the method id whose failed calls these are, or {@code null} for all
	 * @param total how many failed calls the database keeps (for
	 * {@code wheel-timer.durable.failed-retention})
	 * @param newest the newest of them, at most 100
	 */
	public record FailedCallsDescriptor(@Nullable String method, long total,
			List<DurableCallsDescriptor.FailedCallDescriptor> newest) implements OperationResponseBody {
	}

	/**
	 * Every timer, by bean name, and the durable calls.
	 *
	 * @param access what this endpoint allows: {@code READ_ONLY}, or {@code UNRESTRICTED} when it
	 * takes changes ({@code management.endpoint.wheeltimer.access})
	 * @param timers the timers
	 * @param durable the durable calls, or {@code null} (left out) when they are off
	 */
	public record WheelTimersDescriptor(String access, Map<String, WheelTimerDescriptor> timers,
			@Nullable DurableCallsDescriptor durable) implements OperationResponseBody {
	}

	/**
	 * What one timer is doing.
	 *
	 * @param state {@code INIT} (worker not started yet), {@code STARTED} or {@code SHUTDOWN}
	 * @param tickDuration the length of one tick
	 * @param ticksPerWheel the number of buckets of level 0, a power of two
	 * @param tick the tick the hand is on, counted from the timer's creation
	 * @param hand the bucket of level 0 the hand points at
	 * @param pendingTimeouts timeouts that have neither fired nor been cancelled
	 * @param maxPendingTimeouts the limit on pending timeouts, 0 for none
	 * @param counters what happened to the timeouts so far
	 * @param tickLag how far behind the worker is now
	 * @param maxTickLag the worst lag so far
	 * @param meanLateness how late, on average, fired timeouts were handed to run after their
	 * deadline: about half a tick on a timer that keeps up
	 * @param worker the worker thread
	 */
	public record WheelTimerDescriptor(String state, String tickDuration, int ticksPerWheel, long tick, int hand,
			long pendingTimeouts, long maxPendingTimeouts, CountersDescriptor counters, String tickLag,
			String maxTickLag, String meanLateness, WheelSnapshot.Worker worker) {

		static WheelTimerDescriptor of(WheelSnapshot snapshot) {
			WheelSnapshot.Counters counters = snapshot.counters();
			long fired = counters.fired();
			Duration meanLateness = (fired > 0) ? counters.lateness().dividedBy(fired) : Duration.ZERO;
			return new WheelTimerDescriptor(snapshot.state().name(), DurationFormat.iso(snapshot.tickDuration()),
					snapshot.ticksPerWheel(), snapshot.tick(), snapshot.hand(), snapshot.pendingTimeouts(),
					snapshot.maxPendingTimeouts(), new CountersDescriptor(counters), DurationFormat.iso(snapshot.tickLag()),
					DurationFormat.iso(snapshot.maxTickLag()), DurationFormat.iso(meanLateness), snapshot.worker());
		}

	}

	/**
	 * What happened to a timer's timeouts. Every one scheduled ends up completed, failed,
	 * withdrawn, cancelled or unprocessed; until then it is pending or running. A
	 * {@code @DelayedExecution} call counts as its method's run ended, not as its hand-off to the
	 * executor: the timer task hands the run off.
	 *
	 * @param scheduled accepted: in-memory calls, durable calls this instance holds on the wheel or
	 * runs at once (due already when claimed: a backlog, a take-over, a run now or a re-queue), and
	 * plain timer tasks
	 * @param completed ran and returned normally: the method returned, its returned future completed
	 * @param failed threw, or could not start: the method threw, its future failed, its executor
	 * refused an in-memory call, a durable call's arguments could not be read
	 * @param withdrawn fired, then given up before the method ran here: an in-memory call cancelled
	 * while it waited for its executor; a durable call handed back to the database, found cancelled,
	 * replaced or taken over elsewhere by its start gate, or put back on the wheel by it to try again
	 * @param cancelled cancelled by their caller before they fired
	 * @param rejected refused because the timer was stopped or full; never scheduled
	 * @param running fired and not finished: waiting for or running on the executor (a durable call:
	 * at its start gate too)
	 * @param unprocessed still pending when the timer stopped
	 */
	public record CountersDescriptor(long scheduled, long completed, long failed, long withdrawn, long cancelled,
			long rejected, long running, long unprocessed) {

		CountersDescriptor(WheelSnapshot.Counters counters) {
			this(counters.scheduled(), counters.completed(), counters.failed(), counters.withdrawn(),
					counters.cancelled(), counters.rejected(), counters.running(), counters.unprocessed());
		}

	}

	/**
	 * One timer in detail: the fields of {@link WheelTimerDescriptor}, then what is in the wheel.
	 *
	 * @param state see {@link WheelTimerDescriptor}
	 * @param tickDuration see {@link WheelTimerDescriptor}
	 * @param ticksPerWheel see {@link WheelTimerDescriptor}
	 * @param tick see {@link WheelTimerDescriptor}
	 * @param hand see {@link WheelTimerDescriptor}
	 * @param pendingTimeouts see {@link WheelTimerDescriptor}
	 * @param maxPendingTimeouts see {@link WheelTimerDescriptor}
	 * @param counters see {@link WheelTimerDescriptor}
	 * @param tickLag see {@link WheelTimerDescriptor}
	 * @param maxTickLag see {@link WheelTimerDescriptor}
	 * @param meanLateness see {@link WheelTimerDescriptor}
	 * @param worker see {@link WheelTimerDescriptor}
	 * @param buckets level 0 at a glance: how many buckets hold timeouts, and the fullest
	 * @param levels every level of the wheel, level 0 first, with the slots that hold timeouts
	 * @param nextTimeouts the timeouts due first, soonest first, at most
	 * {@value WheelTimerEndpoint#NEXT_TIMEOUTS}; {@code null} (left out) if the worker was too busy to
	 * answer in time
	 * @param delayedMethods the {@code @DelayedExecution} methods whose calls wait on this timer
	 */
	public record WheelTimerDetailsDescriptor(String state, String tickDuration, int ticksPerWheel, long tick,
			int hand, long pendingTimeouts, long maxPendingTimeouts, CountersDescriptor counters, String tickLag,
			String maxTickLag, String meanLateness, WheelSnapshot.Worker worker, BucketsDescriptor buckets,
			List<LevelDescriptor> levels, @Nullable List<NextTimeoutDescriptor> nextTimeouts,
			List<DelayedMethodDescriptor> delayedMethods) implements OperationResponseBody {

		static WheelTimerDetailsDescriptor of(WheelSnapshot snapshot, @Nullable List<Timeout> nextTimeouts,
				List<DelayedMethodDescriptor> delayedMethods) {
			WheelTimerDescriptor timer = WheelTimerDescriptor.of(snapshot);
			List<NextTimeoutDescriptor> next = (nextTimeouts != null) ? nextTimeouts.stream()
				.filter((timeout) -> !timeout.isCancelled() && !timeout.isExpired())
				.map(NextTimeoutDescriptor::of)
				.toList() : null;
			return new WheelTimerDetailsDescriptor(timer.state(), timer.tickDuration(), timer.ticksPerWheel(),
					timer.tick(), timer.hand(), timer.pendingTimeouts(), timer.maxPendingTimeouts(), timer.counters(),
					timer.tickLag(), timer.maxTickLag(), timer.meanLateness(), timer.worker(),
					BucketsDescriptor.of(snapshot.buckets()),
					snapshot.levels().stream().map(LevelDescriptor::of).toList(), next, delayedMethods);
		}

	}

	/**
	 * Level 0 at a glance: its occupied buckets are listed with the {@code levels}.
	 *
	 * @param occupied how many buckets hold timeouts
	 * @param largest the bucket that holds the most, or {@code null} (left out) when all are empty
	 */
	public record BucketsDescriptor(int occupied, @Nullable SlotDescriptor largest) {

		static BucketsDescriptor of(List<WheelSnapshot.Slot> buckets) {
			WheelSnapshot.Slot largest = null;
			for (WheelSnapshot.Slot bucket : buckets) {
				if (largest == null || bucket.timeouts() > largest.timeouts()) {
					largest = bucket;
				}
			}
			return new BucketsDescriptor(buckets.size(), (largest != null) ? SlotDescriptor.of(largest) : null);
		}

	}

	/**
	 * One level of the wheel. Level 0 is the ring of {@code ticksPerWheel} buckets, one tick each,
	 * that fires; each level above has 64 slots, each spanning a whole turn of the level below. A
	 * timeout beyond level 0's turn waits in the slot of the level that holds its deadline, and
	 * moves down, re-filed by its deadline, when that level's hand reaches the slot: at most once
	 * per level on its way to level 0.
	 *
	 * @param index 0 for the buckets, 1 and up for the coarser levels
	 * @param slotSpan how much time one slot covers: the tick at level 0
	 * @param slots how many slots the level has
	 * @param hand the slot the level's hand is in
	 * @param timeouts how many timeouts the level holds
	 * @param nextDue how long until the earliest of them is due, or {@code null} (left out) when
	 * the level is empty
	 * @param moves how many timeouts have moved down from this level so far (0 at level 0)
	 * @param occupied the slots that hold timeouts, in slot order, at most
	 * {@value WheelTimerEndpoint#MAX_LISTED_SLOTS}
	 */
	public record LevelDescriptor(int index, String slotSpan, int slots, int hand, long timeouts,
			@Nullable String nextDue, long moves, List<SlotDescriptor> occupied) {

		static LevelDescriptor of(WheelSnapshot.Level level) {
			List<WheelSnapshot.Slot> occupied = level.occupied();
			if (occupied.size() > MAX_LISTED_SLOTS) {
				occupied = occupied.subList(0, MAX_LISTED_SLOTS);
			}
			Duration nextDue = level.nextDue();
			return new LevelDescriptor(level.index(), DurationFormat.iso(level.slotSpan()), level.slots(), level.hand(),
					level.timeouts(), (nextDue != null) ? DurationFormat.iso(nextDue) : null, level.moves(),
					occupied.stream().map(SlotDescriptor::of).toList());
		}

	}

	/**
	 * A slot that holds timeouts: at level 0, a bucket.
	 *
	 * @param index the slot's position in its level, from 0
	 * @param timeouts how many timeouts it holds
	 * @param dueIn how long until the earliest of them is due; negative when overdue
	 */
	public record SlotDescriptor(int index, int timeouts, String dueIn) {

		static SlotDescriptor of(WheelSnapshot.Slot slot) {
			return new SlotDescriptor(slot.index(), slot.timeouts(), DurationFormat.iso(slot.dueIn()));
		}

	}

	/**
	 * A timeout due soon.
	 *
	 * @param method the {@code @DelayedExecution} method it will call, or {@code null} (left out)
	 * for a plain timer task
	 * @param task the class of a plain timer task, or {@code null} (left out) for a delayed call
	 * @param remainingDelay how long until its deadline; it fires at the end of that tick
	 * @param key the key of a durable call, such as an order's id, or {@code null} (left out) for
	 * a call without one
	 * @param callId the id of a durable call, or {@code null} (left out) for an in-memory call
	 * @param attempt the attempt it runs when it is a {@code @Retryable} retry (2 or more; a durable
	 * call counts every run of its row), or {@code null} (left out) for a first run
	 */
	public record NextTimeoutDescriptor(@Nullable String method, @Nullable String task, String remainingDelay,
			@Nullable String key, @Nullable UUID callId, @Nullable Integer attempt) {

		static NextTimeoutDescriptor of(Timeout timeout) {
			String remainingDelay = DurationFormat.iso(timeout.remainingDelay());
			// Through the interface: a durable call's class is not loaded where durable calls are off.
			return (timeout.task() instanceof DelayedTask call)
					? new NextTimeoutDescriptor(call.method().description(), null, remainingDelay, call.key(), call.id(),
							(call.attempt() > 1) ? call.attempt() : null)
					: new NextTimeoutDescriptor(null, DelayedMethod.describe(timeout), remainingDelay, null, null, null);
		}

	}

	/**
	 * A {@code @DelayedExecution} method.
	 *
	 * @param method the method, such as {@code OrderService.cancelIfUnpaid(String)}
	 * @param delay its delay, as resolved at startup
	 * @param calls how many calls this instance's callers made since startup (a durable call
	 * wherever it then runs)
	 * @param completed how many of its runs on this instance returned normally, durable calls run
	 * again after a re-queue or a run now included
	 * @param failed how many of its runs on this instance threw or could not start, likewise
	 * @param inFlight how many are due and queued or running on the executor
	 * @param maxRetries its {@code @Retryable(maxRetries)}, or {@code null} (left out) for a method
	 * whose failed calls are not retried
	 * @param retried how many failed runs on this instance its {@code @Retryable} tried again
	 * @param exhausted how many calls failed for good on this instance after retries
	 */
	public record DelayedMethodDescriptor(String method, String delay, long calls, long completed, long failed,
			int inFlight, @Nullable Long maxRetries, long retried, long exhausted) {

		DelayedMethodDescriptor(DelayedMethod method) {
			this(method.description(), DurationFormat.iso(method.delay()), method.calls(), method.completedCalls(),
					method.failedCalls(), method.inFlight(), (method.retry() != null) ? method.retry().maxRetries() : null,
					method.retriedCalls(), method.exhaustedCalls());
		}

	}

	/**
	 * What a stop did.
	 *
	 * @param timer the timer's bean name
	 * @param state the timer's state afterwards: {@code SHUTDOWN}
	 * @param alreadyStopped whether the timer was stopped before this request (then nothing was
	 * drained or left by it)
	 * @param drainTimeout the drain asked for
	 * @param took how long the stop took; less than the drain when nothing more could fall due in it
	 * @param firedDuringDrain timeouts that fell due and were handed to run while it drained
	 * @param unprocessed timeouts left, now cancelled
	 * @param handedBack how many of them were durable calls, handed back to the database
	 * @param unprocessedByMethod how many were left per method (or task class), largest first, at
	 * most {@value WheelTimerEndpoint#MAX_REPORTED_METHODS}
	 */
	public record StopReportDescriptor(String timer, String state, boolean alreadyStopped, String drainTimeout,
			String took, long firedDuringDrain, int unprocessed, int handedBack,
			Map<String, Integer> unprocessedByMethod) implements OperationResponseBody {

		StopReportDescriptor(String timer, String state, boolean alreadyStopped, String drainTimeout, String took,
				long firedDuringDrain, UnprocessedCalls calls) {
			this(timer, state, alreadyStopped, drainTimeout, took, firedDuringDrain, calls.total(), calls.handedBack(),
					firstEntries(calls.byTask()));
		}

		private static Map<String, Integer> firstEntries(Map<String, Integer> largestFirst) {
			Map<String, Integer> first = new LinkedHashMap<>();
			largestFirst.entrySet()
				.stream()
				.limit(MAX_REPORTED_METHODS)
				.forEach((entry) -> first.put(entry.getKey(), entry.getValue()));
			return first;
		}

	}

}
