package io.github.wheeltimer.console.security;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Spring Security configuration for the console in {@code docs/production.md}, the README's page
 * on running it in production, is the one the browser tests run: its rules, line by line, are those
 * of {@link ConsoleSecurity.FormLogin}.
 */
class ReadmeSecurityTests {

	@Test
	void theDocumentedSecurityConfigurationIsTheOneTheBrowserTestsRun() throws IOException {
		String page = Files.readString(Path.of("..", "docs", "production.md"));
		int marker = page.indexOf("<!-- console-security:");
		assertThat(marker).as("the page's marked configuration").isPositive();
		String snippet = page.substring(marker, page.indexOf("\n```\n", page.indexOf("```java", marker)));
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
