package io.github.wheeltimer.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observation of delayed calls, as documented: its name, and the keys its default convention
 * sets.
 */
public enum DelayedCallObservationDocumentation implements ObservationDocumentation {

	/**
	 * One delayed call: its run, or the moment it was cancelled or left unprocessed.
	 */
	DELAYED_CALL {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultDelayedCallObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return LowCardinalityKeyNames.values();
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return HighCardinalityKeyNames.values();
		}

	};

	/**
	 * Keys on the observation's metrics and its span.
	 */
	public enum LowCardinalityKeyNames implements KeyName {

		/** Bean name of the timer that held the call. */
		TIMER {
			@Override
			public String asString() {
				return "timer";
			}
		},

		/** Name of the class that declares the method. */
		CODE_NAMESPACE {
			@Override
			public String asString() {
				return "code.namespace";
			}
		},

		/** Name of the method. */
		CODE_FUNCTION {
			@Override
			public String asString() {
				return "code.function";
			}
		},

		/** How the call ended: {@code ran}, {@code failed}, {@code cancelled} or {@code unprocessed}. */
		OUTCOME {
			@Override
			public String asString() {
				return "outcome";
			}
		},

		/** Simple class name of what the call failed with, {@code none} if it did not. */
		EXCEPTION {
			@Override
			public String asString() {
				return "exception";
			}
		},

		/** Whether the call is durable: {@code true} or {@code false}. */
		DURABLE {
			@Override
			public String asString() {
				return "durable";
			}
		}

	}

	/**
	 * Keys on the observation's span only.
	 */
	public enum HighCardinalityKeyNames implements KeyName {

		/**
		 * How long after its due time the call was handed to its executor, as an ISO-8601 duration
		 * ({@code PT0.012S}); absent for a call that never ran.
		 */
		LATENESS {
			@Override
			public String asString() {
				return "wheel.timer.lateness";
			}
		},

		/**
		 * The attempt the run is, from 1: more for a {@code @Retryable} retry or a durable call's
		 * run after a crash; absent for a call that never ran.
		 */
		ATTEMPT {
			@Override
			public String asString() {
				return "wheel.timer.attempt";
			}
		},

		/** A durable call's id, the primary key of its row; absent for an in-memory call. */
		CALL_ID {
			@Override
			public String asString() {
				return "wheel.timer.call.id";
			}
		}

	}

}
