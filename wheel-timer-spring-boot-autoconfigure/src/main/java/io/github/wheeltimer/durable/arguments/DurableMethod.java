package io.github.wheeltimer.durable.arguments;

import io.github.wheeltimer.annotation.DelayedMethod;
import io.github.wheeltimer.durable.storage.CallRepository;
import org.jspecify.annotations.Nullable;

import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.expression.Expression;

/**
 * The durable side of a {@code @DelayedExecution(durable = true)} method, resolved once at
 * startup: its stable id, its key expression, how its arguments become JSON and back, and the
 * bean that runs its calls. Immutable and shared by every call.
 */
public final class DurableMethod {

	private final DelayedMethod method;

	private final String id;

	private final @Nullable Expression key;

	private final ArgumentCodec arguments;

	private final String beanName;

	DurableMethod(DelayedMethod method, String id, @Nullable Expression key, ArgumentCodec arguments,
			String beanName) {
		this.method = method;
		this.id = id;
		this.key = key;
		this.arguments = arguments;
		this.beanName = beanName;
	}

	/** @return the stable id stored with each call */
	public String id() {
		return this.id;
	}

	public DelayedMethod method() {
		return this.method;
	}

	String beanName() {
		return this.beanName;
	}

	public ArgumentCodec arguments() {
		return this.arguments;
	}

	/** @return this version's argument shape, which each call it writes records */
	public String shape() {
		return this.arguments.shape();
	}

	/**
	 * Evaluates the key of a call, on the caller's thread.
	 * @return the key's text, or {@code null} if the method has no key
	 * @throws IllegalArgumentException if the key is null, too long or holds a NUL
	 */
	public @Nullable String keyOf(@Nullable Object[] values) {
		if (this.key == null) {
			return null;
		}
		Object value = this.key.getValue(
				new MethodBasedEvaluationContext(null, this.method.method(), values, KeyVariables.parameterNames));
		if (value == null) {
			throw new IllegalArgumentException("The key \"" + this.key.getExpressionString() + "\" of the durable"
					+ " delayed method " + this.method.description() + " evaluated to null; a key names the pending"
					+ " call, so it must have a value");
		}
		String text = value.toString();
		if (!storable(text)) {
			throw new IllegalArgumentException("The key \"" + this.key.getExpressionString() + "\" of the durable"
					+ " delayed method " + this.method.description() + " gave a value of " + text.length()
					+ " characters" + ((text.indexOf('\0') >= 0) ? " holding a NUL character" : "")
					+ "; a key is stored as text of at most " + CallRepository.KEY_LENGTH
					+ " characters (UTF-16 units), without NUL");
		}
		return text;
	}

	/** @return whether a key's text fits its column on every supported database */
	public static boolean storable(String key) {
		return key.length() <= CallRepository.KEY_LENGTH && key.indexOf('\0') < 0;
	}

	@Override
	public String toString() {
		return this.id + " (" + this.method.description() + ")";
	}

}
