package io.github.wheeltimer.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
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
 * The property tables of {@code docs/properties.md}, the README's page of properties, say what the
 * configuration metadata says: the same properties, with the same defaults, so that the page cannot
 * drift from the code.
 */
class ReadmePropertiesTests {

	private static final Path PROPERTIES = Path.of("..", "docs", "properties.md");

	private static final String METADATA = "META-INF/spring-configuration-metadata.json";

	/** A row of a property table: | `name` | `default` | meaning | */
	private static final Pattern ROW = Pattern.compile("^\\| `([a-z0-9.<>-]+)` \\| `([^`]*)` \\| .+\\|$");

	/** A row's name and meaning. */
	private static final Pattern MEANING = Pattern.compile("^\\| `([a-z0-9.<>-]+)` \\| `[^`]*` \\| (.+) \\|$");


	private static final String NAMED_TIMER = "wheel-timer.timers.<name>.";

	@Test
	void thePropertiesPageListsEveryPropertyWithItsDefaultAndNoOther() throws IOException {
		Map<String, String> page = pageDefaults();
		// The console's rows are its own module's metadata; ConsoleReadmePropertiesTests checks them.
		page.keySet().removeIf((name) -> name.startsWith(NAMED_TIMER) || name.startsWith("wheel-timer.console."));
		assertThat(page).isEqualTo(metadataDefaults());
	}

	@Test
	void thePropertiesPageListsEachSettingOfANamedTimerAndTheDefaultItFallsBackTo() throws IOException {
		Map<String, String> named = new LinkedHashMap<>();
		pageDefaults().forEach((name, fallback) -> {
			if (name.startsWith(NAMED_TIMER)) {
				named.put(name.substring(NAMED_TIMER.length()), fallback);
			}
		});
		Map<String, String> expected = new LinkedHashMap<>();
		metadataDefaults().keySet()
			.stream()
			.filter((name) -> name.startsWith("wheel-timer.") && !name.equals("wheel-timer.enabled")
					&& !name.startsWith("wheel-timer.durable."))
			.map((name) -> name.substring("wheel-timer.".length()))
			.forEach((setting) -> expected.put(setting,
					setting.equals("thread-name") ? "wheel-timer.thread-name-<name>" : "wheel-timer." + setting));
		assertThat(named).isEqualTo(expected);
	}

	/**
	 * The meaning of each of the starter's properties is its description in the metadata, which is
	 * the Javadoc of its field: said once, in the code, which IDEs show too. The page may set names
	 * and values in code type.
	 */
	@Test
	void eachPropertysMeaningIsItsDescriptionInTheMetadata() throws IOException {
		List<Map<String, Object>> properties = JsonPath.read(metadata(), "$.properties[*]");
		Map<String, String> descriptions = new LinkedHashMap<>();
		for (Map<String, Object> property : properties) {
			if (property.get("description") != null) {
				descriptions.put((String) property.get("name"), plain((String) property.get("description")));
			}
		}
		Map<String, String> meanings = new LinkedHashMap<>();
		for (String line : Files.readAllLines(PROPERTIES)) {
			Matcher row = MEANING.matcher(line);
			if (row.matches() && row.group(1).startsWith("wheel-timer.") && descriptions.containsKey(row.group(1))) {
				meanings.put(row.group(1), plain(row.group(2)));
			}
		}
		assertThat(meanings).as("the starter's rows").hasSizeGreaterThanOrEqualTo(20);
		meanings.forEach((name, meaning) -> assertThat(meaning).as(name).isEqualTo(descriptions.get(name)));
	}

	/** Without code type, and with single spaces: what a reader reads. */
	private static String plain(String text) {
		return text.replace("`", "").replaceAll("\\s+", " ").strip();
	}

	private static Map<String, String> pageDefaults() throws IOException {
		Map<String, String> defaults = new LinkedHashMap<>();
		for (String line : Files.readAllLines(PROPERTIES)) {
			Matcher row = ROW.matcher(line);
			if (row.matches()) {
				defaults.put(row.group(1), row.group(2));
			}
		}
		return defaults;
	}

	private static Map<String, String> metadataDefaults() throws IOException {
		List<Map<String, Object>> properties = JsonPath.read(metadata(), "$.properties[*]");
		Map<String, String> defaults = new LinkedHashMap<>();
		for (Map<String, Object> property : properties) {
			String name = (String) property.get("name");
			// Actuator gives every endpoint this one; its own documentation covers it. The map of
			// named timers is documented by its entries' settings.
			if (name.endsWith(".cache.time-to-live") || name.equals("wheel-timer.timers")) {
				continue;
			}
			// Enum defaults are written as constants (read_only); the page, as they are set (read-only).
			// A property with no fixed default (computed at startup) reads "none" on the page.
			Object defaultValue = property.get("defaultValue");
			String value = (defaultValue != null) ? defaultValue.toString() : "none";
			defaults.put(name, value.matches("[a-z]+(_[a-z]+)+") ? value.replace('_', '-') : value);
		}
		return defaults;
	}

	/**
	 * The configuration metadata the build wrote beside the starter's classes: a folder in the
	 * module that builds them, its jar in the module that runs these tests. Other jars on the class
	 * path have a file of that name too.
	 */
	private static String metadata() throws IOException {
		URL classes = WheelTimerAutoConfiguration.class.getProtectionDomain().getCodeSource().getLocation();
		URL url = classes.getPath().endsWith(".jar") ? new URL("jar:" + classes + "!/" + METADATA)
				: new URL(classes, METADATA);
		try (InputStream in = url.openStream()) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
	}

}
