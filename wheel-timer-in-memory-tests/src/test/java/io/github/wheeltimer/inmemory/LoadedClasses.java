package io.github.wheeltimer.inmemory;

import java.lang.management.ManagementFactory;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.management.JMException;
import javax.management.ObjectName;

/**
 * The classes this JVM has loaded, from HotSpot's {@code VM.class_hierarchy} diagnostic command
 * (what {@code jcmd <pid> VM.class_hierarchy} prints), run in-process through the
 * {@code DiagnosticCommand} MBean. It lists every class loaded by any class loader, whether or not
 * it could be linked afterwards.
 */
final class LoadedClasses {

	/** A line such as {@code |  |--io.github.wheeltimer.HashedWheelTimer/0x00007f...}. */
	private static final Pattern CLASS_LINE = Pattern.compile("^[|\\s-]*([^/\\s]+)/");

	private LoadedClasses() {
	}

	/**
	 * Returns the names of the classes loaded so far.
	 * @return the binary names, sorted, such as {@code java.util.Map$Entry}
	 */
	static Set<String> names() {
		String hierarchy;
		try {
			hierarchy = (String) ManagementFactory.getPlatformMBeanServer()
				.invoke(new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmClassHierarchy",
						new Object[] { null }, new String[] { String[].class.getName() });
		}
		catch (JMException ex) {
			throw new IllegalStateException("Cannot list the loaded classes: this test needs a HotSpot JVM", ex);
		}
		Set<String> names = new TreeSet<>();
		hierarchy.lines().forEach((line) -> {
			Matcher matcher = CLASS_LINE.matcher(line);
			if (matcher.find()) {
				names.add(matcher.group(1));
			}
		});
		return names;
	}

}
