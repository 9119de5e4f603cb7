package io.github.wheeltimer.autoconfigure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's property tables say what the configuration metadata says: the same properties,
 * with the same defaults, so that the README cannot drift from the code.
 */
class ReadmePropertiesTests {

	private static final Path README = Path.of("..", "README.md");

	private static final Path METADATA = Path.of("target", "classes", "META-INF", "spring-configuration-metadata.json");

	/** A row of a property table: | `name` | `default` | meaning | */
	private static final Pattern ROW = Pattern.compile("^\\| `([a-z0-9.-]+)` \\| `([^`]*)` \\| .+\\|$");

	@Test
	void theReadmeListsEveryPropertyWithItsDefaultAndNoOther() throws IOException {
		assertThat(readmeDefaults()).isEqualTo(metadataDefaults());
	}

	private static Map<String, String> readmeDefaults() throws IOException {
		Map<String, String> defaults = new LinkedHashMap<>();
		for (String line : Files.readAllLines(README)) {
			Matcher row = ROW.matcher(line);
			if (row.matches()) {
				defaults.put(row.group(1), row.group(2));
			}
		}
		return defaults;
	}

	private static Map<String, String> metadataDefaults() throws IOException {
		List<Map<String, Object>> properties = JsonPath.read(METADATA.toFile(), "$.properties[*]");
		Map<String, String> defaults = new LinkedHashMap<>();
		for (Map<String, Object> property : properties) {
			String name = (String) property.get("name");
			// Actuator gives every endpoint this one; its own documentation covers it.
			if (name.endsWith(".cache.time-to-live")) {
				continue;
			}
			// Enum defaults are written as constants (read_only); the README, as they are set (read-only).
			String value = String.valueOf(property.get("defaultValue"));
			defaults.put(name, value.matches("[a-z]+(_[a-z]+)+") ? value.replace('_', '-') : value);
		}
		return defaults;
	}

}
