package io.github.wheeltimer.annotation;

import java.lang.reflect.Method;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.Advisor;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.config.AutowireCapableBeanFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.retry.RetryException;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.format.annotation.DurationFormat;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.resilience.annotation.RetryAnnotationBeanPostProcessor;
import org.springframework.resilience.annotation.Retryable;
import org.springframework.resilience.retry.MethodRetryEvent;
import org.springframework.resilience.retry.MethodRetryPredicate;
import org.springframework.resilience.retry.MethodRetrySpec;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;
import org.springframework.util.backoff.BackOffExecution;

/**
 * Spring Framework's {@link Retryable @Retryable} on a {@link DelayedExecution} method (or its
 * class), as the wheel honours it: a failed attempt ends, and the next one is a delayed call of
 * its own, on the method's timer (durable: a row waiting with its next due time), so that no
 * thread sleeps through a backoff and a durable call's retries survive a crash.
 * <p>
 * The attributes mean what Spring's reference says: they are read into Spring's own
 * {@link MethodRetrySpec} as {@code @EnableResilientMethods} reads them (the {@code *String}
 * forms resolved with {@code ${...}} and SpEL, {@code timeUnit} applied), and the
 * {@link RetryPolicy} is built from it as Spring's retry interceptor builds its own: which
 * exceptions are retried ({@code includes}, {@code excludes}, matched against the exception
 * and its causes, and the {@code predicate}), and the backoff, Spring's
 * {@code ExponentialBackOff} ({@code delay}, {@code jitter}, {@code multiplier},
 * {@code maxDelay}, {@code maxRetries}). The {@code timeout} bounds the time from the start of a
 * round's first attempt to the start of a retry, backoff included. Each failure is published as
 * a {@link MethodRetryEvent}, and the end of the retries as one with
 * {@link MethodRetryEvent#isRetryAborted()}, as Spring publishes them, so that existing listeners
 * keep working.
 * <p>
 * Exactly one policy applies: when the wheel retries a method, a run skips the interceptor that
 * {@code @EnableResilientMethods} puts on it, which would retry inside one run, on a sleeping
 * thread. Without {@code @EnableResilientMethods} the annotation is honoured all the same: whoever
 * wrote it on a delayed method wants its calls retried.
 * <p>
 * Immutable, resolved once at startup; shared by every call of its method, on any thread.
 */
public final class DelayedRetry {

	private static final Log logger = LogFactory.getLog(DelayedRetry.class);

	private static final String SPRING_RETRY_INTERCEPTOR = RetryAnnotationBeanPostProcessor.class.getName() + "$";

	private final Method method;

	private final MethodRetrySpec spec;

	private final RetryPolicy policy;

	private final @Nullable ApplicationEventPublisher events;

	private DelayedRetry(Method method, MethodRetrySpec spec, @Nullable ApplicationEventPublisher events) {
		this.method = method;
		this.spec = spec;
		// As Spring's retry interceptor builds its policy from the same spec.
		this.policy = RetryPolicy.builder()
			.includes(spec.includes())
			.excludes(spec.excludes())
			.predicate(spec.predicate().forMethod(method))
			.maxRetries(spec.maxRetries())
			.timeout(spec.timeout())
			.delay(spec.delay())
			.jitter(spec.jitter())
			.multiplier(spec.multiplier())
			.maxDelay(spec.maxDelay())
			.build();
		this.events = events;
	}

