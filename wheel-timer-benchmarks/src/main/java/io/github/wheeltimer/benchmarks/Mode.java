package io.github.wheeltimer.benchmarks;

/**
 * How long to measure: a quick pass of every row in a few minutes, or a full one for numbers worth
 * publishing.
 */
enum Mode {

	QUICK(1),

	FULL(4);

	private final int scale;

	Mode(int scale) {
		this.scale = scale;
	}

	/** Multiplies a quick-mode amount (a duration, a count of repetitions) for this mode. */
	int scale(int quickAmount) {
		return quickAmount * this.scale;
	}

}
