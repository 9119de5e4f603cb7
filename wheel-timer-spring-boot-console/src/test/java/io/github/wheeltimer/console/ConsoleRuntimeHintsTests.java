package io.github.wheeltimer.console;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;

class ConsoleRuntimeHintsTests {

	private final RuntimeHints hints = new RuntimeHints();

	ConsoleRuntimeHintsTests() {
		new ConsoleRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
	}

	@Test
	void thePagesTemplateIsInTheImage() {
		assertThat(RuntimeHintsPredicates.resource().forResource(ConsolePage.TEMPLATE)).accepts(this.hints);
	}

	@Test
	void theAccessRoutesAnswerCanBeWrittenInTheImage() {
		assertThat(RuntimeHintsPredicates.reflection().onType(ConsoleAccess.Answer.class)).accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(ConsoleAccess.Csrf.class)).accepts(this.hints);
	}

	@ParameterizedTest
	@ValueSource(strings = { "console.js", "console.css", "api.js", "dom.js", "durable.js", "wheel.js", "wheel.css" })
	void everyScriptAndStyleIsInTheImage(String file) {
		String resource = "META-INF/wheel-timer-console/" + file;
		assertThat(new ClassPathResource(resource).exists()).as(resource).isTrue();
		assertThat(RuntimeHintsPredicates.resource().forResource(resource)).accepts(this.hints);
	}

}
