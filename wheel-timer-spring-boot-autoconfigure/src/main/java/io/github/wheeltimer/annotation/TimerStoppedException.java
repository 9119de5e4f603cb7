package io.github.wheeltimer.annotation;

import org.jspecify.annotations.Nullable;

import org.springframework.core.task.TaskRejectedException;

/**
 * A delayed call refused because its timer has been stopped: the application is shutting down, or
 * someone stopped the timer through the endpoint. Callers see a {@link TaskRejectedException}.
 */
final class TimerStoppedException extends TaskRejectedException {

	private static final long serialVersionUID = 1L;

	/** How deep to look: user code may have wrapped it, and a chain of causes may loop. */
	private static final int MAX_DEPTH = 16;

	TimerStoppedException(String message, Throwable cause) {
		super(message, cause);
	}

	/** Finds one in a chain of causes. */
	static @Nullable TimerStoppedException find(Throwable ex) {
		Throwable cause = ex;
		for (int depth = 0; cause != null && depth < MAX_DEPTH; depth++) {
			if (cause instanceof TimerStoppedException stopped) {
				return stopped;
			}
			cause = cause.getCause();
		}
		return null;
	}

}
