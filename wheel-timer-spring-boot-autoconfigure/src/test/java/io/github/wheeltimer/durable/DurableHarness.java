package io.github.wheeltimer.durable;

import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.annotation.DelayedExecution;
import io.github.wheeltimer.annotation.DelayedMethod;
import io.github.wheeltimer.annotation.DelayedMethods;
import io.github.wheeltimer.durable.arguments.ArgumentCodec;
import io.github.wheeltimer.durable.cooperation.DurableSettings;
import io.github.wheeltimer.durable.engine.DurableEngine;
import io.github.wheeltimer.durable.run.CallCounts;
import io.github.wheeltimer.virtualtime.VirtualTicker;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;

/**
 * One instance's durable calls, whole and outside Spring, on fake repositories and virtual time:
 * a {@link DurableEngine} with the {@link OrderTimeouts} bean's methods registered, their calls
 * run on their timer's worker thread (a direct executor), and the polls awaited by every advance.
 * So each {@link #advance} returns once what fell due ran, polls included; nothing sleeps.
 * <p>
 * Heartbeats run on real time: their interval is an hour here, so none beats during a test, and
 * leases lapse only when a test moves {@linkplain FakeInstanceRepository#advanceClock the fake
 * database's clock}. Made, started and closed by each test.
 */
final class DurableHarness implements AutoCloseable {

	static final String BEAN_NAME = "orderTimeouts";

	static final Duration TICK = Duration.ofMillis(100);

	static final Duration HORIZON = Duration.ofSeconds(10);

	static final Duration POLL_INTERVAL = Duration.ofSeconds(1);

	static final Duration LEASE = Duration.ofMinutes(1);

	final VirtualTicker ticker = new VirtualTicker();

	final FakeInstanceRepository instances = new FakeInstanceRepository();

	final FakeCallRepository calls;

	final OrderTimeouts bean = new OrderTimeouts();

	final HashedWheelTimer timer = HashedWheelTimer.builder().ticker(this.ticker).tickDuration(TICK).build();

	final DurableEngine durable;

	/** What {@code void} methods threw, as their exception handler got it (unless it went to the log). */
	final List<Throwable> failures = new CopyOnWriteArrayList<>();

	private final JsonMapper mapper = JsonMapper.builder().build();

	private final Object proxy;

	private final Map<String, DelayedMethod> methods = new LinkedHashMap<>();

	DurableHarness() {
		this(LEASE, 100);
	}

	/**
	 * @param lease the lease: by the fake database's clock for gates and take-overs, by real time
	 * for how long this instance waits before it takes others' calls over
	 * @param batchSize the most calls a claim takes
	 */
	DurableHarness(Duration lease, int batchSize) {
		this(lease, batchSize, false);
	}

	/**
	 * @param lease see {@link #DurableHarness(Duration, int)}
	 * @param batchSize see {@link #DurableHarness(Duration, int)}
	 * @param failuresLogged whether what {@code void} methods throw goes to the log, as in an
	 * application without an exception handler, rather than to {@link #failures}
	 */
	DurableHarness(Duration lease, int batchSize, boolean failuresLogged) {
		this.calls = new FakeCallRepository(this.instances, lease);
		ProxyFactory proxyFactory = new ProxyFactory(this.bean);
		proxyFactory.setProxyTargetClass(true);
		this.proxy = proxyFactory.getProxy();
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerSingleton(BEAN_NAME, this.proxy);
		DurableSettings settings = new DurableSettings(HORIZON, POLL_INTERVAL, Duration.ofHours(1), lease, batchSize,
				Duration.ofDays(7), "unit-test", false, Duration.ofSeconds(2));
		this.durable = new DurableEngine(this.calls, this.instances, settings, this.mapper,
				HashedWheelTimer.builder().ticker(this.ticker).tickDuration(TICK), beanFactory);
		for (Method method : OrderTimeouts.class.getDeclaredMethods()) {
			DelayedExecution annotation = method.getAnnotation(DelayedExecution.class);
			if (annotation == null) {
				continue;
			}
			Duration delay = Duration.of(annotation.delay(), annotation.timeUnit().toChronoUnit());
			DelayedMethod delayed = DelayedMethods.durable(method, delay, this.timer, Runnable::run,
					failuresLogged ? null : (ex, called, arguments) -> this.failures.add(ex));
			this.durable.register(delayed, annotation, BEAN_NAME);
			this.methods.put(method.getName(), delayed);
		}
		this.bean.clock(this.ticker::elapsed);
		this.ticker.awaitAlso(this.durable::busy);
	}

	/** Starts the instance, and returns once its first poll ended. */
	DurableHarness start() {
		this.durable.start();
		this.ticker.advance(Duration.ZERO);
		return this;
	}

	void advance(Duration amount) {
		this.ticker.advance(amount);
	}

	/** @return the application's time, as the durable calls see it */
	Instant now() {
		return this.durable.now();
	}

	/** Calls a method of the bean as its advice would. */
	@Nullable Object call(String method, Object... arguments) {
		return DelayedMethods.call(this.methods.get(method), this.durable, this.proxy, arguments);
	}

	/** @return the durable id of a method of the bean */
	static String id(String method) {
		return OrderTimeouts.class.getSimpleName() + "." + method;
	}

	/**
	 * Writes a pending call in the fake as another instance would (or one whose claim was handed
	 * back): no owner, due {@code dueIn} from now.
	 * @return its id
	 */
	UUID insertPending(String method, Duration dueIn, Object... arguments) {
		UUID id = UUID.randomUUID();
		this.calls.insert(id, id(method), null, arguments(method, arguments), now().plus(dueIn), null, null, "");
		return id;
	}

	/** @return the arguments as the method's calls store them */
	String arguments(String method, Object... arguments) {
		return new ArgumentCodec(ArgumentCodec.mapperFor(this.mapper), this.methods.get(method).method())
			.write(arguments);
	}

	/** @return the row of the only call, of any state */
	FakeCallRepository.CallRow onlyRow() {
		List<FakeCallRepository.CallRow> rows = this.calls.rows();
		if (rows.size() != 1) {
			throw new AssertionError("Expected one row, found " + rows);
		}
		return rows.get(0);
	}

	List<OrderTimeouts.Run> runs() {
		return this.bean.runs();
	}

	CallCounts counts() {
		return this.durable.counts();
	}

	/** Stops as the application's close would: the durable calls first, then the timer. */
	@Override
	public void close() {
		try {
			this.durable.stop();
			this.durable.destroy();
		}
		finally {
			this.timer.stop();
		}
	}

}
