package io.github.wheeltimer.observation;

import java.util.function.Supplier;

import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import org.jspecify.annotations.Nullable;

/**
 * Writes the current span as a W3C {@code traceparent} ({@code 00-<trace id>-<span id>-<flags>}),
 * which a durable call stores with its row, and reads one back as a trace context to link to,
 * on whichever instance the call runs. Created by the auto-configuration when the application has
 * a Micrometer Tracing {@link Tracer}.
 */
public final class TraceParents implements Supplier<@Nullable String> {

	private static final String VERSION = "00";

	private final Tracer tracer;

	/**
	 * Creates the codec.
	 * @param tracer the application's tracer
	 */
	public TraceParents(Tracer tracer) {
		this.tracer = tracer;
	}

	/**
	 * Returns the current span as a {@code traceparent}.
	 * @return the {@code traceparent}, or {@code null} if there is no current span
	 */
	@Override
	public @Nullable String get() {
		Span span = this.tracer.currentSpan();
		if (span == null || span.isNoop()) {
			return null;
		}
		TraceContext context = span.context();
		// A 64-bit trace id (B3) is the low half of a W3C one; ids come zero-padded to their width.
		String traceId = padded(context.traceId(), 32);
		String spanId = padded(context.spanId(), 16);
		if (traceId == null || spanId == null) {
			return null;
		}
		return VERSION + "-" + traceId + "-" + spanId + "-" + (Boolean.TRUE.equals(context.sampled()) ? "01" : "00");
	}

	/** @return the id as {@code width} lower-case hex digits, or {@code null} if it is not hex or too long */
	private static @Nullable String padded(String id, int width) {
		if (id.isEmpty() || id.length() > width || !isHex(id, id.length())) {
			return null;
		}
		return "0".repeat(width - id.length()) + id.toLowerCase(java.util.Locale.ROOT);
	}

	/**
	 * Reads a {@code traceparent} back.
	 * @param traceParent as {@link #get()} wrote it
	 * @return its trace context, or {@code null} if it is not a version-00 {@code traceparent}
	 */
	@Nullable TraceContext read(String traceParent) {
		String[] parts = traceParent.split("-");
		if (parts.length != 4 || !VERSION.equals(parts[0]) || !isHex(parts[1], 32) || !isHex(parts[2], 16)
				|| !isHex(parts[3], 2)) {
			return null;
		}
		boolean sampled = (Integer.parseInt(parts[3], 16) & 1) == 1;
		return this.tracer.traceContextBuilder().traceId(parts[1]).spanId(parts[2]).sampled(sampled).build();
	}

	private static boolean isHex(String text, int length) {
		if (text.length() != length) {
			return false;
		}
		for (int i = 0; i < length; i++) {
			if (Character.digit(text.charAt(i), 16) < 0) {
				return false;
			}
		}
		return true;
	}

}
