package io.github.wheeltimer.actuate;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

/**
 * How the endpoint and the health details write durations.
 */
final class DurationFormat {

	private DurationFormat() {
	}

	/**
	 * Writes a duration as ISO-8601 to the millisecond, such as {@code PT0.1S}: no tick is shorter
	 * than a millisecond, so finer digits are noise.
	 */
	static String iso(Duration duration) {
		return duration.truncatedTo(ChronoUnit.MILLIS).toString();
	}

}
