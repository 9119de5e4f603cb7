package io.github.wheeltimer.durable.storage;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

/**
 * What an instance reads of one durable method's calls: the argument shape of its own version
 * (which it writes, and reads by construction), and the shapes of other versions it tried and
 * cannot read. Instances publish theirs in their row, so that each one leaves a call to the live
 * version that wrote it, and so that a call no live instance can read is reported.
 *
 * @param shape the instance's own argument shape of the method
 * @param unreadable the shapes of calls it found it cannot read
 */
public record MethodShapes(String shape, Set<String> unreadable) {

	/** How the list of unreadable shapes writes the empty one. */
	private static final String UNRECORDED = "-";

	/**
	 * @param shape the instance's own argument shape of the method
	 * @param unreadable the shapes of calls it found it cannot read
	 */
	public MethodShapes {
		unreadable = Set.copyOf(unreadable);
	}

	/**
	 * Writes the shapes of an instance's methods as its row keeps them: a line per method, the
	 * method's id, its shape, and the shapes it cannot read, comma-separated, tab-separated. A method
	 * id holds no line break; a shape is hexadecimal digits, or empty (calls written before the
	 * tables recorded shapes), which the list writes as {@value #UNRECORDED}.
	 * @param byMethod the shapes by method id
	 * @return the text
	 */
	public static String format(Map<String, MethodShapes> byMethod) {
		StringBuilder text = new StringBuilder();
		byMethod.forEach((method, shapes) -> {
			if (!text.isEmpty()) {
				text.append('\n');
			}
			text.append(method).append('\t').append(shapes.shape()).append('\t');
			String separator = "";
			for (String shape : new TreeSet<>(shapes.unreadable())) {
				text.append(separator).append(shape.isEmpty() ? UNRECORDED : shape);
				separator = ",";
			}
		});
		return text.toString();
	}

	/**
	 * Reads what {@link #format} wrote.
	 * @param text the row's text, {@code null} for an instance of a starter that does not publish
	 * its shapes
	 * @return the shapes by method id, or {@code null} if the instance did not say
	 */
	public static @Nullable Map<String, MethodShapes> parse(@Nullable String text) {
		if (text == null) {
			return null;
		}
		Map<String, MethodShapes> byMethod = new LinkedHashMap<>();
		for (String line : text.split("\n")) {
			// From the right: a method id may hold a tab, a shape cannot.
			int last = line.lastIndexOf('\t');
			int before = (last > 0) ? line.lastIndexOf('\t', last - 1) : -1;
			if (before <= 0) {
				continue;
			}
			String unreadable = line.substring(last + 1);
			Set<String> shapes = new HashSet<>();
			for (String shape : unreadable.isEmpty() ? new String[0] : unreadable.split(",")) {
				shapes.add(shape.equals(UNRECORDED) ? "" : shape);
			}
			byMethod.put(line.substring(0, before), new MethodShapes(line.substring(before + 1, last), shapes));
		}
		return byMethod;
	}

}
