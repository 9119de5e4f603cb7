package io.github.wheeltimer.durable.run;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

import io.github.wheeltimer.Ticker;

/**
 * The application's time as durable calls see it: the timers' clock (a test's virtual clock
 * too) as an instant, in the whole microseconds the database keeps. Immutable.
 */
public final class DurableClock {

	private final Ticker ticker;

	private final boolean system;

	/**
	 * The wall-clock reading that {@link #baseNanos} stands for; whole microseconds, so that a
	 * virtual clock's whole ticks stay whole.
	 */
	private final Instant base = Instant.now().truncatedTo(ChronoUnit.MICROS);

	private final long baseNanos;

	public DurableClock(Ticker ticker) {
		this.ticker = ticker;
		this.system = ticker == Ticker.system();
		this.baseNanos = ticker.nanoTime();
	}

	public Instant now() {
		return this.system ? Instant.now() : this.base.plusNanos(this.ticker.nanoTime() - this.baseNanos);
	}

	/** @return whether this is real time, not a test's virtual clock */
	public boolean system() {
		return this.system;
	}

	/**
	 * Rounds up to what the database keeps, so that the due time on the wheel is the one in the
	 * row and rounding never makes a call early.
	 */
	public static Instant wholeMicros(Instant instant) {
		Instant truncated = instant.truncatedTo(ChronoUnit.MICROS);
		return truncated.equals(instant) ? instant : truncated.plus(1, ChronoUnit.MICROS);
	}

}
