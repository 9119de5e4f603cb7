package io.github.wheeltimer.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.concurrent.TimeUnit;

/**
 * Runs calls to the annotated bean method later: the call returns at once, and the method runs
 * with the call's arguments once the delay has passed, on a hashed wheel
 * {@link io.github.wheeltimer.Timer Timer}.
 *
 * <pre class="code">
 * &#64;DelayedExecution(delay = 30, timeUnit = TimeUnit.MINUTES)
 * public void cancelIfUnpaid(String orderId) { ... }
 *
 * &#64;DelayedExecution(delayString = "${orders.reminder-delay:10s}")
 * public CompletableFuture&lt;Receipt&gt; sendReminder(Order order) { ... }
 * </pre>
 *
 * <h2>Delay</h2>
 * Give exactly one of {@link #delay()} and {@link #delayString()}. The method runs on the first
 * tick of the timer at or after the delay has passed: never earlier, and later by at most about
 * one tick ({@code wheel-timer.tick-duration}) when the application is not overloaded.
 *
 * <h2>Return types</h2>
 * <ul>
 * <li>{@code void}: the call returns at once. If the method throws when it runs, the exception goes
 * to the {@link DelayedExecutionExceptionHandler} bean, or is logged at ERROR if there is none.
 * <li>{@code CompletableFuture<T>}, {@code CompletionStage<T>} or {@code Future<T>}: the caller
 * gets a future at once. It completes with the result of the future the method returns, or with
 * the exception it throws. Cancelling the returned future before the method has started cancels
 * the delayed call; later dependants ({@code thenApply} and so on) do not.
 * </ul>
 * Any other return type fails application startup: silently returning {@code null}, as
 * {@code @Async} does, would hide a bug.
 *
 * <h2>Where and when the method runs</h2>
 * Not on the timer's thread: on Spring Boot's {@code applicationTaskExecutor} (virtual threads with
 * {@code spring.threads.virtual.enabled=true}), or on the executor bean named by
 * {@code wheel-timer.executor} (or by the {@code executor} of the timer in
 * {@code wheel-timer.timers}). This annotation's advice runs before any other advice on the
 * method, so {@code @Transactional}, {@code @Retryable} and other aspects apply when the method
 * runs, not when it is called. The arguments are captured by reference: an argument changed after
 * the call is seen changed when the method runs.
 *
 * A delay shorter than the timer's tick logs a warning at startup: such calls run at the end of
 * the current tick, up to a tick later than the delay says.
 *
 * <h2>Errors</h2>
 * <ul>
 * <li>Startup fails, naming the method, when: both or neither of {@code delay} and
 * {@code delayString} are given; the delay is negative or cannot be parsed; the named timer does
 * not exist; the return type is not supported; or the method cannot be proxied (private, final or
 * static). Each method's annotation is resolved once, at startup.
 * <li>A call the timer cannot accept (it has been stopped, or {@code wheel-timer.max-pending-timeouts}
 * is reached) throws {@link org.springframework.core.task.TaskRejectedException} in the caller's
 * thread, naming the timer and the reason, for future-returning methods too.
 * </ul>
 *
 * <h2>Limits</h2>
 * Like every annotation that Spring applies through a proxy, this one only takes effect when the
 * method is called through the bean's proxy: a call from inside the same bean
 * ({@code this.cancelIfUnpaid(id)}) runs at once; startup logs a WARN for each method its own
 * bean calls so. Inject the bean (lazily: {@code ObjectProvider}), or split the method into another
 * bean. The annotation must be on the implementation method; on an interface method, or on a
 * superclass method overridden without it, it fails startup. The bean's class must not be final.
 * Other advice on the method, {@code @Validated} constraints included, applies when the call runs.
 * Delayed calls are held in memory unless {@link #durable()}: calls still pending when the
 * application stops do not run; they are logged at WARN and their futures are cancelled. An
 * application without a web server needs {@code spring.main.keep-alive=true} to run them at all.
 *
 * <h2>Durable calls</h2>
 * With {@code durable = true} a call is a row in the application's database before the call
 * returns, and runs once its delay has passed even if the application was restarted, redeployed or
 * killed in between, on whichever instance sharing the database is alive. A call due within
 * {@code wheel-timer.durable.horizon} goes on this instance's wheel at once and fires on its tick;
 * a later one waits only in the database and moves onto a wheel ahead of its due time. The
 * differences from in-memory calls:
 * <ul>
 * <li>The arguments are captured <em>by value</em>, as JSON through the application's Jackson
 * mapper, and read back with the method's declared parameter types when the call runs. Startup
 * fails for a parameter type that would not come back as it was written; a call whose argument
 * would lose data (a subclass with more properties than the declared type) fails in the caller's
 * thread.
 * <li>In a Spring transaction on the same {@code DataSource} the row is written in it: rolled
 * back, the call never happens; the wheel gets it only after the commit.
 * <li>At least once: a call that was <em>running</em> when its instance died runs again
 * ({@link io.github.wheeltimer.durable.DurableCalls#currentAttempt()} tells the method which
 * attempt it is). A call that had not started runs exactly once. When the method is itself
 * {@code @Transactional} on the same {@code DataSource}, the row is finished in that transaction,
 * so its database effects happen once.
 * <li>{@link #key()} names the pending call, to replace it by calling again or to cancel it with
 * {@link io.github.wheeltimer.durable.DurableCalls#cancel(String, Object)} from any instance.
 * <li>A returned future completes only if the call runs in this JVM: the row, not the future, is
 * the truth.
 * <li>A method that throws keeps its row, marked failed with the exception's message, for an
 * operator to see ({@code wheel-timer.durable.failed-retention}).
 * <li>Calls still held when the application stops are handed back to the database, not lost.
 * </ul>
 *
 * @see DelayedExecutionExceptionHandler
 * @see DelayedExecutionBeanPostProcessor
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DelayedExecution {

	/**
	 * The delay in {@link #timeUnit()}, zero or more. {@code -1} (the default) means "not set":
	 * then {@link #delayString()} must be given.
	 * @return the delay
	 */
	long delay() default -1;

	/**
	 * The delay as a string, resolved once at startup. Accepts a plain number in
	 * {@link #timeUnit()} ({@code "1500"}), the simple form ({@code "500ms"}, {@code "10s"},
	 * {@code "30m"}, {@code "2h"}, {@code "1d"}), ISO-8601 ({@code "PT30S"}),
	 * {@code ${...}} placeholders ({@code "${orders.payment-timeout:30m}"}) and {@code #{...}} SpEL
	 * expressions that give one of those.
	 * @return the delay string, or empty to use {@link #delay()}
	 */
	String delayString() default "";

	/**
	 * The unit of {@link #delay()}, and of {@link #delayString()} when it is a plain number.
	 * @return the time unit, milliseconds by default
	 */
	TimeUnit timeUnit() default TimeUnit.MILLISECONDS;

	/**
	 * The bean name of the {@link io.github.wheeltimer.Timer Timer} that holds the delayed calls,
	 * such as a timer of {@code wheel-timer.timers}. Empty (the default) means the application's
	 * only timer, else its {@code @Primary} one, else the auto-configured {@code wheelTimer}.
	 * @return the timer's bean name
	 */
	String timer() default "";

	/**
	 * Whether calls are kept in the application's database (see "Durable calls" above) rather
	 * than only in memory. Needs a {@code DataSource} ({@code spring-boot-starter-jdbc}) and
	 * Jackson; startup fails, naming the method, without them.
	 * @return {@code true} for durable calls
	 */
	boolean durable() default false;

	/**
	 * The stable id of a durable method, stored with each of its calls so that another instance,
	 * or this one after a deploy, knows what to run. Keep it when you rename the class or the
	 * method. Empty (the default) means the class's simple name and the method's name, such as
	 * {@code PaymentTimeouts.cancelIfUnpaid}. Two durable methods with the same id fail startup.
	 * Only for durable methods.
	 * @return the method id
	 */
	String id() default "";

	/**
	 * A SpEL expression over the method's parameters ({@code "#orderId"}, {@code "#order.id"},
	 * {@code "#p0"}) naming the pending call, as {@code @Cacheable(key = ...)} does. A call with
	 * the key of a pending call of the same method replaces it (its arguments and due time), and
	 * {@link io.github.wheeltimer.durable.DurableCalls#cancel(String, Object)} cancels it by key.
	 * The value is stored as its {@code toString()}, at most 500 characters; a key that evaluates
	 * to {@code null}, or to a longer value, fails the call, and one that names a variable the
	 * method does not have fails startup. Empty (the default): every call is its own, so a call
	 * made twice (a retried request) runs twice and cannot be cancelled by key: give a key whenever
	 * that may happen. Only for durable methods.
	 * @return the key expression
	 */
	String key() default "";

}
