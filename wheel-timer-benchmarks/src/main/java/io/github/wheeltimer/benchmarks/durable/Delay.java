package io.github.wheeltimer.benchmarks.durable;

import java.time.Duration;
import java.util.List;

/**
 * The delays calls are made with. Ours fixes the delay per method, so each delay is a method of
 * its own there; db-scheduler is given the same durations.
 */
enum Delay {

	HALF_SECOND(Duration.ofMillis(500)),

	ONE_SECOND(Duration.ofSeconds(1)),

	TWO_SECONDS(Duration.ofSeconds(2)),

	FIVE_SECONDS(Duration.ofSeconds(5)),

	TEN_SECONDS(Duration.ofSeconds(10)),

	TWENTY_SECONDS(Duration.ofSeconds(20)),

	/** For the scheduling cost: nothing falls due while it is measured. */
	ONE_HOUR(Duration.ofHours(1));

	/** The delays of the lateness row, 0.5 to 20 s. */
	static final List<Delay> SPREAD = List.of(HALF_SECOND, ONE_SECOND, TWO_SECONDS, FIVE_SECONDS, TEN_SECONDS,
			TWENTY_SECONDS);

	private final Duration duration;

	Delay(Duration duration) {
		this.duration = duration;
	}

	Duration duration() {
		return this.duration;
	}

	long micros() {
		return this.duration.toNanos() / 1_000;
	}

}
