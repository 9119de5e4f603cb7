package io.github.wheeltimer.observation;

import java.time.Duration;

import io.github.wheeltimer.annotation.DelayedCallOutcome;
import io.github.wheeltimer.annotation.DelayedMethod;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * What the observation of one delayed call knows, for a {@link DelayedCallObservationConvention}
 * to name and tag: the method, its timer, how late it ran, and how it ended.
 * <p>
 * An observation of a call that ran starts right before its method and stops when the method
 * returns (or its future completes); a call that never ran (cancelled, unprocessed) is observed
 * once, when that happened. The wait itself is not part of the observation: it is
 * {@link #getMethod() the method's} delay plus {@link #getLateness() the lateness}.
 */
public final class DelayedCallObservationContext extends Observation.Context {

	private final DelayedMethod method;

	private final @Nullable Duration lateness;

	private final int attempt;

	private final @Nullable String callId;

	private final @Nullable String traceParent;

	private DelayedCallOutcome outcome;

	/**
	 * Creates the context of a call.
	 * @param method the method
	 * @param lateness how long after its due time the call was handed to its executor, or
	 * {@code null} for a call that never ran
	 * @param callId a durable call's id, or {@code null}
	 * @param traceParent the W3C {@code traceparent} of the span that made a durable call, or {@code null}
	 * @param outcome how the call ended, as far as known when the observation starts
	 */
	public DelayedCallObservationContext(DelayedMethod method, @Nullable Duration lateness, @Nullable String callId,
			@Nullable String traceParent, DelayedCallOutcome outcome) {
		this(method, lateness, 1, callId, traceParent, outcome);
	}

	/**
	 * Creates the context of one attempt of a call.
	 * @param method the method
	 * @param lateness how long after its due time the attempt was handed to its executor, or
	 * {@code null} for a call that never ran
	 * @param attempt the attempt, from 1: more for a {@code @Retryable} retry, or a durable call's
	 * run after a crash; each attempt is an observation of its own
	 * @param callId a durable call's id, or {@code null}
	 * @param traceParent the W3C {@code traceparent} of the span that made a durable call, or {@code null}
	 * @param outcome how the call ended, as far as known when the observation starts
	 */
	public DelayedCallObservationContext(DelayedMethod method, @Nullable Duration lateness, int attempt,
			@Nullable String callId, @Nullable String traceParent, DelayedCallOutcome outcome) {
		this.method = method;
		this.lateness = lateness;
		this.attempt = attempt;
		this.callId = callId;
		this.traceParent = traceParent;
		this.outcome = outcome;
	}

	/**
	 * Returns the delayed method.
	 * @return the method
	 */
	public DelayedMethod getMethod() {
		return this.method;
	}

	/**
	 * Returns the bean name of the timer that held the call.
	 * @return the timer's bean name
	 */
	public String getTimerName() {
		return this.method.timerBeanName();
	}

	/**
	 * Returns whether the call is durable.
	 * @return {@code true} for a durable call
	 */
	public boolean isDurable() {
		return this.method.isDurable();
	}

	/**
	 * Returns how long after its due time the call was handed to its executor.
	 * @return the lateness, or {@code null} for a call that never ran
	 */
	public @Nullable Duration getLateness() {
		return this.lateness;
	}

	/**
	 * Returns the attempt this observation is of.
	 * @return the attempt, from 1
	 */
	public int getAttempt() {
		return this.attempt;
	}

	/**
	 * Returns a durable call's id, the primary key of its row.
	 * @return the id, or {@code null} for an in-memory call
	 */
	public @Nullable String getCallId() {
		return this.callId;
	}

	/**
	 * Returns the W3C {@code traceparent} of the span that made a durable call, stored with the call;
	 * with Micrometer Tracing, the call's span links to it.
	 * @return the {@code traceparent}, or {@code null}
	 */
	public @Nullable String getTraceParent() {
		return this.traceParent;
	}

	/**
	 * Returns how the call ended; {@link DelayedCallOutcome#RAN} while it runs.
	 * @return the outcome
	 */
	public DelayedCallOutcome getOutcome() {
		return this.outcome;
	}

	void setOutcome(DelayedCallOutcome outcome) {
		this.outcome = outcome;
	}

}