	/**
	 * Reads {@code @Retryable} from the method, else from its class, as
	 * {@code @EnableResilientMethods} does.
	 * @return the retry, or {@code null} if neither carries the annotation
	 * @throws InvalidDelayedExecutionException naming the attribute and its value if one is wrong
	 */
	static @Nullable DelayedRetry resolve(Method method, Class<?> targetClass, StringValueResolver values,
			AutowireCapableBeanFactory beanFactory, @Nullable ApplicationEventPublisher events) {
		Retryable retryable = AnnotatedElementUtils.findMergedAnnotation(method, Retryable.class);
		if (retryable == null) {
			retryable = AnnotatedElementUtils.findMergedAnnotation(targetClass, Retryable.class);
			if (retryable == null) {
				return null;
			}
		}
		Attributes attributes = new Attributes(method, retryable, values);
		MethodRetrySpec spec = new MethodRetrySpec(Arrays.asList(retryable.includes()),
				Arrays.asList(retryable.excludes()), predicate(method, retryable, beanFactory),
				attributes.whole("maxRetries", retryable.maxRetries(), retryable.maxRetriesString()),
				attributes.duration("timeout", retryable.timeout(), retryable.timeoutString()),
				attributes.duration("delay", retryable.delay(), retryable.delayString()),
				attributes.duration("jitter", retryable.jitter(), retryable.jitterString()),
				attributes.decimal("multiplier", retryable.multiplier(), retryable.multiplierString()),
				attributes.duration("maxDelay", retryable.maxDelay(), retryable.maxDelayString()));
		try {
			return new DelayedRetry(method, spec, events);
		}
		catch (IllegalArgumentException | IllegalStateException ex) {
			// Spring's own checks: a negative maxRetries, delay or jitter, a multiplier below 1, ...
			throw new InvalidDelayedExecutionException(method, "its @Retryable is not valid: " + ex.getMessage(), ex);
		}
	}

	private static MethodRetryPredicate predicate(Method method, Retryable retryable,
			AutowireCapableBeanFactory beanFactory) {
		Class<? extends MethodRetryPredicate> type = retryable.predicate();
		if (type == MethodRetryPredicate.class) {
			return (retried, failure) -> true;
		}
		try {
			// As Spring does: a bean of the application's, with its dependencies injected.
			return beanFactory.createBean(type);
		}
		catch (BeansException ex) {
			throw new InvalidDelayedExecutionException(method, "its @Retryable predicate " + type.getName()
					+ " cannot be created: " + ex.getMessage(), ex);
		}
	}

	/**
	 * Returns whether an advisor of a proxy is the retry interceptor of
	 * {@code @EnableResilientMethods}, which a delayed method's run leaves out: the wheel retries it.
	 * @param advisor an advisor of a proxy
	 * @return {@code true} for Spring's {@code @Retryable} interceptor
	 */
	public static boolean isSpringRetry(Advisor advisor) {
		return advisor.getAdvice().getClass().getName().startsWith(SPRING_RETRY_INTERCEPTOR);
	}

	/**
	 * Returns the retry specification, as Spring reads it from the annotation.
	 * @return the specification
	 */
	public MethodRetrySpec spec() {
		return this.spec;
	}

	/**
	 * Returns how many times a failed call is tried again, at most, in one round.
	 * @return {@code maxRetries}
	 */
	public long maxRetries() {
		return this.spec.maxRetries();
	}

	/**
	 * Decides what follows a failed attempt.
	 * @param failure what the attempt threw
	 * @param failures the failed attempts of this round, this one included (1 after the first)
	 * @param elapsed from the start of the round's first attempt until now
	 * @return the next attempt's delay, or why there is none
	 */
	public Next next(Throwable failure, long failures, Duration elapsed) {
		if (!this.policy.shouldRetry(failure)) {
			return Next.stop("its exception is not one @Retryable retries");
		}
		// Spring's backoff counts its own attempts: the n-th retry's delay is its n-th answer.
		BackOffExecution backOff = this.policy.getBackOff().start();
		long delayMillis = BackOffExecution.STOP;
		for (long n = 0; n < failures; n++) {
			delayMillis = backOff.nextBackOff();
			if (delayMillis == BackOffExecution.STOP) {
				return Next.stop("its retries are spent (maxRetries = " + this.spec.maxRetries() + ")");
			}
		}
		Duration timeout = this.policy.getTimeout();
		Duration delay = Duration.ofMillis(delayMillis);
		if (!timeout.isZero() && elapsed.plus(delay).compareTo(timeout) >= 0) {
			return Next.stop("the next try, " + delay.toMillis() + " ms from now, would pass its timeout of "
					+ timeout.toMillis() + " ms");
		}
		return new Next(delay, null);
	}

	/**
	 * Publishes a failed attempt as Spring's retry interceptor does, and, for the last one, the end
	 * of the retries: a {@link RetryException} whose cause is the last failure. A listener that
	 * throws is logged and changes nothing: the call still ends, or is retried, as decided.
	 * @param invocation the call, as listeners read it
	 * @param failure what the attempt threw
	 * @param stop why no attempt follows, or {@code null} if one does
	 */
	public void publish(MethodInvocation invocation, Throwable failure, @Nullable String stop) {
		publish(new MethodRetryEvent(invocation, failure, false));
		if (stop != null) {
			ended(invocation, failure, stop);
		}
	}

