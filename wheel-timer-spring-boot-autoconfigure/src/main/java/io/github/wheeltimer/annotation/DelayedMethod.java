package io.github.wheeltimer.annotation;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import io.github.wheeltimer.HandOff;
import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.Ticker;
import io.github.wheeltimer.Timer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * A {@link DelayedExecution} method as resolved at startup: its delay, its timer, the executor
 * that runs it, the handler of its failures, the scheduler that keeps its calls (in memory, or
 * durable), and counts of its calls. Immutable apart from the counts; one instance per annotated
 * method, shared by every call, so nothing is parsed or looked up on the call path.
 */
public final class DelayedMethod {

	private static final Log logger = LogFactory.getLog(DelayedMethod.class);

	private final Method method;

	private final String description;

	private final Duration delay;

	private final long delayNanos;

	private final String timerBeanName;

	private final Timer timer;

	/** Its timer's clock (a test's virtual clock too), what {@code @Retryable(timeout)} is measured on. */
	private final Ticker ticker;

	private final boolean returnsFuture;

	private final Executor executor;

	/** {@code null}: failures are logged at ERROR. */
	private final @Nullable DelayedExecutionExceptionHandler exceptionHandler;

	/** Carries each call's context from its caller, and observes the call. */
	private final DelayedCallObserver observer;

	private final LongAdder calls = new LongAdder();

	/**
	 * Runs that returned normally (their future completed), and runs that threw (their future
	 * failed) or could not start: counted by the thread the run ended on, an executor's mostly.
	 */
	private final LongAdder completed = new LongAdder();

	private final LongAdder failed = new LongAdder();

	/** Failed attempts that its {@code @Retryable} tried again, and calls whose retries then ended. */
	private final LongAdder retried = new LongAdder();

	private final LongAdder exhausted = new LongAdder();

	/** Calls handed to the executor and not finished yet. */
	private final AtomicInteger inFlight = new AtomicInteger();

	/** Whether its calls are kept in the database rather than in memory. */
	private final boolean durable;

	/** Its {@code @Retryable}, which the wheel honours; {@code null} without one. */
	private final @Nullable DelayedRetry retry;

	/**
	 * The run path of the bean whose calls ran last, for retried in-memory calls: most methods have
	 * one bean, so one slot; a race only builds a path twice.
	 */
	private volatile @Nullable BeanPath lastPath;

	private record BeanPath(Object proxy, RunPath path) {
	}

