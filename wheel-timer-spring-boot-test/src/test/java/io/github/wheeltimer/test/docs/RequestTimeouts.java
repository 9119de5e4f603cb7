package io.github.wheeltimer.test.docs;

import java.util.concurrent.CompletableFuture;

import io.github.wheeltimer.annotation.DelayedExecution;

import static java.util.concurrent.TimeUnit.SECONDS;

/**
 * {@code docs/annotation.md}, "Several timers": a delayed method on the timer named
 * {@code requests}. Compiled, not run.
 */
class RequestTimeouts {

	// example: start
	@DelayedExecution(delay = 5, timeUnit = SECONDS, timer = "requests")
	public CompletableFuture<Void> timeOut(String requestId) {
		return CompletableFuture.completedFuture(null);
	}
	// example: end

}
