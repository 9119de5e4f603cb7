package io.github.wheeltimer.console;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What the console reads from its jar at runtime, which a native image holds only when told: the
 * page's template and the scripts and styles served beside it.
 */
final class ConsoleRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources()
			.registerPattern(ConsolePage.TEMPLATE)
			.registerPattern(ConsoleResources.LOCATION.substring("classpath:/".length()) + "*");
	}

}
