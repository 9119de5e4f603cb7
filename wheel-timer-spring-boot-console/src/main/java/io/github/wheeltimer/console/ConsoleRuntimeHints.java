package io.github.wheeltimer.console;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;

/**
 * What the console reads from its jar at runtime, which a native image holds only when told: the
 * page's template and the scripts and styles served beside it; and the answer of its access
 * route, which Jackson writes by reflection.
 */
final class ConsoleRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources()
			.registerPattern(ConsolePage.TEMPLATE)
			.registerPattern(ConsoleResources.LOCATION.substring("classpath:/".length()) + "*");
		new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(), ConsoleAccess.Answer.class);
	}

}
