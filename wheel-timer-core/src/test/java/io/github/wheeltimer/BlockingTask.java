package io.github.wheeltimer;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A task that holds the thread running it (the worker, when the timer has no executor) until
 * the test releases it: the way to make a worker busy on purpose.
 */
final class BlockingTask implements TimerTask {

	private final CountDownLatch running = new CountDownLatch(1);

	private final CountDownLatch release = new CountDownLatch(1);

	@Override
	public void run(Timeout timeout) {
		this.running.countDown();
		Latches.awaitQuietly(this.release);
	}

	/** Waits (bounded) until the task runs and holds its thread. */
	void awaitRunning() throws InterruptedException {
		assertThat(this.running.await(10, TimeUnit.SECONDS)).as("the blocking task runs").isTrue();
	}

	void release() {
		this.release.countDown();
	}

}
