package io.github.wheeltimer.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.env.Environment;

/**
 * Builds the startup failure for a property value that binds but makes no sense.
 */
final class InvalidPropertyValues {

	private InvalidPropertyValues() {
	}

	/**
	 * Names the property, and shows its value as written, not as bound ("500us", not "PT0.0005S").
	 */
	static InvalidConfigurationPropertyValueException invalid(Environment environment, String property,
			@Nullable Object boundValue, String reason) {
		String written = environment.getProperty(property);
		return new InvalidConfigurationPropertyValueException(property, (written != null) ? written : boundValue,
				reason);
	}

}
