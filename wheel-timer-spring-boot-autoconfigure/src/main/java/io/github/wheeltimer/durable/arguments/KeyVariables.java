package io.github.wheeltimer.durable.arguments;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;

/**
 * Checks at startup that a durable method's key names only variables the method has: a parameter
 * renamed while its key still says {@code "#orderId"} would otherwise start fine and fail every
 * call in its caller's thread ("evaluated to null"). The variables a key may use are those of
 * Spring's {@code MethodBasedEvaluationContext}, as for {@code @Cacheable}: the parameters by name,
 * and by position as {@code #p0} or {@code #a0}.
 */
final class KeyVariables {

	static final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

	private static final Pattern BY_POSITION = Pattern.compile("[ap](\\d+)");

	private KeyVariables() {
	}

	/** @throws IllegalArgumentException naming the variable, and what the method has */
	static void requireKnown(SpelExpression key, Method method) {
		Set<String> variables = new LinkedHashSet<>();
		collect(key.getAST(), variables);
		@Nullable String[] names = parameterNames.getParameterNames(method);
		int count = method.getParameterCount();
		for (String variable : variables) {
			var position = BY_POSITION.matcher(variable);
			if (position.matches()) {
				if (Integer.parseInt(position.group(1)) >= count) {
					throw new IllegalArgumentException("its key \"" + key.getExpressionString() + "\" names #" + variable
							+ ", and the method has " + count + ((count == 1) ? " parameter" : " parameters"));
				}
				continue;
			}
			if (variable.equals("this") || variable.equals("root")) {
				continue;
			}
			if (names == null) {
				throw new IllegalArgumentException("its key \"" + key.getExpressionString() + "\" names #" + variable
						+ ", and the names of its parameters are not available: compile with -parameters (Spring"
						+ " Boot's Maven and Gradle plugins do), or name them by position: #p0, #p1...");
			}
			if (!Arrays.asList(names).contains(variable)) {
				throw new IllegalArgumentException("its key \"" + key.getExpressionString() + "\" names #" + variable
						+ ", which is not one of its parameters " + describe(names)
						+ " (a parameter renamed?); name one of them, or one by position: #p0, #p1...");
			}
		}
	}

	private static void collect(SpelNode node, Set<String> variables) {
		if (node instanceof VariableReference) {
			// "#name": the node keeps its name to itself, and prints it.
			variables.add(node.toStringAST().substring(1));
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			collect(node.getChild(i), variables);
		}
	}

	private static String describe(@Nullable String[] names) {
		List<String> variables = new ArrayList<>();
		for (String name : names) {
			variables.add("#" + name);
		}
		return variables.toString();
	}

}
