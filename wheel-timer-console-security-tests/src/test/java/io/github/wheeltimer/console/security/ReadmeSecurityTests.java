package io.github.wheeltimer.console.security;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's Spring Security configuration for the console is the one the browser tests run:
 * its rules, line by line, are those of {@link ConsoleSecurity.FormLogin}.
 */
class ReadmeSecurityTests {

	@Test
	void theReadmesSecurityConfigurationIsTheOneTheBrowserTestsRun() throws IOException {
		String readme = Files.readString(Path.of("..", "README.md"));
		int marker = readme.indexOf("<!-- console-security:");
		assertThat(marker).as("the README's marked configuration").isPositive();
		String snippet = readme.substring(marker, readme.indexOf("\n```\n", readme.indexOf("```java", marker)));
		String source = Files.readString(
				Path.of("src/test/java/io/github/wheeltimer/console/security/ConsoleSecurity.java"));
		String formLogin = source.substring(source.indexOf("static class FormLogin"));
		assertThat(rules(snippet)).isNotEmpty().isEqualTo(rules(formLogin));
	}

	/** The lines from {@code return http} to {@code .build();}, without their indentation. */
	private static List<String> rules(String code) {
		String from = code.substring(code.indexOf("return http"));
		return from.substring(0, from.indexOf(".build();") + ".build();".length()).lines().map(String::trim).toList();
	}

}
