package io.github.wheeltimer.durable.arguments;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.WheelSnapshot;
import io.github.wheeltimer.annotation.DelayedExecution;
import io.github.wheeltimer.annotation.DelayedMethod;
import io.github.wheeltimer.annotation.RunPath;
import io.github.wheeltimer.durable.storage.CallRepository;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.StringUtils;

/**
 * The durable methods this instance knows, by id: resolved at startup from their annotations
 * (id, SpEL key, argument codec), with the invocation path of each bean that runs them.
 * <p>
 * Threads: written at startup by the registry's resolution, on the thread that refreshes the
 * context, before any call; read by callers, polls and executors through concurrent maps. An
 * invocation path is built on the first run of its bean; a racing build only repeats it.
 */
public final class DurableMethods {

	private static final SpelExpressionParser parser = new SpelExpressionParser();

	private final JsonMapper mapper;

	private final BeanFactory beanFactory;

	private final Map<String, DurableMethod> byId = new ConcurrentHashMap<>();

	private final Map<DelayedMethod, DurableMethod> byMethod = new ConcurrentHashMap<>();

	private final Map<String, RunPath> invokers = new ConcurrentHashMap<>();

	public DurableMethods(JsonMapper mapper, BeanFactory beanFactory) {
		this.mapper = ArgumentCodec.mapperFor(mapper);
		this.beanFactory = beanFactory;
	}

	/**
	 * Resolves the durable side of a method at startup.
	 * @throws IllegalArgumentException saying what is wrong: a duplicate id, an id too long to
	 * store, a key that is not valid SpEL or names a variable the method does not have, a delay
	 * too long to store, a parameter that cannot round-trip through JSON
	 */
	public DurableMethod register(DelayedMethod method, DelayedExecution annotation, String beanName) {
		String id = StringUtils.hasText(annotation.id()) ? annotation.id().trim()
				: method.method().getDeclaringClass().getSimpleName() + "." + method.method().getName();
		if (id.indexOf('\n') >= 0 || id.indexOf('\r') >= 0 || id.indexOf('\0') >= 0) {
			throw new IllegalArgumentException("its durable id '" + id.replace("\0", "\\0")
					+ "' holds a line break or a NUL character; an id is one line of text");
		}
		if (id.length() > CallRepository.METHOD_ID_LENGTH) {
			throw new IllegalArgumentException("its durable id is " + id.length() + " characters long, and ids are"
					+ " stored in a column of " + CallRepository.METHOD_ID_LENGTH + "; give it a shorter"
					+ " @DelayedExecution(id = \"...\")");
		}
		try {
			method.delay().toNanos();
		}
		catch (ArithmeticException tooLong) {
			throw new IllegalArgumentException("its delay " + method.delay() + " is longer than durable calls keep:"
					+ " at most about 292 years (a long of nanoseconds, the wheel's own range)", tooLong);
		}
		DurableMethod durable = new DurableMethod(method, id, key(annotation, method), arguments(method), beanName);
		DurableMethod other = this.byId.putIfAbsent(id, durable);
		if (other != null && other.method() != method) {
			throw new IllegalArgumentException("its durable id '" + id + "' is also the id of "
					+ other.method().description() + "; give one of them @DelayedExecution(id = \"...\")");
		}
		DurableMethod registered = (other != null) ? other : durable;
		this.byMethod.put(method, registered);
		return registered;
	}

	private static @Nullable Expression key(DelayedExecution annotation, DelayedMethod method) {
		if (!StringUtils.hasText(annotation.key())) {
			return null;
		}
		Expression key;
		try {
			key = parser.parseExpression(annotation.key());
		}
		catch (ParseException ex) {
			throw new IllegalArgumentException("its key \"" + annotation.key() + "\" is not a valid SpEL"
					+ " expression: " + ex.getMessage(), ex);
		}
		KeyVariables.requireKnown((SpelExpression) key, method.method());
		return key;
	}

	private ArgumentCodec arguments(DelayedMethod method) {
		try {
			return new ArgumentCodec(this.mapper, method.method());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("durable calls store their arguments as JSON, and its " + ex.getMessage(),
					ex);
		}
	}

	/** @return the durable side of a registered method */
	public DurableMethod of(DelayedMethod method) {
		DurableMethod durable = this.byMethod.get(method);
		if (durable == null) {
			throw new IllegalStateException(method.description() + " is not a registered durable method");
		}
		return durable;
	}

	/** @return the method of that id, or {@code null} if this instance does not know it */
	public @Nullable DurableMethod find(String id) {
		return this.byId.get(id);
	}

	/** @throws IllegalArgumentException naming the known ids, if none has this one */
	public DurableMethod require(String id) {
		DurableMethod method = this.byId.get(id);
		if (method == null) {
			throw new IllegalArgumentException("There is no durable delayed method with id '" + id + "'; the ids are "
					+ ids());
		}
		return method;
	}

	/** @return the shortest tick of the durable methods' wheels, the default tick (100 ms) at most */
	public Duration shortestTick() {
		Duration shortest = HashedWheelTimer.DEFAULT_TICK_DURATION;
		for (DurableMethod method : this.byId.values()) {
			if (method.method().timer() instanceof HashedWheelTimer timer) {
				Duration tick = timer.snapshot().tickDuration();
				shortest = (tick.compareTo(shortest) < 0) ? tick : shortest;
			}
		}
		return shortest;
	}

	/** @return the ids, sorted */
	public Set<String> ids() {
		return new TreeMap<>(this.byId).keySet();
	}

	public Collection<String> unsortedIds() {
		return this.byId.keySet();
	}

	/**
	 * The methods whose timer still takes calls: a timer stopped through the endpoint leaves its
	 * methods' rows in the database, for another instance or the next start.
	 */
	public List<String> claimable() {
		List<String> claimable = new ArrayList<>();
		this.byId.forEach((id, method) -> {
			if (!(method.method().timer() instanceof HashedWheelTimer timer)
					|| timer.snapshot().state() != WheelSnapshot.State.SHUTDOWN) {
				claimable.add(id);
			}
		});
		return claimable;
	}

	/** @return the invocation path of the bean that runs the method, built on its first run */
	public RunPath invoker(DurableMethod method) {
		RunPath invoker = this.invokers.get(method.beanName());
		if (invoker == null) {
			invoker = RunPath.of(this.beanFactory.getBean(method.beanName()), method.beanName());
			this.invokers.put(method.beanName(), invoker);
		}
		return invoker;
	}

}
