package io.github.wheeltimer.autoconfigure;

import java.util.Map;

/**
 * Tells whether the JVM is exiting because its last non-daemon thread ended: {@code main()}
 * returned and nothing kept the application running (no web server, no
 * {@code spring.main.keep-alive}), which a non-web application with delayed calls rarely means.
 * The JVM then runs its shutdown hooks from the thread that {@code DestroyJavaVM} names, inside
 * {@code java.lang.Shutdown.shutdown()}; an exit through {@code System.exit} or a signal goes
 * through {@code Shutdown.exit} on another thread instead.
 */
final class JvmExit {

	private JvmExit() {
	}

	/** Reads every thread's stack: once, at the stop of an application with delayed calls to lose. */
	static boolean lastThreadEnded() {
		for (Map.Entry<Thread, StackTraceElement[]> thread : Thread.getAllStackTraces().entrySet()) {
			if (!"DestroyJavaVM".equals(thread.getKey().getName())) {
				continue;
			}
			for (StackTraceElement frame : thread.getValue()) {
				if ("java.lang.Shutdown".equals(frame.getClassName()) && "shutdown".equals(frame.getMethodName())) {
					return true;
				}
			}
		}
		return false;
	}

}
