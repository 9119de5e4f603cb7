package io.github.wheeltimer.observation;

import java.util.List;
import java.util.Map;

import ch.qos.logback.classic.util.LogbackMDCAdapter;
import io.github.wheeltimer.annotation.DelayedCallObserver;
import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;
import io.micrometer.context.ThreadLocalAccessor;
import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;

import org.springframework.util.ClassUtils;

/**
 * Takes the caller's thread locals along with a delayed call and puts them back around its run:
 * SLF4J's MDC (a copy of the whole map), and context-propagation's snapshot of every registered
 * {@code ThreadLocalAccessor} (the current observation, and whatever the application registered).
 * <p>
 * Each part is used only when its library is on the class path: the auto-configuration checks
 * and says so; the classes of a missing library are never loaded, as only the nested holders
 * name them. Stateless apart from the snapshot factory; any thread.
 */
final class CallContextCarrier {

	private final boolean mdc;

	private final @Nullable Snapshots snapshots;

	/**
	 * @param mdc whether SLF4J is on the class path
	 * @param snapshots whether context-propagation is on the class path
	 * @param withObservation whether the snapshot takes the current observation too; not when the
	 * caller's observation is carried on its own, as the parent of the call's
	 */
	CallContextCarrier(boolean mdc, boolean snapshots, boolean withObservation) {
		this.mdc = mdc;
		this.snapshots = snapshots ? new Snapshots(withObservation) : null;
	}

	/**
	 * On the caller's thread.
	 * @return the caller's MDC, not to be changed, or {@code null} if it is empty or SLF4J is absent
	 */
	@Nullable Map<String, String> mdc() {
		return this.mdc ? Mdc.capture() : null;
	}

	/**
	 * On the caller's thread. Allocates nothing when no accessor has a value, which, with
	 * {@link #mdc()}, lets an observer keep the cost of a call flat for applications that carry
	 * nothing.
	 * @return a {@code ContextSnapshot}, or {@code null} if there is nothing to take
	 */
	@Nullable Object snapshot() {
		return (this.snapshots != null) ? this.snapshots.capture() : null;
	}

	/**
	 * On the running thread: puts the carried thread locals in place (an empty MDC if none was
	 * carried), remembering what they replace in {@code run}.
	 */
	void restore(Carried carried, CarriedRun run) {
		if (this.mdc) {
			run.previousMdc = Mdc.replace(carried.mdc);
			run.mdcReplaced = true;
		}
		if (carried.snapshot != null) {
			run.snapshotScope = Snapshots.restore(carried.snapshot);
		}
	}

	/**
	 * The thread locals one call carries, as each observer's {@link DelayedCallObserver.CallerContext}
	 * keeps them. Immutable, published by the timer's and the executor's queues.
	 */
	abstract static class Carried implements DelayedCallObserver.CallerContext {

		final @Nullable Map<String, String> mdc;

		/** A {@code ContextSnapshot}. */
		final @Nullable Object snapshot;

		Carried(@Nullable Map<String, String> mdc, @Nullable Object snapshot) {
			this.mdc = mdc;
			this.snapshot = snapshot;
		}

	}

	/**
	 * A run whose thread locals were replaced; {@link #leave()} puts the thread's own back, in the
	 * reverse order, on the running thread.
	 */
	static class CarriedRun implements DelayedCallObserver.Run {

		@Nullable Map<String, String> previousMdc;

		boolean mdcReplaced;

		/** A {@code ContextSnapshot.Scope}. */
		@Nullable Object snapshotScope;

		@Override
		public void leave() {
			if (this.snapshotScope != null) {
				Snapshots.close(this.snapshotScope);
			}
			if (this.mdcReplaced) {
				// Whatever the method put there goes too: the thread's next task starts clean.
				Mdc.replace(this.previousMdc);
			}
		}

		@Override
		public void stop(@Nullable Throwable failure) {
		}

	}

	/** Names SLF4J's types, loaded only when SLF4J is on the class path. */
	private static final class Mdc {

		private static final boolean LOGBACK = ClassUtils.isPresent("ch.qos.logback.classic.util.LogbackMDCAdapter",
				Mdc.class.getClassLoader());

		static @Nullable Map<String, String> capture() {
			Map<String, String> map = LOGBACK ? LogbackMdc.readOnly() : MDC.getCopyOfContextMap();
			return (map == null || map.isEmpty()) ? null : map;
		}

		/** @return the map it replaced, {@code null} if it was empty */
		static @Nullable Map<String, String> replace(@Nullable Map<String, String> map) {
			Map<String, String> previous = capture();
			if (map != null) {
				MDC.setContextMap(map);
			}
			else if (previous != null) {
				MDC.clear();
			}
			return previous;
		}

	}

	/** Names Logback's types, loaded only when Logback is on the class path. */
	private static final class LogbackMdc {

		/**
		 * Logback keeps a read-only copy of each thread's MDC until the next change, and replaces it
		 * rather than changing it: the caller's call keeps that copy instead of making one more.
		 */
		static @Nullable Map<String, String> readOnly() {
			return (MDC.getMDCAdapter() instanceof LogbackMDCAdapter logback) ? logback.getPropertyMap()
					: MDC.getCopyOfContextMap();
		}

	}

	/** Names context-propagation's types, loaded only when it is on the class path. */
	private static final class Snapshots {

		/** {@code ObservationThreadLocalAccessor.KEY}, named here so that Micrometer's observation stays optional. */
		private static final String OBSERVATION_KEY = "micrometer.observation";

		private final ContextRegistry registry = ContextRegistry.getInstance();

		private final boolean withObservation;

		private final ContextSnapshotFactory factory;

		Snapshots(boolean withObservation) {
			this.withObservation = withObservation;
			this.factory = ContextSnapshotFactory.builder()
				.captureKeyPredicate((key) -> withObservation || !OBSERVATION_KEY.equals(key))
				.build();
		}

		/**
		 * Looks at the accessors' values before asking the factory, which allocates even for a
		 * thread with nothing to capture: a call outside any request then costs a few reads.
		 */
		@Nullable Object capture() {
			List<ThreadLocalAccessor<?>> accessors = this.registry.getThreadLocalAccessors();
			for (int i = 0, n = accessors.size(); i < n; i++) {
				ThreadLocalAccessor<?> accessor = accessors.get(i);
				if ((this.withObservation || !OBSERVATION_KEY.equals(accessor.key())) && accessor.getValue() != null) {
					return this.factory.captureAll();
				}
			}
			return null;
		}

		static Object restore(Object snapshot) {
			return ((ContextSnapshot) snapshot).setThreadLocals();
		}

		static void close(Object scope) {
			((ContextSnapshot.Scope) scope).close();
		}

	}

}