	/**
	 * Publishes the end of the retries of a call whose last failure was published already: the
	 * retry waiting for it will not run (its timer stopped, or its caller cancelled it).
	 * @param invocation the call, as listeners read it
	 * @param failure the last attempt's failure
	 * @param stop why no attempt follows
	 */
	public void ended(MethodInvocation invocation, Throwable failure, String stop) {
		publish(new MethodRetryEvent(invocation, new RetryException("Retry policy for delayed method "
				+ MethodNames.describe(this.method) + " ended, " + stop, failure), true));
	}

	private void publish(MethodRetryEvent event) {
		if (this.events == null) {
			return;
		}
		try {
			this.events.publishEvent(event);
		}
		catch (RuntimeException ex) {
			logger.warn("A listener of " + event + " failed; the retries of the call go on as decided", ex);
		}
	}

	@Override
	public String toString() {
		return "@Retryable(maxRetries = " + this.spec.maxRetries() + ", delay = " + this.spec.delay().toMillis()
				+ " ms, multiplier = " + this.spec.multiplier() + ")";
	}

	/**
	 * What follows a failed attempt.
	 *
	 * @param delay how long until the next attempt, or {@code null} if none follows
	 * @param stop why none follows, or {@code null} if one does
	 */
	public record Next(@Nullable Duration delay, @Nullable String stop) {

		static Next stop(String why) {
			return new Next(null, why);
		}

		/** @return whether another attempt follows */
		public boolean retries() {
			return this.delay != null;
		}

	}

	/** Reads the attributes' {@code *String} forms as Spring does, naming a bad one. */
	private record Attributes(Method method, Retryable retryable, StringValueResolver values) {

		long whole(String name, long value, String text) {
			return parsed(name, value, text, Long::parseLong, "is not a whole number");
		}

		double decimal(String name, double value, String text) {
			return parsed(name, value, text, Double::parseDouble, "is not a number");
		}

		private <T> T parsed(String name, T value, String text, Function<String, T> parser, String problem) {
			String resolved = resolved(name, text);
			if (resolved == null) {
				return value;
			}
			try {
				return parser.apply(resolved);
			}
			catch (NumberFormatException ex) {
				throw invalid(name, text, resolved, problem, ex);
			}
		}

		Duration duration(String name, long value, String text) {
			TimeUnit unit = this.retryable.timeUnit();
			String resolved = resolved(name, text);
			try {
				if (resolved == null) {
					return (value == Long.MAX_VALUE) ? Duration.ofMillis(Long.MAX_VALUE)
							: Duration.of(value, unit.toChronoUnit());
				}
				return DurationFormatterUtils.detectAndParse(resolved,
						DurationFormat.Unit.fromChronoUnit(unit.toChronoUnit()));
			}
			catch (IllegalArgumentException | DateTimeParseException | ArithmeticException ex) {
				throw invalid(name, text, resolved, "is not a duration; use a number of "
						+ unit.name().toLowerCase() + " (\"1500\"), a number with a unit (\"500ms\", \"10s\")"
						+ " or ISO-8601 (\"PT30S\")", ex);
			}
		}

		private @Nullable String resolved(String name, String text) {
			if (!StringUtils.hasText(text)) {
				return null;
			}
			String resolved;
			try {
				resolved = this.values.resolveStringValue(text);
			}
			catch (BeansException | IllegalArgumentException ex) {
				throw invalid(name, text, null, "cannot be resolved: " + ex.getMessage(), ex);
			}
			if (resolved != null && resolved.contains("${")) {
				throw invalid(name, text, resolved, "cannot be resolved: a placeholder names no property", null);
			}
			return StringUtils.hasText(resolved) ? resolved.trim() : null;
		}

		private InvalidDelayedExecutionException invalid(String name, String text, @Nullable String resolved,
				String problem, @Nullable Exception cause) {
			String shown = (resolved == null || resolved.equals(text)) ? "\"" + text + "\""
					: "\"" + text + "\" (resolved to \"" + resolved + "\")";
			String message = "its @Retryable " + name + "String " + shown + " " + problem;
			return (cause != null) ? new InvalidDelayedExecutionException(this.method, message, cause)
					: new InvalidDelayedExecutionException(this.method, message);
		}

	}

}
