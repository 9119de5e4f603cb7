package io.github.wheeltimer.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What durable calls read at run time that a native image must keep: the schema scripts in the
 * jar, which the initializer reads as class path resources. (The methods and their parameter types
 * come from {@code DelayedExecutionAotProcessor}, which sees the application's beans.)
 */
final class DurableCallsRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern("io/github/wheeltimer/durable/schema-*.sql");
	}

}
