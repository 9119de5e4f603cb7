package io.github.wheeltimer.durable.arguments;

import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.ser.AnyGetterWriter;
import tools.jackson.databind.ser.BeanPropertyWriter;
import tools.jackson.databind.ser.PropertyWriter;
import tools.jackson.databind.ser.bean.BeanSerializerBase;

import org.springframework.util.ClassUtils;

/**
 * What an argument must pass at each durable call where its parameter's declared type does not
 * say all: an argument whose class is a subclass that writes more properties than the declared
 * type reads back, and values in {@code Object} slots ({@code Map<String, Object>}) that would
 * not come back as themselves. {@link ParameterProof} builds the checks at startup, for the parts
 * of a parameter's type that need one and nowhere else; a check that refuses a value throws a
 * {@link Refusal}, which {@link ArgumentCodec#write} turns into the caller's exception.
 * <p>
 * Runs in the callers' threads, any number at once, and is thread-safe: a check's fields are
 * final and set at startup, before the {@link ArgumentCodec} that holds it is published (the
 * check of a recursive part is settled before the proof returns), the mapper is thread-safe, and
 * the only thing a check learns afterwards, its verdict on each class it meets, is kept in a
 * {@link ClassValue}.
 */
abstract class ArgumentCheck {

	/** Nothing to check, where a map needs a value. */
	static final ArgumentCheck NONE = new ArgumentCheck() {

		@Override
		void check(Object value) {
		}

	};

	/**
	 * @throws Refusal saying why the value would not come back equal
	 */
	abstract void check(Object value);

	/**
	 * A bean or record: the argument's class, when it is not the declared one, must write no
	 * property the declared class does not read (the JSON is read back as the declared class, so
	 * those would be lost); then its properties that need checking.
	 * @param written the properties the declared class writes (and reads back)
	 * @param properties the getters whose values need checking, in order, with their checks
	 */
	static ArgumentCheck bean(JsonMapper mapper, Class<?> declared, Set<String> written,
			Map<BeanPropertyWriter, ArgumentCheck> properties) {
		return new Bean(mapper, declared, written, properties);
	}

	/** The elements of an array or an {@code Iterable}. */
	static ArgumentCheck elements(ArgumentCheck elements) {
		return new ArgumentCheck() {

			@Override
			void check(Object value) {
				checkElements(elements, (value instanceof Object[] array) ? Arrays.asList(array) : (Iterable<?>) value);
			}

		};
	}

