package io.github.wheeltimer;

import java.util.concurrent.locks.LockSupport;

/**
 * The real clock: {@link System#nanoTime()} and {@link LockSupport}.
 */
enum SystemTicker implements Ticker {

	INSTANCE;

	@Override
	public long nanoTime() {
		return System.nanoTime();
	}

	@Override
	public void park(long nanos) {
		if (nanos > 0) {
			LockSupport.parkNanos(this, nanos);
		}
	}

	@Override
	public void unpark(Thread thread) {
		if (thread != null) {
			LockSupport.unpark(thread);
		}
	}

}
