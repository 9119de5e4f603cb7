package io.github.wheeltimer.annotation;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

import io.github.wheeltimer.Timeout;
import io.github.wheeltimer.Timer;
import org.aspectj.lang.ProceedingJoinPoint;
import org.jspecify.annotations.Nullable;

import org.springframework.core.task.TaskRejectedException;
import org.springframework.util.ClassUtils;

/**
 * A {@link DelayedExecution} method as resolved at startup: its delay, its timer, and counts of
 * its calls. Immutable apart from the counts; one instance per annotated method, shared by every
 * call, so nothing is parsed or looked up on the call path.
 */
public final class DelayedMethod {

	private final Method method;

	private final String description;

	private final Duration delay;

	private final long delayNanos;

	private final String timerBeanName;

	private final Timer timer;

	private final boolean returnsFuture;

	private final DelayedMethodRegistry registry;

	private final LongAdder calls = new LongAdder();

	/** Calls handed to the executor and not finished yet. */
	private final AtomicInteger inFlight = new AtomicInteger();

	DelayedMethod(Method method, Duration delay, String timerBeanName, Timer timer, boolean returnsFuture,
			DelayedMethodRegistry registry) {
		this.method = method;
		this.description = describe(method);
		this.delay = delay;
		this.delayNanos = saturatedNanos(delay);
		this.timerBeanName = timerBeanName;
		this.timer = timer;
		this.returnsFuture = returnsFuture;
		this.registry = registry;
	}

	/**
	 * Returns the {@link DelayedExecution} method whose call a timeout holds, such as one listed
	 * by {@link io.github.wheeltimer.HashedWheelTimer#nextTimeouts(int, java.time.Duration)} or returned by a stop.
	 * @param timeout a timeout of any timer
	 * @return the method, or {@code null} if the timeout runs a plain
	 * {@link io.github.wheeltimer.TimerTask}
	 */
	public static @Nullable DelayedMethod of(Timeout timeout) {
		return (timeout.task() instanceof DelayedCall call) ? call.method() : null;
	}

	/**
	 * Describes what a timeout runs: the {@link #description()} of its delayed method, or the
	 * class name of a plain {@link io.github.wheeltimer.TimerTask}.
	 * @param timeout a timeout of any timer
	 * @return the description
	 */
	public static String describe(Timeout timeout) {
		DelayedMethod method = of(timeout);
		return (method != null) ? method.description() : timeout.task().getClass().getName();
	}

	/**
	 * Returns the annotated method.
	 * @return the method
	 */
	public Method method() {
		return this.method;
	}

	/**
	 * Returns the method as people read it, such as {@code OrderService.cancelIfUnpaid(String)}.
	 * @return the description
	 */
	public String description() {
		return this.description;
	}

	/**
	 * Returns the delay, resolved from the annotation.
	 * @return the delay
	 */
	public Duration delay() {
		return this.delay;
	}

	/**
	 * Returns the bean name of the timer that holds this method's calls.
	 * @return the timer's bean name
	 */
	public String timerBeanName() {
		return this.timerBeanName;
	}

	/**
	 * Returns how many calls the timer has accepted since startup.
	 * @return the number of accepted calls
	 */
	public long calls() {
		return this.calls.sum();
	}

	/**
	 * Returns how many calls are due and handed to the executor, queued or running.
	 * @return the number of calls in flight
	 */
	public int inFlight() {
		return this.inFlight.get();
	}

	boolean returnsFuture() {
		return this.returnsFuture;
	}

	DelayedMethodRegistry registry() {
		return this.registry;
	}

	/**
	 * Puts a call on the timer. Runs on the caller's thread: two allocations of ours (the call, and
	 * its future if the method returns one) plus the timer's timeout.
	 */
	@Nullable DelayedResult schedule(ProceedingJoinPoint joinPoint) {
		DelayedResult result = this.returnsFuture ? new DelayedResult() : null;
		DelayedCall call = new DelayedCall(this, joinPoint, result);
		Timeout timeout;
		try {
			timeout = this.timer.newTimeout(call, this.delayNanos, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException | IllegalStateException ex) {
			throw new TaskRejectedException("Timer '" + this.timerBeanName + "' refused the delayed call to "
					+ this.description + ": " + ex.getMessage(), ex);
		}
		this.calls.increment();
		if (result != null) {
			result.cancelsTimeout(timeout);
		}
		return result;
	}

	void handedOff() {
		this.inFlight.incrementAndGet();
	}

	void finished() {
		this.inFlight.decrementAndGet();
	}

	@Override
	public String toString() {
		return this.description + " after " + this.delay + " on timer '" + this.timerBeanName + "'";
	}

	static String describe(Method method) {
		return ClassUtils.getShortName(method.getDeclaringClass()) + "." + method.getName()
				+ Arrays.stream(method.getParameterTypes())
					.map(ClassUtils::getShortName)
					.collect(Collectors.joining(", ", "(", ")"));
	}

	private static long saturatedNanos(Duration delay) {
		try {
			return delay.toNanos();
		}
		catch (ArithmeticException tooLong) {
			return Long.MAX_VALUE;
		}
	}

}
