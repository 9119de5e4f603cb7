package io.github.wheeltimer.console;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Checks {@code wheel-timer.console.path}: a literal path, since it becomes both a route and the
 * prefix of a resource pattern, where a wildcard or a variable would match more than the console.
 */
final class ConsolePath {

	static final String PROPERTY = "wheel-timer.console.path";

	private ConsolePath() {
	}

	/**
	 * Returns the path if it is one the console can be served at.
	 * @throws InvalidConfigurationPropertyValueException naming the property, the value and what
	 * is allowed, otherwise
	 */
	static String check(@Nullable String path) {
		String problem = problem(path);
		if (problem != null) {
			throw new InvalidConfigurationPropertyValueException(PROPERTY, path, problem
					+ ". It must be a literal path that starts with '/', is not '/' alone, does not end with '/', and"
					+ " holds no '*', '?', '{', '}' or whitespace, such as /wheel-timer or /ops/timers");
		}
		return (String) path;
	}

	private static @Nullable String problem(@Nullable String path) {
		if (path == null || path.isEmpty()) {
			return "It is empty";
		}
		if (!path.startsWith("/")) {
			return "It does not start with '/'";
		}
		if (path.equals("/")) {
			return "The console needs a path of its own, not the root";
		}
		if (path.endsWith("/")) {
			return "It ends with '/'";
		}
		if (path.contains("//")) {
			return "It has an empty segment ('//')";
		}
		for (char c : path.toCharArray()) {
			if (c == '*' || c == '?' || c == '{' || c == '}' || Character.isWhitespace(c)) {
				return "It holds '" + c + "', which a route would read as a pattern";
			}
		}
		return null;
	}

}
