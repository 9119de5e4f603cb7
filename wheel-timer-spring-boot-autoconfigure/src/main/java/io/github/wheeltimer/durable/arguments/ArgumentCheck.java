package io.github.wheeltimer.durable.arguments;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.BeanProperty;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.introspect.AnnotatedMember;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.jsonFormatVisitors.JsonFormatVisitorWrapper;
import tools.jackson.databind.jsonFormatVisitors.JsonObjectFormatVisitor;

import org.springframework.util.ClassUtils;

/**
 * What the arguments of one durable method must pass at each call, where the parameters' declared
 * types do not say all: an argument whose class is a subclass that writes properties the declared
 * type does not (the JSON is read back as the declared type, so they would be lost); one whose
 * class is not among the subtypes its {@code @JsonTypeInfo} type knows; and a value in an
 * {@code Object} slot ({@code Map<String, Object>}) that would not come back as itself. Only the
 * parts of the arguments that {@link ParameterProof} found to need a check are looked at. A
 * refused value throws a {@link Refusal}, which {@link ArgumentCodec#write} turns into the
 * caller's exception.
 * <p>
 * Runs in the callers' threads, any number at once, and is thread-safe: what it checks is set at
 * startup and never changed, the mapper is thread-safe, and the only thing it learns afterwards,
 * what each subclass it meets writes, is kept in a {@link ClassValue}.
 */
final class ArgumentCheck {

	/** The step into an {@code Optional} or an {@code AtomicReference}, for a refusal's path. */
	private static final Object GET = new Object();

	private final JsonMapper mapper;

	/** By type met in the parameters: what its values need at each call; absent if nothing. */
	private final Map<JavaType, Need> needs;

	/** The properties each class met as a subclass writes, or why it writes none. */
	private final ClassValue<Object> writes = new ClassValue<>() {

		@Override
		protected Object computeValue(Class<?> type) {
			JsonMapper mapper = ArgumentCheck.this.mapper;
			try {
				Map<String, BeanProperty> properties = written(mapper, mapper.constructType(type));
				return (properties != null) ? properties.keySet()
						: "which is written differently (by a serializer of its own)";
			}
			catch (JacksonException ex) {
				return "which cannot be written to JSON (" + ex.getOriginalMessage() + ")";
			}
		}

	};

	ArgumentCheck(JsonMapper mapper, Map<JavaType, Need> needs) {
		this.mapper = mapper;
		this.needs = Map.copyOf(needs);
	}

	/**
	 * @param value an argument, or a part of one
	 * @param type its declared type
	 * @throws Refusal saying why the value would not come back equal
	 */
	void check(Object value, JavaType type) {
		Need need = this.needs.get(type);
		if (need != null) {
			check(value, type, need);
		}
	}

	private void check(Object value, JavaType type, Need need) {
		if (need instanceof Bean bean) {
			Object writes = (value.getClass() != bean.declared()) ? this.writes.get(value.getClass()) : null;
			if (writes instanceof String || (writes instanceof Set<?> names && !bean.written().containsAll(names))) {
				throw refusal(value.getClass(), bean, writes);
			}
			for (Part part : bean.parts()) {
				Object property;
				try {
					property = part.getter().getValue(value);
				}
				catch (Exception ex) {
					// Writing the argument calls the same getter next, and reports it as Jackson does.
					continue;
				}
				at(property, part.type(), part);
			}
		}
		else if (need instanceof Subtypes subtypes) {
			Need subtype = subtypes.subtypes().get(value.getClass());
			if (subtype == null) {
				throw new Refusal("is declared " + ClassUtils.getShortName(subtypes.declared()) + ", and holds a "
						+ ClassUtils.getShortName(value.getClass()) + ", which is not one of the subtypes Jackson knows"
						+ " for it (" + subtypes.subtypes().keySet().stream().map(ClassUtils::getShortName).sorted()
							.collect(Collectors.joining(", "))
						+ "), so its JSON could not be read back; list it in @JsonSubTypes");
			}
			check(value, type, subtype);
		}
		else if (need == Need.JSON_VALUES) {
			jsonValue(value, type);
		}
		else if (need == Need.CONTENT) {
			contents(value, type.getContentType());
		}
	}

	/** A subclass of the declared class that writes more than it, or writes otherwise. */
	private static Refusal refusal(Class<?> type, Bean bean, Object writes) {
		String declared = ClassUtils.getShortName(bean.declared());
		String actual = ClassUtils.getShortName(type);
		List<String> lost = (writes instanceof Set<?> names) ? names.stream()
			.filter((name) -> !bean.written().contains(name))
			.map((name) -> "'" + name + "'")
			.toList() : List.of();
		String why = lost.isEmpty() ? (String) writes : "whose " + ((lost.size() == 1) ? "property " : "properties ")
				+ String.join(", ", lost) + " would be lost";
		return new Refusal("is declared " + declared + ", and holds a " + actual + ", " + why + ": arguments are stored"
				+ " as JSON and read back as their declared type; declare it as " + actual + ", or pass a " + declared);
	}

	/** The content of an {@code Optional}, {@code AtomicReference}, array, {@code Iterable} or {@code Map}. */
	private void contents(Object value, JavaType content) {
		if (value instanceof Optional<?> optional) {
			at(optional.orElse(null), content, GET);
		}
		else if (value instanceof AtomicReference<?> reference) {
			at(reference.get(), content, GET);
		}
		else if (value instanceof Map<?, ?> map) {
			map.forEach((key, element) -> at(element, content, key));
		}
		else {
			int index = 0;
			for (Object element : (value instanceof Object[] array) ? Arrays.asList(array) : (Iterable<?>) value) {
				at(element, content, index++);
			}
		}
	}

