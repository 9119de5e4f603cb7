package io.github.wheeltimer.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.SpringProxy;
import org.springframework.aop.framework.Advised;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.core.DecoratingProxy;

/**
 * What durable calls read at run time that a native image must keep: the migration scripts in
 * the jar, which the initializer reads as class path resources, and the JDK proxy through whose
 * handler a run reaches its method ({@code RunPath}). (The methods and their parameter types
 * come from {@code DelayedExecutionAotProcessor}, which sees the application's beans.)
 */
final class DurableCallsRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern("io/github/wheeltimer/durable/schema/*/*.sql");
		// The interfaces of the JDK proxy Spring makes for a RunPath, in the order it gives them.
		hints.proxies()
			.registerJdkProxy(TypeReference.of("io.github.wheeltimer.annotation.RunPath$Path"),
					TypeReference.of(SpringProxy.class), TypeReference.of(Advised.class),
					TypeReference.of(DecoratingProxy.class));
	}

}
