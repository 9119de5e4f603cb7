package io.github.wheeltimer;

/**
 * Another ticker's clock and parking, until a test breaks it: then the worker meets an
 * {@link IllegalStateException} ("clock broke") where the test chose, and the timer ends as a
 * timer whose worker died.
 */
final class BreakableTicker implements Ticker {

	private final Ticker ticker;

	private volatile boolean parksBroken;

	private volatile Thread readingBrokenOutside;

	private volatile boolean parked;

	BreakableTicker(Ticker ticker) {
		this.ticker = ticker;
	}

	/** Every park from now on throws. */
	void breakParks() {
		this.parksBroken = true;
	}

	/** The next clock reading by a thread other than {@code spared} (the test's own, say) throws. */
	synchronized void breakNextReadingOutside(Thread spared) {
		this.readingBrokenOutside = spared;
	}

	/** Whether a thread has parked on this ticker. */
	boolean hasParked() {
		return this.parked;
	}

	@Override
	public long nanoTime() {
		Thread spared = this.readingBrokenOutside;
		if (spared != null && Thread.currentThread() != spared && takeBrokenReading(spared)) {
			throw new IllegalStateException("clock broke");
		}
		return this.ticker.nanoTime();
	}

	/** Once only: the reading that throws is the first one after the break. */
	private synchronized boolean takeBrokenReading(Thread spared) {
		if (this.readingBrokenOutside != spared) {
			return false;
		}
		this.readingBrokenOutside = null;
		return true;
	}

	@Override
	public void park(long nanos) {
		if (this.parksBroken) {
			throw new IllegalStateException("clock broke");
		}
		this.parked = true;
		this.ticker.park(nanos);
	}

	@Override
	public void unpark(Thread thread) {
		this.ticker.unpark(thread);
	}

}
