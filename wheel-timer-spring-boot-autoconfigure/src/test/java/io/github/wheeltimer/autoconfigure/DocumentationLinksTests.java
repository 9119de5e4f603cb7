package io.github.wheeltimer.autoconfigure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every relative link of the README and of the pages under {@code docs/} leads somewhere: the file
 * it names exists, and its anchor names a heading of that file, made into an anchor as GitHub makes
 * them. Links to other sites are not followed.
 */
class DocumentationLinksTests {

	private static final Path ROOT = Path.of("..");

	/** {@code [text](target)}, and so {@code ![alt](target)} too; the text may span lines. */
	private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");

	private static final Pattern IMAGE = Pattern.compile("<img\\s[^>]*src=\"([^\"]+)\"");

	private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)(\\s+#+)?\\s*$");

	private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s[^>]*(?:name|id)=\"([^\"]+)\"");

	/** A scheme, such as {@code https:} or {@code mailto:}: a link to elsewhere. */
	private static final Pattern EXTERNAL = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:.*");

	@Test
	void everyRelativeLinkLeadsToAFileAndAHeadingThatExist() throws IOException {
		List<Path> pages = pages();
		assertThat(pages).as("the README and the pages of docs/")
			.contains(ROOT.resolve("README.md"), ROOT.resolve("docs/README.md"));
		List<String> broken = new ArrayList<>();
		for (Path page : pages) {
			for (String target : links(Files.readString(page))) {
				String problem = problem(page, target);
				if (problem != null) {
					broken.add(ROOT.relativize(page) + ": (" + target + ") " + problem);
				}
			}
		}
		assertThat(broken).as("broken links").isEmpty();
	}

	@Test
	void anchorsAreMadeAsGitHubMakesThem() {
		assertThat(anchors("""
				# wheel-timer
				## `POST /actuator/wheeltimer/{name}`: stop a timer gracefully
				### 4. Test it on virtual time
				## Upgrading to the retries' columns
				## Durable calls, inside
				```yaml
				# a comment, not a heading
				```
				## Durable calls, inside
				""")).containsExactly("wheel-timer", "post-actuatorwheeltimername-stop-a-timer-gracefully",
						"4-test-it-on-virtual-time", "upgrading-to-the-retries-columns", "durable-calls-inside",
						"durable-calls-inside-1");
	}

	@Test
	void aLinkToAMissingFileOrHeadingIsFound() {
		Path readme = ROOT.resolve("README.md");
		assertThat(problem(readme, "docs/no-such-page.md")).contains("no file");
		assertThat(problem(readme, "docs/databases.md#no-such-heading")).contains("no heading");
		assertThat(problem(readme, "#no-such-heading")).contains("no heading");
		assertThat(problem(readme, "docs/databases.md#schema")).isNull();
		assertThat(problem(readme, "https://example.com/#anything")).isNull();
	}

	/** The README and the pages of docs/, in that order: what the documentation tests read. */
	static List<Path> pages() throws IOException {
		List<Path> pages = new ArrayList<>();
		pages.add(ROOT.resolve("README.md"));
		try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
			docs.filter((path) -> path.toString().endsWith(".md")).sorted().forEach(pages::add);
		}
		return pages;
	}

	/** The targets of the page's links and images, outside code blocks, code spans and comments. */
	private static List<String> links(String markdown) {
		String text = withoutCode(markdown).replaceAll("(?s)<!--.*?-->", "").replaceAll("`[^`]*`", "``");
		List<String> targets = new ArrayList<>();
		for (Pattern pattern : List.of(LINK, IMAGE)) {
			Matcher matcher = pattern.matcher(text);
			while (matcher.find()) {
				targets.add(matcher.group(1));
			}
		}
		return targets;
	}

	/** What is wrong with a link of the page, or {@code null} when it leads somewhere. */
	private static String problem(Path page, String target) {
		if (EXTERNAL.matcher(target).matches()) {
			return null;
		}
		int hash = target.indexOf('#');
		String path = (hash < 0) ? target : target.substring(0, hash);
		Path file = path.isEmpty() ? page : page.getParent().resolve(path).normalize();
		if (!Files.exists(file)) {
			return "no file " + file;
		}
		if (hash < 0) {
			return null;
		}
		String anchor = target.substring(hash + 1);
		try {
			Set<String> anchors = anchors(Files.readString(file));
			return anchors.contains(anchor) ? null : "no heading makes #" + anchor + " in " + file;
		}
		catch (IOException ex) {
			return "unreadable " + file + ": " + ex;
		}
	}

	/**
	 * The anchors GitHub makes of the headings of a page: the heading's text in lower case, without
	 * punctuation but {@code -} and {@code _}, each space a {@code -}; a second heading of the same
	 * anchor gets {@code -1}, a third {@code -2}. Also the names of HTML anchors.
	 */
	private static Set<String> anchors(String markdown) {
		Set<String> anchors = new LinkedHashSet<>();
		Map<String, Integer> seen = new HashMap<>();
		for (String line : withoutCode(markdown).split("\n")) {
			Matcher heading = HEADING.matcher(line);
			if (heading.matches()) {
				String text = heading.group(1).replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replaceAll("<[^>]+>", "");
				String slug = text.toLowerCase(Locale.ROOT)
					.replaceAll("[^\\p{L}\\p{M}\\p{N}\\p{Pc} -]", "")
					.replace(' ', '-');
				int count = seen.merge(slug, 1, Integer::sum);
				anchors.add((count == 1) ? slug : slug + "-" + (count - 1));
			}
			Matcher html = HTML_ANCHOR.matcher(line);
			while (html.find()) {
				anchors.add(html.group(1));
			}
		}
		return anchors;
	}

	/** The page with the lines of its fenced code blocks left out. */
	private static String withoutCode(String markdown) {
		StringBuilder text = new StringBuilder();
		boolean fenced = false;
		for (String line : markdown.split("\n")) {
			if (line.strip().startsWith("```")) {
				fenced = !fenced;
				continue;
			}
			if (!fenced) {
				text.append(line).append('\n');
			}
		}
		return text.toString();
	}

}