	/** The values of a {@code Map}. */
	static ArgumentCheck mapValues(ArgumentCheck values) {
		return new ArgumentCheck() {

			@Override
			void check(Object value) {
				for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
					checkAt(values, entry.getValue(), entry.getKey());
				}
			}

		};
	}

	/** The content of an {@code Optional} or an {@code AtomicReference}, or the value itself. */
	static ArgumentCheck reference(ArgumentCheck content) {
		return new ArgumentCheck() {

			@Override
			void check(Object value) {
				Object inside = (value instanceof Optional<?> optional) ? optional.orElse(null)
						: (value instanceof AtomicReference<?> reference) ? reference.get() : value;
				checkPart(content, inside, ".get()");
			}

		};
	}

	/**
	 * A type whose JSON names its subtype ({@code @JsonTypeInfo}): the argument must be of one of
	 * the subtypes Jackson knows, and pass its check.
	 */
	static ArgumentCheck subtypes(Class<?> declared, Map<Class<?>, ArgumentCheck> subtypes) {
		return new Subtypes(declared, subtypes);
	}

	/** An {@code Object} (or {@code Number}) slot: see {@link JsonValueCheck}. */
	static ArgumentCheck jsonValues(JsonMapper mapper) {
		return new JsonValueCheck(mapper);
	}

	/**
	 * A part of a type that is recursive: checked with the check its proof ends with, which is
	 * not known yet when the part is met.
	 */
	static ArgumentCheck later(Supplier<@Nullable ArgumentCheck> proven) {
		return new ArgumentCheck() {

			@Override
			void check(Object value) {
				ArgumentCheck check = proven.get();
				if (check != null) {
					check.check(value);
				}
			}

		};
	}

	/** Checks a part of a value, if it has one; {@code step} goes into a refusal only. */
	private static void checkPart(ArgumentCheck check, @Nullable Object part, String step) {
		if (part != null) {
			try {
				check.check(part);
			}
			catch (Refusal refusal) {
				throw refusal.at(step);
			}
		}
	}

	/** Checks an element or a map value; its index or key is written into a refusal only. */
	static void checkAt(ArgumentCheck check, @Nullable Object value, @Nullable Object indexOrKey) {
		if (value != null) {
			try {
				check.check(value);
			}
			catch (Refusal refusal) {
				throw refusal.at("[" + key(indexOrKey) + "]");
			}
		}
	}

	static void checkElements(ArgumentCheck check, Iterable<?> elements) {
		int index = 0;
		for (Object element : elements) {
			checkAt(check, element, index++);
		}
	}

	private static final class Bean extends ArgumentCheck {

		private final JsonMapper mapper;

		private final Class<?> declared;

		private final Set<String> written;

		private final Property[] properties;

		/** For each subclass met: why it would not come back, or "" if it would. */
		private final ClassValue<String> verdicts = new ClassValue<>() {

			@Override
			protected String computeValue(Class<?> type) {
				return verdict(type);
			}

		};

		Bean(JsonMapper mapper, Class<?> declared, Set<String> written,
				Map<BeanPropertyWriter, ArgumentCheck> properties) {
			this.mapper = mapper;
			this.declared = declared;
			this.written = Set.copyOf(written);
			this.properties = properties.entrySet()
				.stream()
				.map((property) -> new Property(property.getKey(), property.getValue()))
				.toArray(Property[]::new);
		}

		@Override
		void check(Object value) {
			Class<?> type = value.getClass();
			if (type != this.declared) {
				String verdict = this.verdicts.get(type);
				if (!verdict.isEmpty()) {
					String declared = ClassUtils.getShortName(this.declared);
					String actual = ClassUtils.getShortName(type);
					throw new Refusal("is declared " + declared + ", and holds a " + actual + ", " + verdict
							+ ": arguments are stored as JSON and read back as their declared type; declare it as "
							+ actual + ", or pass a " + declared);
				}
			}
			for (Property property : this.properties) {
				property.check(value);
			}
		}

		private String verdict(Class<?> type) {
			ValueSerializer<Object> serializer;
			try {
				serializer = this.mapper._serializationContext().findValueSerializer(type);
			}
			catch (JacksonException ex) {
				return "which cannot be written to JSON (" + ex.getOriginalMessage() + ")";
			}
			if (!(serializer instanceof BeanSerializerBase)) {
				return "which is written differently (by a serializer of its own)";
			}
			Set<String> lost = new LinkedHashSet<>();
			for (Iterator<PropertyWriter> it = serializer.properties(); it.hasNext();) {
				PropertyWriter property = it.next();
				if (property instanceof AnyGetterWriter || !this.written.contains(property.getName())) {
					lost.add((property instanceof AnyGetterWriter) ? "@JsonAnyGetter" : property.getName());
				}
			}
			if (lost.isEmpty()) {
				return "";
			}
			return "whose " + ((lost.size() == 1) ? "property " : "properties ") + quoted(lost) + " would be lost";
		}

	}

	private static final class Property {

		private final String step;

		private final BeanPropertyWriter getter;

		private final ArgumentCheck check;

		Property(BeanPropertyWriter getter, ArgumentCheck check) {
			this.step = "." + getter.getName();
			this.getter = getter;
			this.check = check;
		}

		void check(Object bean) {
			Object value;
			try {
				value = this.getter.get(bean);
			}
			catch (Exception ex) {
				// Writing the argument calls the same getter next, and reports it as Jackson does.
				return;
			}
			checkPart(this.check, value, this.step);
		}

	}

	private static final class Subtypes extends ArgumentCheck {

		private final Class<?> declared;

		private final Map<Class<?>, ArgumentCheck> subtypes;

		Subtypes(Class<?> declared, Map<Class<?>, ArgumentCheck> subtypes) {
			this.declared = declared;
			this.subtypes = Map.copyOf(subtypes);
		}

		@Override
		void check(Object value) {
			ArgumentCheck check = this.subtypes.get(value.getClass());
			if (check == null) {
				String known = this.subtypes.keySet()
					.stream()
					.map(ClassUtils::getShortName)
					.sorted()
					.collect(Collectors.joining(", "));
				throw new Refusal("is declared " + ClassUtils.getShortName(this.declared) + ", and holds a "
						+ ClassUtils.getShortName(value.getClass()) + ", which is not one of the subtypes Jackson knows"
						+ " for it (" + known + "), so its JSON could not be read back; list it in @JsonSubTypes");
			}
			check.check(value);
		}

	}

	/** A value as messages name it: "a Long (5)", "an Integer (5)". */
	static String described(@Nullable Object value) {
		if (value == null) {
			return "null";
		}
		String type = ClassUtils.getShortName(value.getClass());
		String text = String.valueOf(value);
		return ("AEIOU".indexOf(type.charAt(0)) >= 0 ? "an " : "a ") + type + " ("
				+ ((text.length() <= 60) ? text : text.substring(0, 60) + "...") + ")";
	}

	private static String key(@Nullable Object key) {
		return (key instanceof String) ? "\"" + key + "\"" : String.valueOf(key);
	}

	private static String quoted(Collection<String> names) {
		return names.stream().map((name) -> "'" + name + "'").collect(Collectors.joining(", "));
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

		private Refusal at(String step) {
			this.path.insert(0, step);
			return this;
		}

		/** Where in the argument the refused value sits: {@code .customer.tags[2]}, or "". */
		String path() {
			return this.path.toString();
		}

	}

}
