package io.github.wheeltimer.benchmarks;

import java.util.Map;

/**
 * A row measured by a plain harness rather than JMH: lateness, wake-ups, CPU, memory, expiry.
 * Each call measures every peer the row applies to, one after another, in this JVM.
 */
interface PlainRow {

	/** The row's id in the table, such as {@code "L1"}. */
	String id();

	/** What the row measures, in a few words, for the table. */
	String title();

	/** Whether a smaller figure is better (for the ratio's reading). */
	default boolean lowerIsBetter() {
		return true;
	}

	Map<Peer, Measurement> measure(Mode mode) throws Exception;

}
