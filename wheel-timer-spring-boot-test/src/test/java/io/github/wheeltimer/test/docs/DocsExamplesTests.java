package io.github.wheeltimer.test.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Java examples of the README and of the pages in {@code docs/} are code this build compiles,
 * in whichever module's tests they are (this test compares text only, so one class checks them
 * all; the modules' own tests run them).
 * <p>
 * A page ties an example to its source with a line {@code <!-- example: path -->}, the path from
 * the repository's root, right before the example's {@code ```java} fence (in a quote too). The
 * example, read without what precedes its fence on the fence's line (a quote's {@code > }, a list
 * item's indentation), equals the source's regions: the lines between a {@code // example: start} line
 * and the next {@code // example: end} line, each region without the indentation of its
 * {@code // example: start} line, the regions one after the other in the file's order, tabs read
 * as four spaces, trailing spaces ignored.
 */
class DocsExamplesTests {

	private static final Path ROOT = Path.of("..");

	private static final String MARKER = "<!-- example: ";

	@Test
	void everyMarkedExampleIsTheCodeOfItsSource() throws IOException {
		List<Example> examples = examples();
		assertThat(examples).as("the marked examples").extracting(Example::page)
			.contains("README.md", "annotation.md", "core.md", "durable-calls.md", "testing.md");
		SoftAssertions softly = new SoftAssertions();
		for (Example example : examples) {
			softly.assertThat(example.lines())
				.as("the example of %s after its line %d", example.page(), example.line())
				.isEqualTo(regions(ROOT.resolve(example.source())));
		}
		softly.assertAll();
	}

	/**
	 * No Java example goes unchecked: each is marked with its source, or is the security
	 * configuration that {@code ReadmeSecurityTests} checks against the one its browser tests run.
	 */
	@Test
	void everyJavaExampleIsMarked() throws IOException {
		List<String> unmarked = new ArrayList<>();
		for (Path page : pages()) {
			List<String> lines = Files.readAllLines(page);
			for (int i = 1; i < lines.size(); i++) {
				String before = lines.get(i - 1).strip().replaceFirst("^>\\s*", "");
				if (lines.get(i).strip().replaceFirst("^>\\s*", "").equals("```java") && !before.startsWith(MARKER)
						&& !before.startsWith("<!-- console-security:")) {
					unmarked.add(page.getFileName() + ":" + (i + 1));
				}
			}
		}
		assertThat(unmarked).as("Java examples without their source").isEmpty();
	}

	private static List<Path> pages() throws IOException {
		List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
		try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
			docs.filter((path) -> path.toString().endsWith(".md")).sorted().forEach(pages::add);
		}
		return pages;
	}

	/** The marked examples of the README and of docs/. */
	static List<Example> examples() throws IOException {
		List<Example> examples = new ArrayList<>();
		for (Path page : pages()) {
			List<String> lines = Files.readAllLines(page);
			for (int i = 0; i < lines.size(); i++) {
				String line = lines.get(i).strip();
				if (line.startsWith(">")) {
					line = line.substring(1).strip();
				}
				if (!line.startsWith(MARKER)) {
					continue;
				}
				String source = line.substring(MARKER.length(), line.indexOf(" -->"));
				String fence = lines.get(i + 1);
				assertThat(fence).as("the line after %s in %s", line, page).endsWith("```java");
				String prefix = fence.substring(0, fence.indexOf("```java"));
				List<String> example = new ArrayList<>();
				for (int j = i + 2; !unprefixed(lines.get(j), prefix).equals("```"); j++) {
					example.add(unprefixed(lines.get(j), prefix).stripTrailing());
				}
				examples.add(new Example(page.getFileName().toString(), i + 1, example, source));
			}
		}
		return examples;
	}

	private static String unprefixed(String line, String prefix) {
		if (line.startsWith(prefix)) {
			return line.substring(prefix.length());
		}
		return line.startsWith(prefix.stripTrailing()) ? line.substring(prefix.stripTrailing().length()) : line;
	}

	/** The regions of a source, as an example shows them. */
	static List<String> regions(Path source) throws IOException {
		List<String> regions = new ArrayList<>();
		String indentation = null;
		for (String line : Files.readAllLines(source)) {
			if (line.strip().equals("// example: start")) {
				indentation = line.substring(0, line.indexOf('/'));
			}
			else if (line.strip().equals("// example: end")) {
				indentation = null;
			}
			else if (indentation != null) {
				String code = line.startsWith(indentation) ? line.substring(indentation.length()) : line.stripLeading();
				regions.add(code.replace("\t", "    ").stripTrailing());
			}
		}
		assertThat(regions).as("the example regions of %s", source).isNotEmpty();
		return regions;
	}

	/**
	 * A marked example.
	 * @param page the page's file name
	 * @param line the marker's line
	 * @param lines the example
	 * @param source the path of its source, from the repository's root
	 */
	record Example(String page, int line, List<String> lines, String source) {

	}

}
