package io.github.wheeltimer.annotation;

import org.jspecify.annotations.Nullable;

/**
 * What a delayed call takes from its caller's thread to the thread that runs it, and the
 * observation of the call there. The starter's own: applications shape the observation with a
 * {@code io.github.wheeltimer.observation.DelayedCallObservationConvention} bean, and switch it
 * off with {@code management.observations.enable.wheel.timer=false}.
 * <p>
 * Its signatures name no Micrometer type, so that the call path loads without Micrometer: an
 * application without it gets {@link #NONE}, which carries and observes nothing.
 */
public interface DelayedCallObserver {

	/** Carries nothing and observes nothing. */
	DelayedCallObserver NONE = new DelayedCallObserver() {

		@Override
		public @Nullable Object capture() {
			return null;
		}

		@Override
		public Run start(DelayedMethod method, @Nullable Object carried, long latenessNanos, @Nullable String callId,
				@Nullable String traceParent) {
			return Run.NONE;
		}

		@Override
		public void ended(DelayedMethod method, @Nullable Object carried, DelayedCallOutcome outcome,
				@Nullable Throwable failure) {
		}

	};

	/**
	 * On the caller's thread, when the call is accepted: what it carries to where it runs.
	 * @return the caller's context, or {@code null} if it has none worth carrying
	 */
	@Nullable Object capture();

	/**
	 * Returns whether calls are observed, so that what only an observation reads (how late the
	 * timer fired) is measured only then.
	 * @return {@code true} if calls are observed
	 */
	default boolean observes() {
		return false;
	}

	/**
	 * On the caller's thread, when a durable call is written: its caller's trace, to store with it.
	 * @return the current span as a W3C {@code traceparent}, or {@code null} if there is none
	 */
	default @Nullable String traceParent() {
		return null;
	}

	/**
	 * On the thread that runs the call, right before its method: puts back what was carried,
	 * starts the call's observation and makes it current.
	 * @param method the method
	 * @param carried what {@link #capture()} returned, or {@code null}
	 * @param latenessNanos how long after its due time the call was handed to its executor
	 * @param callId a durable call's id, or {@code null}
	 * @param traceParent the {@code traceparent} a durable call was written with, or {@code null}
	 * @return the run, which must be {@link Run#leave() left} on this thread, in a {@code finally}
	 */
	Run start(DelayedMethod method, @Nullable Object carried, long latenessNanos, @Nullable String callId,
			@Nullable String traceParent);

	/**
	 * Observes a call that ended without running its method: cancelled, unprocessed, or failed to
	 * start. On the thread that found out.
	 * @param method the method
	 * @param carried what {@link #capture()} returned, or {@code null}
	 * @param outcome how it ended
	 * @param failure why it failed to start, or {@code null}
	 */
	void ended(DelayedMethod method, @Nullable Object carried, DelayedCallOutcome outcome,
			@Nullable Throwable failure);

	/**
	 * One run of a delayed method: {@link #leave()} on the running thread when the method returns,
	 * {@link #stop(Throwable)} once when its outcome is known (a returned future may complete later,
	 * on another thread).
	 */
	interface Run {

		/** Nothing to leave and nothing to stop. */
		Run NONE = new Run() {

			@Override
			public void leave() {
			}

			@Override
			public void stop(@Nullable Throwable failure) {
			}

		};

		/**
		 * On the running thread, after the method returned or threw: closes the observation's scope and
		 * gives the thread back its own context, so that nothing leaks to its next task.
		 */
		void leave();

		/**
		 * Stops the observation with the call's outcome.
		 * @param failure what the method threw or its future failed with, {@code null} if it ran
		 */
		void stop(@Nullable Throwable failure);

	}

}
