package io.github.wheeltimer;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Nanosecond amounts: from a {@link Duration} without overflow, and human-readable for messages
 * and {@code toString()}.
 */
final class Durations {

	private Durations() {
	}

	/** "250ms", "3s", "1500us", "17ns": the largest unit that keeps the amount whole. */
	static String format(long nanos) {
		if (nanos == Long.MAX_VALUE) {
			return "forever";
		}
		if (nanos != 0 && nanos % TimeUnit.SECONDS.toNanos(1) == 0) {
			return (nanos / TimeUnit.SECONDS.toNanos(1)) + "s";
		}
		if (nanos != 0 && nanos % TimeUnit.MILLISECONDS.toNanos(1) == 0) {
			return (nanos / TimeUnit.MILLISECONDS.toNanos(1)) + "ms";
		}
		if (Math.abs(nanos) >= TimeUnit.MILLISECONDS.toNanos(1)) {
			return String.format(java.util.Locale.ROOT, "%.3fms", nanos / 1e6);
		}
		if (nanos != 0 && nanos % 1000 == 0) {
			return (nanos / 1000) + "us";
		}
		return nanos + "ns";
	}

	/** The duration in nanoseconds, {@link Long#MAX_VALUE} (or MIN) where it does not fit. */
	static long saturatedNanos(Duration duration) {
		try {
			return duration.toNanos();
		}
		catch (ArithmeticException overflow) {
			return duration.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
		}
	}

}
