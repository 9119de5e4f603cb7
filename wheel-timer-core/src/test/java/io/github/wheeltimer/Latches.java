package io.github.wheeltimer;

import java.util.concurrent.CountDownLatch;

/**
 * The starting gate of the multi-threaded tests.
 */
final class Latches {

	private Latches() {
	}

	/** Waits for the gate to open; an interrupt ends the wait and stays set. */
	static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