	/**
	 * A value in an {@code Object} (or {@code Number}) slot: its JSON carries no type, so it comes
	 * back as what JSON makes of it ({@code String}, {@code Boolean}, the smallest of {@code Integer},
	 * {@code Long} and {@code BigInteger} that holds an integer, {@code Double}, {@code List},
	 * {@code Map} with {@code String} keys, as the application's mapper reads them). Maps and lists
	 * are opened; any other value makes the round trip through JSON text, and must come back equal.
	 */
	private void jsonValue(Object value, JavaType slot) {
		if (value instanceof Map<?, ?> || value instanceof List<?>) {
			for (Object key : (value instanceof Map<?, ?> map) ? map.keySet() : Set.of()) {
				if (!(key instanceof String)) {
					throw new Refusal("holds a map with the key " + described(key) + ", which would come back as a"
							+ " String: a map in an Object slot comes back with String keys; declare the map's type");
				}
			}
			contents(value, slot);
			return;
		}
		String back;
		try {
			Object read = this.mapper.readValue(this.mapper.writeValueAsString(value), Object.class);
			back = value.equals(read) ? null : described(read);
		}
		catch (JacksonException ex) {
			back = "something else, or not at all (" + ex.getOriginalMessage() + ")";
		}
		if (back != null) {
			throw new Refusal("holds " + described(value) + ", which would come back as " + back + ": a value in an"
					+ " Object slot comes back as what JSON makes of it (a String, Boolean, Integer, Long, Double, List"
					+ " or Map); declare the slot's type");
		}
	}

	/**
	 * Checks a part of a value, if it has one.
	 * @param step for a refusal's path only: the {@link Part}, {@link #GET}, an element's index or a
	 * map's key
	 */
	private void at(@Nullable Object part, JavaType type, @Nullable Object step) {
		if (part != null) {
			try {
				check(part, type);
			}
			catch (Refusal refusal) {
				refusal.path.insert(0, (step instanceof Part property) ? "." + property.name() : (step == GET) ? ".get()"
						: (step instanceof String key) ? "[\"" + key + "\"]" : "[" + step + "]");
				throw refusal;
			}
		}
	}

	/**
	 * The properties a type is written with, by name, in the order they are written, as its
	 * serializer reports them to a format visitor (unwrapped ones among them).
	 * @return {@code null} if the type is written as one value rather than an object of properties
	 */
	static @Nullable Map<String, BeanProperty> written(JsonMapper mapper, JavaType type) {
		Map<String, BeanProperty> properties = new LinkedHashMap<>();
		List<Boolean> object = new ArrayList<>(1);
		mapper.acceptJsonFormatVisitor(type, new JsonFormatVisitorWrapper.Base() {

			@Override
			public JsonObjectFormatVisitor expectObjectFormat(JavaType objectType) {
				object.add(true);
				return new JsonObjectFormatVisitor.Base(getContext()) {

					@Override
					public void property(BeanProperty property) {
						properties.put(property.getName(), property);
					}

					@Override
					public void optionalProperty(BeanProperty property) {
						properties.put(property.getName(), property);
					}

				};
			}

		});
		return object.isEmpty() ? null : properties;
	}

	/** A value as messages name it: "a Long (5)", "an Integer (5)". */
	private static String described(@Nullable Object value) {
		if (value == null) {
			return "null";
		}
		String type = ClassUtils.getShortName(value.getClass());
		String text = String.valueOf(value);
		return ("AEIOU".indexOf(type.charAt(0)) >= 0 ? "an " : "a ") + type + " ("
				+ ((text.length() <= 60) ? text : text.substring(0, 60) + "...") + ")";
	}

	/** What the values of a type need at each call. */
	sealed interface Need permits Need.Kind, Bean, Subtypes {

		/** An {@code Object} slot's values, a container's content, or, for a subtype, nothing. */
		Need JSON_VALUES = Kind.JSON_VALUES, CONTENT = Kind.CONTENT, NONE = Kind.NONE;

		enum Kind implements Need {

			JSON_VALUES, CONTENT, NONE

		}

	}

	/**
	 * A bean or record that is not final, or has properties that need checks.
	 * @param written the properties the declared class writes (and reads back)
	 */
	record Bean(Class<?> declared, Set<String> written, List<Part> parts) implements Need {
	}

	/** A type whose JSON names its subtype: the concrete subtypes Jackson knows, with their needs. */
	record Subtypes(Class<?> declared, Map<Class<?>, Need> subtypes) implements Need {
	}

	/** A property whose values need checks, read through the member Jackson writes it from. */
	record Part(String name, AnnotatedMember getter, JavaType type) {
	}

	/**
	 * An argument refused at a call: the reason, and where in the argument the value sits, added
	 * on the way out. Only ever thrown to be turned into the caller's exception, so it has no stack.
	 */
	static final class Refusal extends RuntimeException {

		private final StringBuilder path = new StringBuilder();

		Refusal(String reason) {
			super(reason, null, false, false);
		}

		/** Where in the argument the refused value sits: {@code .customer.tags[2]}, or "". */
		String path() {
			return this.path.toString();
		}

	}

}
