package io.github.wheeltimer.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.AopContext;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.util.ReflectionUtils;

/**
 * What durable calls read at run time that a native image must keep: the migration scripts in
 * the jar, which the initializer reads as class path resources, and Spring's setter of
 * {@code AopContext.currentProxy()}. (The methods and their parameter types
 * come from {@code DelayedExecutionAotProcessor}, which sees the application's beans.)
 */
final class DurableCallsRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern("io/github/wheeltimer/durable/schema/*/*.sql");
		// For durable methods of beans whose proxy exposes itself: see RunPath.
		hints.reflection().registerMethod(ReflectionUtils.findMethod(AopContext.class, "setCurrentProxy", Object.class),
				ExecutableMode.INVOKE);
	}

}
