package io.github.wheeltimer.benchmarks.durable;

import java.util.concurrent.atomic.LongAdder;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import org.slf4j.Marker;

/**
 * Leaves out of the log the lines about row F1's planned failures ({@link RetriedCalls.PlannedFailure}):
 * each system logs every failed run, ours a warning, db-scheduler a warning with the stack trace,
 * 20,000 of each in a full pass, which would bury the harness's own lines and spend on writing them
 * the cores the database is measured on. Both still build their messages; only the writing is
 * saved, for both alike. Every other line, every other failure of theirs, is written as before.
 * Configured in {@code logback.xml}; the harness reports how many lines it left out.
 */
public final class PlannedFailureFilter extends TurboFilter {

	private static final LongAdder leftOut = new LongAdder();

	private static final String NAME = RetriedCalls.PlannedFailure.class.getName();

	@Override
	public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params,
			Throwable failure) {
		if (failure instanceof RetriedCalls.PlannedFailure || (format != null && format.contains(NAME))
				|| lastIsPlanned(params)) {
			leftOut.increment();
			return FilterReply.DENY;
		}
		return FilterReply.NEUTRAL;
	}

	/** SLF4J's callers pass the exception as the last argument. */
	private static boolean lastIsPlanned(Object[] params) {
		return params != null && params.length > 0 && params[params.length - 1] instanceof RetriedCalls.PlannedFailure;
	}

	/** @return the lines left out so far */
	static long leftOut() {
		return leftOut.sum();
	}

}
