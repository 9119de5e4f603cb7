package io.github.wheeltimer.console;

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
 * The table of the console's properties in {@code docs/properties.md}, the README's page of
 * properties, says what the configuration metadata says: every property, its default and its
 * description (its field's Javadoc).
 */
class ConsoleReadmePropertiesTests {

	private static final Path PROPERTIES = Path.of("..", "docs", "properties.md");

	private static final Path METADATA = Path.of("target", "classes", "META-INF", "spring-configuration-metadata.json");

	/** A row of a property table: | `name` | `default` | meaning | */
	private static final Pattern ROW = Pattern.compile("^\\| `(wheel-timer\\.console\\.[a-z0-9.-]+)` \\| `([^`]*)` \\| (.+) \\|$");

	@Test
	void thePropertiesPageListsEveryPropertyOfTheConsoleWithItsDefault() throws IOException {
		Map<String, String> page = new LinkedHashMap<>();
		for (String line : Files.readAllLines(PROPERTIES)) {
			Matcher row = ROW.matcher(line);
			if (row.matches()) {
				page.put(row.group(1), row.group(2));
			}
		}
		Map<String, String> metadata = new LinkedHashMap<>();
		List<Map<String, Object>> properties = JsonPath.read(METADATA.toFile(), "$.properties[*]");
		properties.forEach((property) -> metadata.put((String) property.get("name"),
				String.valueOf(property.get("defaultValue"))));
		assertThat(page).isEqualTo(metadata);
	}

	@Test
	void eachPropertysMeaningIsItsDescriptionInTheMetadata() throws IOException {
		Map<String, String> page = new LinkedHashMap<>();
		for (String line : Files.readAllLines(PROPERTIES)) {
			Matcher row = ROW.matcher(line);
			if (row.matches()) {
				page.put(row.group(1), plain(row.group(3)));
			}
		}
		Map<String, String> metadata = new LinkedHashMap<>();
		List<Map<String, Object>> properties = JsonPath.read(METADATA.toFile(), "$.properties[*]");
		properties.forEach((property) -> metadata.put((String) property.get("name"),
				plain(String.valueOf(property.get("description")))));
		assertThat(page).isNotEmpty().isEqualTo(metadata);
	}

	/** Without code type, and with single spaces: what a reader reads. */
	private static String plain(String text) {
		return text.replace("`", "").replaceAll("\\s+", " ").strip();
	}

}
