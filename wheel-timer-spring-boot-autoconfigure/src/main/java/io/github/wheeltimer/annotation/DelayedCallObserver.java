package io.github.wheeltimer.annotation;

import org.jspecify.annotations.Nullable;

/**
 * What a delayed call takes from its caller's thread to the thread that runs it, and the
 * observation of the call there. The starter's own: applications shape the observation with a
 * {@code io.github.wheeltimer.observation.DelayedCallObservationConvention} bean, and switch it
 * off with {@code management.observations.enable.wheel.timer=false}.
 * <p>
 * Threads, in the order a call meets them:
 * <ol>
 * <li>the caller's: {@link #capture()} when the call is accepted, which gives the call its
 * {@link CallerContext} (and {@link #traceParent()} when a durable call is written);</li>
 * <li>the executor's: {@link CallerContext#start} right before the method, and the returned
 * {@link Run#leave()} right after it, in a {@code finally};</li>
 * <li>whichever thread completes the method's future: {@link Run#stop(Throwable)};</li>
 * <li>for a call that never runs, the thread that learnt it (the canceller's, the timer's
 * stopper's): {@link CallerContext#ended}.</li>
 * </ol>
 * A thread with no caller behind it (a durable call read back from its row, a durable cancel)
 * uses {@link #none()} instead of a captured context.
 * <p>
 * Its signatures name no Micrometer type, so that the call path loads without Micrometer: an
 * application without it gets {@link #NONE}, which carries and observes nothing.
 */
public interface DelayedCallObserver {

	/**
	 * Carries nothing and observes nothing: {@link #capture()} and {@link #none()} return
	 * {@link CallerContext#NONE}.
	 */
	DelayedCallObserver NONE = new DelayedCallObserver() {

		@Override
		public CallerContext capture() {
			return CallerContext.NONE;
		}

		@Override
		public CallerContext none() {
			return CallerContext.NONE;
		}

	};

	/**
	 * On the caller's thread, when a call is accepted: what it takes from the caller to where it
	 * runs (its MDC, its thread locals, its current observation). Allocates nothing when the caller
	 * has nothing to carry: it then returns a shared constant.
	 * @return the caller's context; immutable, safe to hand to another thread
	 */
	CallerContext capture();

	/**
	 * For a thread that carries nothing from a caller: a durable call read back from its row, or a
	 * cancel observed on the canceller's thread. A shared constant.
	 * @return a context with nothing carried, which still observes if this observer does
	 */
	CallerContext none();

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
	 * What one call carries from its caller's thread: made there by {@link #capture()} (or taken
	 * from {@link #none()}), then used on whichever thread the call runs or ends on. Immutable.
	 */
	interface CallerContext {

		/** Nothing carried, nothing observed. */
		CallerContext NONE = new CallerContext() {

			@Override
			public Run start(DelayedMethod method, long latenessNanos, int attempt, @Nullable String callId,
					@Nullable String traceParent) {
				return Run.NONE;
			}

			@Override
			public void ended(DelayedMethod method, DelayedCallOutcome outcome, @Nullable Throwable failure) {
			}

		};

		/**
		 * On the thread that runs the call, right before its method: puts back what was carried,
		 * starts the call's observation (a child of the caller's, if one was carried) and makes it
		 * current.
		 * @param method the method
		 * @param latenessNanos how long after its due time the call was handed to its executor
		 * @param attempt the attempt this run is, from 1: more for a {@code @Retryable} retry, or a
		 * durable call's run after a crash
		 * @param callId a durable call's id, or {@code null}
		 * @param traceParent the {@code traceparent} a durable call was written with, or {@code null}
		 * @return the run, which must be {@link Run#leave() left} on this thread, in a {@code finally}
		 */
		Run start(DelayedMethod method, long latenessNanos, int attempt, @Nullable String callId,
				@Nullable String traceParent);

		/**
		 * Observes a call that ended without running its method: cancelled, unprocessed, or failed to
		 * start. On the thread that found out; puts back nothing on it.
		 * @param method the method
		 * @param outcome how it ended
		 * @param failure why it failed to start, or {@code null}
		 */
		void ended(DelayedMethod method, DelayedCallOutcome outcome, @Nullable Throwable failure);

	}

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
