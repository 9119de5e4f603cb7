package io.github.wheeltimer.autoconfigure;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter's classes as jdeps reads them (the JDK's own tool, run in this JVM): which classes
 * and packages reach each other. A knot, classes that all reach each other through their
 * references, has to be read whole; a pair is allowed, nothing larger.
 */
class PackageStructureTests {

	private static final String ROOT = "io.github.wheeltimer.";

	/** {@code   io.github.wheeltimer.a.B -> io.github.wheeltimer.c.D   classes} */
	private static final Pattern EDGE = Pattern.compile("^\\s+(\\S+)\\s+->\\s+(\\S+)\\s");

	@Test
	void noPackageReachesAPackageThatReachesItBack() {
		Map<String, Set<String>> packages = new TreeMap<>();
		classReferences().forEach((from, to) -> to.forEach((target) -> {
			String source = packageOf(from);
			String destination = packageOf(target);
			packages.computeIfAbsent(source, (name) -> new TreeSet<>());
			if (!source.equals(destination)) {
				packages.get(source).add(destination);
			}
		}));
		assertThat(knots(packages)).as("packages that reach each other, each through the others").isEmpty();
	}

	@Test
	void noClassesKnotBeyondPairs() {
		Set<Set<String>> knots = knots(classReferences()).stream()
			.filter((knot) -> knot.size() > 2)
			.collect(Collectors.toSet());
		assertThat(knots).as("knots of more than two classes").isEmpty();
	}

	/** @return each class of the starter and the starter's classes it references, nested classes folded in */
	private static Map<String, Set<String>> classReferences() {
		ToolProvider jdeps = ToolProvider.findFirst("jdeps")
			.orElseThrow(() -> new IllegalStateException("These tests need a JDK, whose jdeps reads the classes"));
		StringWriter out = new StringWriter();
		StringWriter err = new StringWriter();
		int exit = jdeps.run(new PrintWriter(out), new PrintWriter(err), "-verbose:class", "-filter:none", "-e",
				"io\\.github\\.wheeltimer\\..*", classes().toString());
		assertThat(exit).as("jdeps' exit code; it said: %s", err).isZero();
		Map<String, Set<String>> references = new TreeMap<>();
		out.toString().lines().map(EDGE::matcher).filter(Matcher::find).forEach((edge) -> {
			String from = outer(edge.group(1));
			String to = outer(edge.group(2));
			if (from.startsWith(ROOT) && to.startsWith(ROOT)) {
				Set<String> targets = references.computeIfAbsent(from.substring(ROOT.length()), (name) -> new TreeSet<>());
				if (!from.equals(to)) {
					targets.add(to.substring(ROOT.length()));
				}
			}
		});
		assertThat(references).as("the starter's classes as jdeps read them").containsKey("durable.run.CallRunner");
		return references;
	}

	/** The starter's classes: a folder in the build, its jar where another module runs these tests. */
	private static Path classes() {
		try {
			return Path.of(WheelTimerAutoConfiguration.class.getProtectionDomain().getCodeSource().getLocation().toURI());
		}
		catch (URISyntaxException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static String outer(String className) {
		int nested = className.indexOf('$');
		return (nested < 0) ? className : className.substring(0, nested);
	}

	private static String packageOf(String className) {
		return className.substring(0, Math.max(0, className.lastIndexOf('.')));
	}

	/**
	 * Tarjan's strongly connected components, iteratively.
	 * @return the groups of more than one node that all reach each other
	 */
	private static Set<Set<String>> knots(Map<String, Set<String>> graph) {
		Map<String, Integer> index = new HashMap<>();
		Map<String, Integer> low = new HashMap<>();
		Deque<String> stack = new ArrayDeque<>();
		Set<String> onStack = new TreeSet<>();
		Set<Set<String>> knots = new HashSet<>();
		for (String start : graph.keySet()) {
			if (index.containsKey(start)) {
				continue;
			}
			// Each frame: a node and the targets still to visit.
			Deque<Map.Entry<String, Iterator<String>>> frames = new ArrayDeque<>();
			visit(start, index, low, stack, onStack, frames, graph);
			while (!frames.isEmpty()) {
				Map.Entry<String, Iterator<String>> frame = frames.peek();
				String node = frame.getKey();
				if (frame.getValue().hasNext()) {
					String next = frame.getValue().next();
					if (!index.containsKey(next)) {
						visit(next, index, low, stack, onStack, frames, graph);
					}
					else if (onStack.contains(next)) {
						low.put(node, Math.min(low.get(node), index.get(next)));
					}
					continue;
				}
				frames.pop();
				if (!frames.isEmpty()) {
					String parent = frames.peek().getKey();
					low.put(parent, Math.min(low.get(parent), low.get(node)));
				}
				if (low.get(node).equals(index.get(node))) {
					Set<String> component = new TreeSet<>();
					String member;
					do {
						member = stack.pop();
						onStack.remove(member);
						component.add(member);
					}
					while (!member.equals(node));
					if (component.size() > 1) {
						knots.add(component);
					}
				}
			}
		}
		return knots;
	}

	private static void visit(String node, Map<String, Integer> index, Map<String, Integer> low, Deque<String> stack,
			Set<String> onStack, Deque<Map.Entry<String, Iterator<String>>> frames,
			Map<String, Set<String>> graph) {
		index.put(node, index.size());
		low.put(node, index.get(node));
		stack.push(node);
		onStack.add(node);
		frames.push(Map.entry(node, List.copyOf(graph.getOrDefault(node, Set.of())).iterator()));
	}

}
