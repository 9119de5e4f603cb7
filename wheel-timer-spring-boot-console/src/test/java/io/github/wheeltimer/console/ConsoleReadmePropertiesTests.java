package io.github.wheeltimer.console;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
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
		assertThat(page(2, String::valueOf)).isEqualTo(metadata("defaultValue", String::valueOf));
	}

	@Test
	void eachPropertysMeaningIsItsDescriptionInTheMetadata() throws IOException {
		assertThat(page(3, ConsoleReadmePropertiesTests::plain)).isNotEmpty()
			.isEqualTo(metadata("description", ConsoleReadmePropertiesTests::plain));
	}

	/** Each console property of the page, with the column {@code group} of its row. */
	private static Map<String, String> page(int group, UnaryOperator<String> read) throws IOException {
		Map<String, String> page = new LinkedHashMap<>();
		for (String line : Files.readAllLines(PROPERTIES)) {
			Matcher row = ROW.matcher(line);
			if (row.matches()) {
				page.put(row.group(1), read.apply(row.group(group)));
			}
		}
		return page;
	}

	/** Each property of the console's metadata, with its {@code field}. */
	private static Map<String, String> metadata(String field, UnaryOperator<String> read) throws IOException {
		Map<String, String> metadata = new LinkedHashMap<>();
		List<Map<String, Object>> properties = JsonPath.read(METADATA.toFile(), "$.properties[*]");
		properties.forEach((property) -> metadata.put((String) property.get("name"),
				read.apply(String.valueOf(property.get(field)))));
		return metadata;
	}

	/** Without code type, and with single spaces: what a reader reads. */
	private static String plain(String text) {
		return text.replace("`", "").replaceAll("\\s+", " ").strip();
	}

}
