package io.github.wheeltimer;

import java.util.function.Consumer;

/**
 * A task that does nothing when it runs, and hands its timeout to {@code onCancelled} each time
 * the timer tells it the timeout was cancelled: how a test sees whether, and how often, it was told.
 */
record CancelWatchingTask(Consumer<Timeout> onCancelled) implements TimerTask {

	@Override
	public void run(Timeout timeout) {
	}

	@Override
	public void cancelled(Timeout timeout) {
		this.onCancelled.accept(timeout);
	}

}
