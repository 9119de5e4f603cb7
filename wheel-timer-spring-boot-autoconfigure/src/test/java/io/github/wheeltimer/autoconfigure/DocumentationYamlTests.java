package io.github.wheeltimer.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Every YAML example of the README and of the pages under {@code docs/} is configuration that
 * works: each key is a property some configuration metadata on the class path declares (Spring
 * would ignore a misspelt one without a word), and the starter's part binds to
 * {@link WheelTimerProperties}, values converted as the application would convert them.
 */
class DocumentationYamlTests {

	private static final Path ROOT = Path.of("..");

	private static final Pattern YAML = Pattern.compile("```yaml\\n(.*?)```", Pattern.DOTALL);

	private static final String NAMED_TIMER = "wheel-timer.timers.";

	@Test
	void everyYamlExampleNamesKnownPropertiesAndBindsToTheStartersProperties() throws IOException {
		List<Example> examples = examples();
		assertThat(examples).as("the YAML examples of the README and docs/").hasSizeGreaterThanOrEqualTo(4);
		Set<String> known = knownProperties();
		List<String> unknown = new ArrayList<>();
		for (Example example : examples) {
			for (String key : example.properties().getPropertyNames()) {
				if (!known.contains(withoutIndex(key)) && !isNamedTimerSetting(key, known)) {
					unknown.add(example.page() + ": " + key);
				}
			}
			assertThatNoException().as("%s binds to WheelTimerProperties", example.page())
				.isThrownBy(() -> new Binder(ConfigurationPropertySources.from(example.properties()))
					.bind("wheel-timer", WheelTimerProperties.class));
		}
		assertThat(unknown).as("keys that no configuration metadata declares").isEmpty();
	}

	/** A named timer's settings are the default timer's, under {@code wheel-timer.timers.<name>.}. */
	private static boolean isNamedTimerSetting(String key, Set<String> known) {
		if (!key.startsWith(NAMED_TIMER)) {
			return false;
		}
		String afterName = key.substring(NAMED_TIMER.length());
		int dot = afterName.indexOf('.');
		return dot > 0 && known.contains("wheel-timer." + afterName.substring(dot + 1));
	}

	/** {@code include[0]}, as a list in YAML flattens, is the property {@code include}. */
	private static String withoutIndex(String key) {
		return key.replaceAll("\\[\\d+]$", "");
	}

	private static List<Example> examples() throws IOException {
		List<Example> examples = new ArrayList<>();
		YamlPropertySourceLoader loader = new YamlPropertySourceLoader();
		for (Path page : DocumentationLinksTests.pages()) {
			Matcher yaml = YAML.matcher(Files.readString(page));
			while (yaml.find()) {
				String name = ROOT.relativize(page) + " at offset " + yaml.start();
				List<PropertySource<?>> loaded = loader.load(name, new ByteArrayResource(yaml.group(1).getBytes()));
				assertThat(loaded).as("%s is one YAML document", name).hasSize(1);
				examples.add(new Example(name, (EnumerablePropertySource<?>) loaded.get(0)));
			}
		}
		return examples;
	}

	/** Every property of every configuration metadata on the class path: Boot's, Actuator's, ours. */
	private static Set<String> knownProperties() throws IOException {
		Set<String> names = new HashSet<>();
		for (URL metadata : Collections.list(DocumentationYamlTests.class.getClassLoader()
			.getResources("META-INF/spring-configuration-metadata.json"))) {
			try (InputStream in = metadata.openStream()) {
				List<Map<String, Object>> properties = JsonPath.read(in, "$.properties[*]");
				properties.forEach((property) -> names.add((String) property.get("name")));
			}
		}
		assertThat(names).as("our metadata among them").contains("wheel-timer.tick-duration");
		return names;
	}

	private record Example(String page, EnumerablePropertySource<?> properties) {
	}

}
