package io.github.wheeltimer.benchmarks;

/**
 * One peer's figure for one row of the table.
 *
 * @param value the figure the ratio ours/peer is taken on, in the row's unit
 * @param text how the table shows it, such as {@code "35.2 ns"} or {@code "1.0/1.9/4.2 ms, 0 % early"}
 */
record Measurement(double value, String text) {

	static Measurement of(double value, String format) {
		return new Measurement(value, String.format(java.util.Locale.ROOT, format, value));
	}

}
