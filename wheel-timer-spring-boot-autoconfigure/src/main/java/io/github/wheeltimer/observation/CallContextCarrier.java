package io.github.wheeltimer.observation;

import java.util.Map;

import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;
import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;

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

	CallContextCarrier(boolean mdc, boolean snapshots) {
		this.mdc = mdc;
		this.snapshots = snapshots ? new Snapshots() : null;
	}

	/**
	 * On the caller's thread. Allocates nothing when the caller has nothing to carry, which is
	 * what keeps the cost of a call flat for applications that do not use any of it.
	 * @param observation the caller's current observation, carried as the call's parent
	 * @return what to carry, or {@code null} if there is nothing
	 */
	@Nullable Carried capture(@Nullable Object observation) {
		Map<String, String> mdc = this.mdc ? Mdc.capture() : null;
		Object snapshot = (this.snapshots != null) ? this.snapshots.capture() : null;
		return (mdc == null && snapshot == null && observation == null) ? null
				: new Carried(mdc, snapshot, observation);
	}

	/**
	 * On the running thread: puts the carried thread locals in place, remembering what they
	 * replace in {@code run}.
	 */
	void restore(@Nullable Carried carried, CarriedRun run) {
		if (this.mdc) {
			run.previousMdc = Mdc.replace((carried != null) ? carried.mdc : null);
			run.mdcReplaced = true;
		}
		if (carried != null && carried.snapshot != null) {
			run.snapshotScope = Snapshots.restore(carried.snapshot);
		}
	}

	/** What one call carries; immutable, published by the timer's and the executor's queues. */
	static final class Carried {

		final @Nullable Map<String, String> mdc;

		/** A {@code ContextSnapshot}. */
		final @Nullable Object snapshot;

		/** The caller's {@code Observation}. */
		final @Nullable Object observation;

		Carried(@Nullable Map<String, String> mdc, @Nullable Object snapshot, @Nullable Object observation) {
			this.mdc = mdc;
			this.snapshot = snapshot;
			this.observation = observation;
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

		static @Nullable Map<String, String> capture() {
			Map<String, String> copy = MDC.getCopyOfContextMap();
			return (copy == null || copy.isEmpty()) ? null : copy;
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

	/** Names context-propagation's types, loaded only when it is on the class path. */
	private static final class Snapshots {

		private final ContextSnapshotFactory factory = ContextSnapshotFactory.builder().build();

		@Nullable Object capture() {
			ContextSnapshot snapshot = this.factory.captureAll();
			// The factory answers a thread with nothing to capture with a shared empty snapshot.
			return (snapshot instanceof Map<?, ?> values && values.isEmpty()) ? null : snapshot;
		}

		static Object restore(Object snapshot) {
			return ((ContextSnapshot) snapshot).setThreadLocals();
		}

		static void close(Object scope) {
			((ContextSnapshot.Scope) scope).close();
		}

	}

}
