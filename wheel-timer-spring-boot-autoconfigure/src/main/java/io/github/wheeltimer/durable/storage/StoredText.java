package io.github.wheeltimer.durable.storage;

/**
 * Text that durable calls write for operators (a failure's message, an instance's name), made
 * storable on every supported database: PostgreSQL refuses the NUL character in text, and a
 * column's length is counted in characters by PostgreSQL and in UTF-16 units by H2. Counting
 * UTF-16 units, and never cutting a surrogate pair in two, gives text that fits both.
 */
public final class StoredText {

	private StoredText() {
	}

	/**
	 * Makes text storable.
	 * @param text the text
	 * @param maxLength the column's length
	 * @return the text with each NUL written {@code \0}, cut to at most {@code maxLength} UTF-16
	 * units
	 */
	public static String of(String text, int maxLength) {
		String safe = (text.indexOf('\0') >= 0) ? text.replace("\0", "\\0") : text;
		if (safe.length() <= maxLength) {
			return safe;
		}
		int end = Character.isHighSurrogate(safe.charAt(maxLength - 1)) ? maxLength - 1 : maxLength;
		return safe.substring(0, end);
	}

}
