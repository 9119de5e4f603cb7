package io.github.wheeltimer.test.readme;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's first example is code this build compiles and runs: its step 2 is
 * {@link PaymentTimeouts} and its step 4 is {@link PaymentTimeoutsTests}, from their first
 * annotation to their end, tabs read as four spaces.
 */
class ReadmeExamplesTests {

	private static final Path README = Path.of("..", "README.md");

	private static final Path SOURCES = Path.of("..", "wheel-timer-spring-boot-test", "src", "test", "java", "io",
			"github", "wheeltimer", "test", "readme");

	@Test
	void stepTwoIsTheBeanThisBuildRuns() throws IOException {
		assertThat(readmeExample("### 2.")).isEqualTo(fromFirstAnnotation("PaymentTimeouts.java"));
	}

	@Test
	void stepFourIsTheTestThisBuildRuns() throws IOException {
		assertThat(readmeExample("### 4.")).isEqualTo(fromFirstAnnotation("PaymentTimeoutsTests.java"));
	}

	/** The first Java block after the heading that starts with {@code heading}. */
	private static List<String> readmeExample(String heading) throws IOException {
		String readme = Files.readString(README);
		int at = readme.indexOf("\n" + heading);
		assertThat(at).as("the README's heading %s", heading).isPositive();
		int start = readme.indexOf("```java\n", at) + "```java\n".length();
		return readme.substring(start, readme.indexOf("\n```", start)).lines().map(String::stripTrailing).toList();
	}

	private static List<String> fromFirstAnnotation(String file) throws IOException {
		List<String> lines = Files.readAllLines(SOURCES.resolve(file));
		int first = 0;
		while (!lines.get(first).startsWith("@")) {
			first++;
		}
		return lines.subList(first, lines.size()).stream().map((line) -> line.replace("\t", "    ").stripTrailing()).toList();
	}

}