	DelayedMethod(Method method, Duration delay, String timerBeanName, Timer timer, boolean returnsFuture,
			Executor executor, @Nullable DelayedExecutionExceptionHandler exceptionHandler,
			DelayedCallObserver observer, boolean durable, @Nullable DelayedRetry retry) {
		this.method = method;
		this.description = MethodNames.describe(method);
		this.delay = delay;
		this.delayNanos = saturatedNanos(delay);
		this.timerBeanName = timerBeanName;
		this.timer = timer;
		this.ticker = (timer instanceof HashedWheelTimer wheel) ? wheel.ticker() : Ticker.system();
		this.returnsFuture = returnsFuture;
		this.executor = executor;
		this.exceptionHandler = exceptionHandler;
		this.observer = observer;
		this.durable = durable;
		this.retry = retry;
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
	 * Returns how many calls this instance's callers made since startup: accepted by the timer
	 * (in-memory), or written to the database (durable, wherever they then run). A failed durable
	 * call re-queued or run now is not a new call: its runs count in {@link #completedCalls()} and
	 * {@link #failedCalls()} where they run.
	 * @return the number of accepted calls
	 */
	public long calls() {
		return this.calls.sum();
	}

	/**
	 * Returns how many runs of this method on this instance returned normally (a returned future
	 * completed normally): in-memory calls, and durable calls wherever they were made, run again
	 * after a re-queue or a run now included.
	 * @return the number of completed runs
	 */
	public long completedCalls() {
		return this.completed.sum();
	}

	/**
	 * Returns how many runs of this method on this instance threw (a returned future failed), or
	 * could not start: an in-memory call its executor refused, a durable call whose arguments could
	 * not be read. Durable calls run again after a re-queue or a run now count each time.
	 * @return the number of failed runs
	 */
	public long failedCalls() {
		return this.failed.sum();
	}

	/**
	 * Returns how many failed attempts of this method's calls on this instance its
	 * {@code @Retryable} tried again, each after its backoff.
	 * @return the retries scheduled
	 */
	public long retriedCalls() {
		return this.retried.sum();
	}

	/**
	 * Returns how many calls of this method failed on this instance for good after their
	 * {@code @Retryable} retried them at least once: retries spent, the timeout passed, or an
	 * exception it does not retry.
	 * @return the calls whose retries ended in failure
	 */
	public long exhaustedCalls() {
		return this.exhausted.sum();
	}

	/**
	 * Counts what its {@code @Retryable} decided after a failed attempt. For the durable calls'
	 * runtime too.
	 * @param retried whether another attempt follows; if not, the call fails, and counts as
	 * exhausted when it had been retried before
	 * @param failures the failed attempts of its round of retries, this one included
	 */
	public void retryDecided(boolean retried, long failures) {
		if (retried) {
			this.retried.increment();
		}
		else if (failures > 1) {
			this.exhausted.increment();
		}
	}

	/**
	 * Returns how many calls are due and handed to the executor, queued or running.
	 * @return the number of calls in flight
	 */
	public int inFlight() {
		return this.inFlight.get();
	}

	/**
	 * Returns whether the method is {@code @DelayedExecution(durable = true)}.
	 * @return {@code true} for durable calls
	 */
	public boolean isDurable() {
		return this.durable;
	}

	/**
	 * Returns the method's {@code @Retryable}, as the wheel honours it: each retry a delayed call
	 * after its backoff.
	 * @return the retry, or {@code null} if a failed call is not retried
	 */
	public @Nullable DelayedRetry retry() {
		return this.retry;
	}

	/** @return how a run of a call made through {@code proxy} reaches the method */
	RunPath runPath(Object proxy) {
		BeanPath last = this.lastPath;
		if (last == null || last.proxy() != proxy) {
			last = new BeanPath(proxy, RunPath.of(proxy, ClassUtils.getUserClass(proxy).getName()));
			this.lastPath = last;
		}
		return last.path();
	}

	/** @return the delay in nanoseconds, saturated at {@code Long.MAX_VALUE} */
	long delayNanos() {
		return this.delayNanos;
	}

	/**
	 * Returns the timer that holds this method's calls.
	 * @return the timer
	 */
	public Timer timer() {
		return this.timer;
	}

	/** @return the reading of its timer's clock, in nanoseconds, as {@link System#nanoTime()} reads */
	long nanoTime() {
		return this.ticker.nanoTime();
	}

	/**
	 * Returns whether the method returns a future, which its callers get at once.
	 * @return {@code true} for {@code CompletableFuture}, {@code CompletionStage} and {@code Future}
	 */
	public boolean returnsFuture() {
		return this.returnsFuture;
	}

	Executor executor() {
		return this.executor;
	}

	/**
	 * Returns what carries each call's context from its caller and observes the call. For the
	 * durable calls' runtime.
	 * @return the observer; {@link DelayedCallObserver#NONE} without Micrometer
	 */
	public DelayedCallObserver observer() {
		return this.observer;
	}

	/**
	 * Runs a call of this method on its executor, counted {@link #inFlight() in flight} until it
	 * ends. For a {@link DelayedCallScheduler} whose calls fall due outside the advice.
	 * @param call what runs the method
	 * @throws RuntimeException if the executor refuses the call, which then is not in flight
	 */
	public void execute(Runnable call) {
		handedOff();
		try {
			this.executor.execute(() -> {
				try {
					call.run();
				}
				finally {
					finished();
				}
			});
		}
		catch (RuntimeException | Error refused) {
			finished();
			throw refused;
		}
	}

	/**
	 * Counts how a run of a call of this method ended, and tells its timer, to which the call's
	 * task handed the run off: {@link DelayedCallOutcome#RAN} counts as completed here and on the
	 * timer, {@link DelayedCallOutcome#FAILED} as failed; any other outcome (the run was given up
	 * before it started: cancelled while it waited for its executor, a durable call handed back or
	 * fenced) counts nothing here and as withdrawn on the timer. On the thread the run ended on;
	 * for the durable calls' runtime too.
	 * @param outcome how the run ended
	 * @param handOff what the call's timer task handed off, {@link HandOff#NONE} if it did not
	 */
	public void ended(DelayedCallOutcome outcome, HandOff handOff) {
		switch (outcome) {
			case RAN -> {
				this.completed.increment();
				handOff.completed();
			}
			case FAILED -> {
				this.failed.increment();
				handOff.failed();
			}
			default -> handOff.withdrawn();
		}
	}

	/** Its scheduler accepted a call, on the caller's thread. */
	void accepted() {
		this.calls.increment();
	}

	/**
	 * Reports the failure of a call of a {@code void} method, whose caller cannot see it. A call
	 * that failed only because it tried to schedule another delayed call on a timer that is
	 * stopping (a method that re-arms itself while the application shuts down) is normal at
	 * shutdown: without a handler of the application's own, one WARN line, not an error with a
	 * stack. A handler gets every failure, that one too. The log lines name a durable call's key.
	 * @param ex what the method threw
	 * @param arguments the call's arguments
	 * @param key the key of a durable call made with one, or {@code null}
	 */
	public void failed(Throwable ex, @Nullable Object[] arguments, @Nullable String key) {
		String call = this.description + ((key != null) ? " [key " + key + "]" : "");
		if (this.exceptionHandler == null) {
			TimerStoppedException stopping = TimerStoppedException.find(ex);
			if (stopping != null) {
				logger.warn("Delayed call to " + call + " ended early: " + stopping.getMessage());
				return;
			}
		}
		else {
			try {
				this.exceptionHandler.handleUncaughtException(ex, this.method, arguments);
				return;
			}
			catch (Throwable handlerFailure) {
				logger.error("DelayedExecutionExceptionHandler " + this.exceptionHandler + " failed to handle the"
						+ " failure of a delayed call to " + call, handlerFailure);
			}
		}
		logger.error("Delayed call to " + call + " failed", ex);
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

	private static long saturatedNanos(Duration delay) {
		try {
			return delay.toNanos();
		}
		catch (ArithmeticException tooLong) {
			return Long.MAX_VALUE;
		}
	}

}
