package io.github.wheeltimer.autoconfigure;

import java.util.List;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.core.NestedExceptionUtils;

import static org.assertj.core.api.Assertions.assertThat;

/** Checks that a context failed to start on a property, naming it, its value and the rule. */
final class InvalidPropertyFailures {

	private InvalidPropertyFailures() {
	}

	static ContextConsumer<AssertableApplicationContext> failsWith(String property, String value,
			String... messages) {
		return (context) -> assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
			.isInstanceOf(InvalidConfigurationPropertyValueException.class)
			.satisfies((failure) -> {
				InvalidConfigurationPropertyValueException invalid = (InvalidConfigurationPropertyValueException) failure;
				assertThat(invalid.getName()).isEqualTo(property);
				assertThat(String.valueOf(invalid.getValue())).isEqualTo(value);
				assertThat(invalid.getMessage()).contains(List.of(messages));
			});
	}

}
