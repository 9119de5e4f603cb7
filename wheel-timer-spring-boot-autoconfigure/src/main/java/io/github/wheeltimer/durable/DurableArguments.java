package io.github.wheeltimer.durable;

import java.io.StringWriter;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.AnnotationIntrospector;
import tools.jackson.databind.DeserializationConfig;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.PropertyName;
import tools.jackson.databind.SerializationConfig;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.cfg.DateTimeFeature;
import tools.jackson.databind.deser.AbstractDeserializer;
import tools.jackson.databind.deser.CreatorProperty;
import tools.jackson.databind.deser.SettableBeanProperty;
import tools.jackson.databind.deser.ValueInstantiator;
import tools.jackson.databind.deser.bean.BeanDeserializerBase;
import tools.jackson.databind.introspect.AnnotatedMember;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.jsontype.NamedType;
import tools.jackson.databind.ser.AnyGetterWriter;
import tools.jackson.databind.ser.BeanPropertyWriter;
import tools.jackson.databind.ser.PropertyWriter;
import tools.jackson.databind.ser.bean.BeanSerializerBase;
import tools.jackson.databind.ser.impl.UnknownSerializer;
import tools.jackson.databind.type.LogicalType;

import org.springframework.util.ClassUtils;

/**
 * The arguments of one durable method as JSON: an array with one element per parameter, each
 * written and read with the parameter's declared (generic) type. No class names are stored, so a
 * row stays readable when classes move, and a row can only ever become an instance of the type
 * the method declares.
 * <p>
 * Arguments are kept by value, so a call runs with arguments equal to those it was made with, or
 * not at all. Three things see to it:
 * <ul>
 * <li>at startup, each parameter type is proven to make the round trip: every property Jackson
 * writes is read back, every property it can read is written, down through properties, elements
 * and map values, as the application's mapper (its annotations, naming strategy and modules)
 * resolves them. A type that fails says why and what to change;</li>
 * <li>at each call, in the caller's thread, what the declared types cannot tell: an argument
 * whose class is a subclass with more properties than the declared type, and values in
 * {@code Object} slots ({@code Map<String, Object>}) that would not come back as themselves;</li>
 * <li>when the call runs, a row is read strictly: text after the array, a fraction for an
 * integer, {@code null} for a primitive, or a property the type does not have make it
 * unreadable.</li>
 * </ul>
 * Immutable and thread-safe: the readers, writers and checks are built once, at startup; the
 * checks remember their verdict on each class they meet.
 */
final class DurableArguments {

	private final JsonMapper mapper;

	private final String method;

	private final String[] names;

	private final JavaType[] types;

	private final ObjectWriter[] writers;

	private final ObjectReader[] readers;

	/** What each argument's classes must pass at each call; {@code null} where its declared type says all. */
	private final @Nullable Check[] checks;

	/**
	 * The mapper durable arguments are written and read with, derived once from the application's:
	 * the same modules, annotations and naming, set to keep values equal. The application's mapper
	 * is not changed.
	 * <p>
	 * Dates keep their zone and offset; nothing is truncated or left out for being null or empty;
	 * a row is read strictly (no fraction into an integer, no {@code null} or empty string into a
	 * number, no unknown property). A string holding a number is still read into a number: that
	 * loses nothing, and rows of applications that write numbers as strings must stay readable.
	 * @param application the application's mapper
	 * @return the mapper for durable arguments
	 */
	static JsonMapper mapperFor(JsonMapper application) {
		JsonInclude.Value always = JsonInclude.Value.construct(JsonInclude.Include.ALWAYS, JsonInclude.Include.ALWAYS);
		return application.rebuild()
			.enable(DateTimeFeature.WRITE_DATES_WITH_ZONE_ID)
			.disable(DateTimeFeature.WRITE_DATES_AS_TIMESTAMPS, DateTimeFeature.WRITE_DATES_WITH_CONTEXT_TIME_ZONE,
					DateTimeFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE, DateTimeFeature.NORMALIZE_DESERIALIZED_ZONE_ID,
					DateTimeFeature.TRUNCATE_TO_MSECS_ON_WRITE, DateTimeFeature.TRUNCATE_TO_MSECS_ON_READ)
			.changeDefaultPropertyInclusion((inclusion) -> always)
			.disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
			.enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES,
					DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
			.withCoercionConfig(LogicalType.Integer,
					(coercion) -> coercion.setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail))
			.withCoercionConfig(LogicalType.Float,
					(coercion) -> coercion.setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail))
			.build();
	}

	/**
	 * @param mapper the mapper {@link #mapperFor(JsonMapper)} returned
	 * @param method the durable method
	 * @throws IllegalArgumentException naming the parameter if its type cannot make the round
	 * trip through JSON, with the reason and what to change
	 */
	DurableArguments(JsonMapper mapper, Method method) {
		this.mapper = mapper;
		this.method = describe(method);
		Type[] parameters = method.getGenericParameterTypes();
		this.names = new String[parameters.length];
		this.types = new JavaType[parameters.length];
		this.writers = new ObjectWriter[parameters.length];
		this.readers = new ObjectReader[parameters.length];
		this.checks = new Check[parameters.length];
		Proof proof = new Proof(mapper);
		for (int i = 0; i < parameters.length; i++) {
			JavaType type = mapper.constructType(parameters[i]);
			this.names[i] = method.getParameters()[i].getName();
			this.types[i] = type;
			this.checks[i] = proof.parameter(type, "parameter " + i + " (" + type.toCanonical() + ")", this.names[i]);
			this.writers[i] = mapper.writerFor(type);
			// Each reader reads one element of the array, with the rest of the array after it.
			this.readers[i] = mapper.readerFor(type).without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
		}
	}

	/**
	 * Runs in the caller's thread, once per call.
	 * @throws IllegalArgumentException naming the method, the parameter and the classes, for an
	 * argument that would not come back equal
	 */
	String write(@Nullable Object[] arguments) {
		for (int i = 0; i < arguments.length; i++) {
			Check check = this.checks[i];
			Object argument = arguments[i];
			if (check != null && argument != null) {
				try {
					check.check(argument);
				}
				catch (Refusal refusal) {
					throw new IllegalArgumentException("Durable call to " + this.method + " was not accepted:"
							+ " parameter " + i + " (" + this.names[i] + refusal.path() + ") " + refusal.getMessage());
				}
			}
		}
		StringWriter json = new StringWriter(16 + 16 * arguments.length);
		try (JsonGenerator generator = this.mapper.createGenerator(json)) {
			generator.writeStartArray();
			for (int i = 0; i < arguments.length; i++) {
				this.writers[i].writeValue(generator, arguments[i]);
			}
			generator.writeEndArray();
		}
		return json.toString();
	}

	/**
	 * Reads a row's arguments back, when its call runs.
	 * @throws IllegalArgumentException saying why the row cannot be read any more
	 */
	@Nullable Object[] read(String json) {
		@Nullable Object[] arguments = new Object[this.types.length];
		int reading = -1;
		try (JsonParser parser = this.mapper.createParser(json)) {
			if (parser.nextToken() != JsonToken.START_ARRAY) {
				throw new IllegalArgumentException("the arguments are not a JSON array: " + abbreviate(json));
			}
			for (int i = 0; i < arguments.length; i++) {
				if (parser.nextToken() == JsonToken.END_ARRAY) {
					throw new IllegalArgumentException("the row has " + i + " arguments, the method takes "
							+ arguments.length + ": " + abbreviate(json));
				}
				reading = i;
				arguments[i] = this.readers[i].readValue(parser);
			}
			reading = -1;
			if (parser.nextToken() != JsonToken.END_ARRAY) {
				throw new IllegalArgumentException("the row has more arguments than the " + arguments.length
						+ " the method takes: " + abbreviate(json));
			}
			if (!atEnd(parser)) {
				throw new IllegalArgumentException("the arguments' JSON array is followed by more text: "
						+ abbreviate(json));
			}
		}
		catch (JacksonException ex) {
			String parameter = (reading >= 0)
					? "parameter " + reading + " (" + this.types[reading].toCanonical() + "): " : "";
			throw new IllegalArgumentException("the arguments cannot be read as the method's parameter types: "
					+ parameter + reason(ex) + ": " + abbreviate(json), ex);
		}
		return arguments;
	}

	private static boolean atEnd(JsonParser parser) {
		try {
			return parser.nextToken() == null;
		}
		catch (JacksonException notJson) {
			return false;
		}
	}

	/**
	 * Jackson's message without its advice to change a feature: the features are this class's,
	 * and changing the application's mapper would not change them.
	 */
	private static String reason(JacksonException ex) {
		String message = String.valueOf(ex.getOriginalMessage());
		int advice = message.lastIndexOf(" (");
		if (advice > 0 && message.endsWith(")")) {
			String tail = message.substring(advice);
			if (tail.contains("Feature") || tail.contains("CoercionConfig")) {
				return message.substring(0, advice);
			}
		}
		return message;
	}

	private static String abbreviate(String json) {
		return (json.length() <= 200) ? json : json.substring(0, 200) + "...";
	}

	private static String describe(Method method) {
		return ClassUtils.getShortName(method.getDeclaringClass()) + "." + method.getName()
				+ Arrays.stream(method.getParameterTypes())
					.map(ClassUtils::getShortName)
					.collect(Collectors.joining(", ", "(", ")"));
	}

	private static String quoted(Collection<String> names) {
		return names.stream().map((name) -> "'" + name + "'").collect(Collectors.joining(", "));
	}

	/**
	 * Proves, at startup, that the types of one method's parameters make the round trip, and
	 * builds the checks their arguments need at each call. Single-threaded; thrown away once the
	 * method is registered.
	 * <p>
	 * A type is taken as Jackson resolves it for this mapper: a bean (or record) is compared
	 * property by property between the serializer and the deserializer, a container through its
	 * elements, keys and values, and a type that Jackson or the application writes and reads as a
	 * single value (numbers, strings, dates, enums, types with {@code @JsonValue} or a serializer
	 * of their own) is taken as it is.
	 */
	private static final class Proof {

		private final JsonMapper mapper;

		private final SerializationContext writing;

		private final DeserializationContext reading;

		/** Each type once; a type met again while it is being proven (a tree of nodes) is checked lazily. */
		private final Map<JavaType, Proven> proven = new HashMap<>();

		private @Nullable JsonValues jsonValues;

		Proof(JsonMapper mapper) {
			this.mapper = mapper;
			this.writing = mapper._serializationContext();
			this.reading = mapper._deserializationContext();
		}

		@Nullable Check parameter(JavaType type, String what, String name) {
			if (type.isJavaLangObject() || type.hasRawClass(Number.class)) {
				throw new IllegalArgumentException(what + " is declared " + type.getRawClass().getSimpleName()
						+ ", so its JSON carries no type: the argument would come back as whatever JSON makes of it (a"
						+ " String, a number, a List or a Map); declare the parameter's type");
			}
			try {
				return prove(type, new Where(what, name, type, false));
			}
			catch (JacksonException ex) {
				throw new IllegalArgumentException(what + " cannot be written to or read from JSON: "
						+ ex.getOriginalMessage(), ex);
			}
		}

		private @Nullable Check prove(JavaType type, Where where) {
			Proven known = this.proven.get(type);
			if (known != null) {
				return (known.done) ? known.check : new Later(known);
			}
			Proven proving = new Proven();
			this.proven.put(type, proving);
			proving.check = classify(type, where);
			proving.done = true;
			return proving.check;
		}

		private @Nullable Check classify(JavaType type, Where where) {
			if (type.isJavaLangObject() || type.hasRawClass(Number.class)) {
				return jsonValues();
			}
			if (type.isPrimitive() || type.isEnumType()) {
				return null;
			}
			if (type.isReferenceType()) {
				return reference(type, where);
			}
			if (type.isArrayType() || type.isCollectionLikeType()) {
				return elements(type, where);
			}
			if (type.isMapLikeType()) {
				return map(type, where);
			}
			if (this.reading.findTypeDeserializer(type) != null) {
				return polymorphic(type, where);
			}
			return value(type, where);
		}

		private @Nullable Check reference(JavaType type, Where where) {
			lookUp(type);
			Check content = prove(type.getReferencedType(), where.into(".get()", type.getReferencedType()));
			if (content == null) {
				return null;
			}
			if (!type.hasRawClass(Optional.class) && !type.hasRawClass(AtomicReference.class)) {
				throw unopenable(type, where);
			}
			return new ReferenceCheck(content);
		}

		private @Nullable Check elements(JavaType type, Where where) {
			lookUp(type);
			Check content = prove(type.getContentType(), where.into("[]", type.getContentType()));
			if (content == null) {
				return null;
			}
			if (!type.isArrayType() && !Iterable.class.isAssignableFrom(type.getRawClass())) {
				throw unopenable(type, where);
			}
			return new ElementsCheck(content);
		}

		private @Nullable Check map(JavaType type, Where where) {
			JavaType key = type.getKeyType();
			if (key.isJavaLangObject()) {
				throw new IllegalArgumentException(where + " has map keys declared Object, which JSON brings back as"
						+ " Strings; declare the key type");
			}
			if (!key.isEnumType() && !key.isPrimitive()
					&& this.writing.findValueSerializer(key) instanceof BeanSerializerBase) {
				throw new IllegalArgumentException(where + " has map keys of " + key.toCanonical() + ", which JSON"
						+ " keys hold as their toString() and cannot read back; key the map by a String, a number, an"
						+ " enum, a UUID or a date");
			}
			lookUp(type);
			Check values = prove(type.getContentType(), where.into("[]", type.getContentType()));
			if (values == null) {
				return null;
			}
			if (!Map.class.isAssignableFrom(type.getRawClass())) {
				throw unopenable(type, where);
			}
			return new MapValuesCheck(values);
		}

		/**
		 * A type whose JSON names its subtype ({@code @JsonTypeInfo}): each subtype Jackson knows is
		 * proven, and an argument must be of one of them.
		 */
		private Check polymorphic(JavaType type, Where where) {
			DeserializationConfig config = this.reading.getConfig();
			Collection<NamedType> named = config.getSubtypeResolver()
				.collectAndResolveSubtypesByClass(config, this.reading.introspectClassAnnotations(type));
			Map<Class<?>, Check> subtypes = new LinkedHashMap<>();
			for (NamedType subtype : named) {
				Class<?> raw = subtype.getType();
				if (type.getRawClass().isAssignableFrom(raw) && !Modifier.isAbstract(raw.getModifiers())
						&& !raw.isInterface()) {
					JavaType concrete = this.reading.getTypeFactory().constructSpecializedType(type, raw);
					Check check = value(concrete, where.into(" as " + raw.getSimpleName(), concrete));
					subtypes.put(raw, (check != null) ? check : Check.NONE);
				}
			}
			if (subtypes.isEmpty()) {
				throw new IllegalArgumentException(where + " names its subtype in its JSON (@JsonTypeInfo), but Jackson"
						+ " knows none of its concrete subtypes; list them in @JsonSubTypes");
			}
			return new SubtypesCheck(type.getRawClass(), subtypes);
		}

		/** A type Jackson writes as one value or as an object of properties. */
		private @Nullable Check value(JavaType type, Where where) {
			ValueDeserializer<Object> deserializer = this.reading.findContextualValueDeserializer(type, null);
			ValueSerializer<Object> serializer = this.writing.findValueSerializer(type);
			if (deserializer instanceof AbstractDeserializer) {
				throw new IllegalArgumentException(where + " is abstract and its JSON would carry no type to read it"
						+ " back as; declare a concrete type (a record, say)");
			}
			if (serializer instanceof UnknownSerializer) {
				throw new IllegalArgumentException(where + " has no properties to write to JSON; declare a record or a"
						+ " class with getters");
			}
			if (!(deserializer instanceof BeanDeserializerBase bean)) {
				return null;
			}
			ValueInstantiator instantiator = bean.getValueInstantiator();
			if (!instantiator.canInstantiate()) {
				throw new IllegalArgumentException(where + " cannot be created from JSON: it has no default constructor"
						+ " and no @JsonCreator; declare a record or add one");
			}
			if (!(serializer instanceof BeanSerializerBase beanSerializer)) {
				if (!readsAValue(instantiator)) {
					throw new IllegalArgumentException(where + " is written as a single value (by @JsonValue or a"
							+ " serializer of its own) but can only be read from a JSON object; give it a @JsonCreator"
							+ " that takes that value");
				}
				return null;
			}
			if (instantiator.canCreateUsingDelegate() && !instantiator.canCreateFromObjectWith()) {
				JavaType delegate = instantiator.getDelegateType(this.reading.getConfig());
				if (delegate != null && !readsAnObject(delegate)) {
					throw new IllegalArgumentException(where + " is written as an object of properties, but its"
							+ " @JsonCreator takes one " + delegate.toCanonical() + "; give it a @JsonValue that"
							+ " returns that, or a creator that takes its properties");
				}
				// A creator of the class's own that takes the whole object: it knows what it reads.
				return null;
			}
			return bean(type, bean, beanSerializer, where);
		}

		/**
		 * Compares what the serializer writes with what the deserializer reads, property by
		 * property: both sides as Jackson resolved them, so renames, naming strategies, ignorals
		 * and mix-ins count.
		 */
		private @Nullable Check bean(JavaType type, BeanDeserializerBase reader, BeanSerializerBase writer,
				Where where) {
			Set<String> derived = derived(type);
			Set<String> written = new LinkedHashSet<>();
			List<String> problems = new ArrayList<>();
			List<PropertyCheck> checks = new ArrayList<>();
			for (Iterator<PropertyWriter> it = writer.properties(); it.hasNext();) {
				PropertyWriter property = it.next();
				if (property instanceof AnyGetterWriter) {
					if (!reader.hasAnySetter()) {
						problems.add("the entries of its @JsonAnyGetter are written but nothing reads them back (it has"
								+ " no @JsonAnySetter)");
					}
					continue;
				}
				written.add(property.getName());
				String problem = readBack(property, reader, derived, where, checks);
				if (problem != null) {
					problems.add(problem);
				}
			}
			for (Iterator<SettableBeanProperty> it = reader.properties(); it.hasNext();) {
				SettableBeanProperty settable = it.next();
				if (settable.getInjectableValueId() == null && !written.contains(settable.getName())) {
					problems.add((settable instanceof CreatorProperty)
							? "its constructor takes '" + settable.getName() + "', which is never written (no getter"
									+ " or visible field gives it)"
							: "'" + settable.getName() + "' can be set but is never written (it has no getter)");
				}
			}
			if (!problems.isEmpty()) {
				throw new IllegalArgumentException(where + " would not come back as it was written: "
						+ String.join("; ", problems) + ". Make what is written and what is read the same properties:"
						+ " a getter for each constructor parameter and setter, a setter or constructor parameter for"
						+ " each getter, and @JsonIgnore or @JsonProperty(access = READ_ONLY) on getters derived from"
						+ " the others (a record does all this)");
			}
			if (Modifier.isFinal(type.getRawClass().getModifiers()) && checks.isEmpty()) {
				return null;
			}
			return new BeanCheck(this.mapper, type.getRawClass(), written, checks.toArray(new PropertyCheck[0]));
		}

		/**
		 * Proves that one written property is read back, as a type that makes the round trip,
		 * adding the check its values need.
		 * @return what is wrong, or {@code null}
		 */
		private @Nullable String readBack(PropertyWriter property, BeanDeserializerBase reader, Set<String> derived,
				Where where, List<PropertyCheck> checks) {
			String name = property.getName();
			if (property instanceof BeanPropertyWriter getter && getter.isUnwrapping()) {
				// Its properties are the reader's own (@JsonUnwrapped): its type is proven as a whole.
				add(checks, getter, prove(getter.getType(), where.into("." + name, getter.getType())));
				return null;
			}
			SettableBeanProperty settable = reader.findProperty(PropertyName.construct(name));
			if (settable == null) {
				return (reader.hasAnySetter() || derived.contains(name)) ? null
						: "'" + name + "' is written but cannot be set back (no setter, field or constructor parameter"
								+ " takes it)";
			}
			if (customized(property, settable)) {
				return null;
			}
			JavaType writtenAs = property.getType();
			JavaType readAs = settable.getType();
			Class<?> from = ClassUtils.resolvePrimitiveIfNecessary(referenced(writtenAs).getRawClass());
			Class<?> to = ClassUtils.resolvePrimitiveIfNecessary(referenced(readAs).getRawClass());
			if (!to.isAssignableFrom(from) && !from.isAssignableFrom(to)) {
				return "'" + name + "' is written as " + writtenAs.toCanonical() + " but read back as "
						+ readAs.toCanonical();
			}
			Check check = prove(readAs, where.into("." + name, readAs));
			// A getter of Optional<T> for a T: the check sees the Optional.
			add(checks, property, (check != null && writtenAs.isReferenceType() && !readAs.isReferenceType())
					? new ReferenceCheck(check) : check);
			return null;
		}

		private static void add(List<PropertyCheck> checks, PropertyWriter property, @Nullable Check check) {
			if (check != null && property instanceof BeanPropertyWriter getter) {
				checks.add(new PropertyCheck(getter, check));
			}
		}

		/** The properties the class itself says are written and not read: values derived from the others. */
		private Set<String> derived(JavaType type) {
			Set<String> derived = new LinkedHashSet<>(
					this.reading.introspectBeanDescription(type).getIgnoredPropertyNames());
			JsonIgnoreProperties.Value ignorals = this.reading.getConfig()
				.getDefaultPropertyIgnorals(type.getRawClass(), this.reading.introspectClassAnnotations(type));
			if (ignorals != null) {
				derived.addAll(ignorals.findIgnoredForDeserialization());
			}
			return derived;
		}

		/** A property with a serializer or deserializer of the application's: how it is read is its business. */
		private boolean customized(PropertyWriter property, SettableBeanProperty settable) {
			AnnotationIntrospector introspector = this.reading.getAnnotationIntrospector();
			if (introspector == null) {
				return false;
			}
			AnnotatedMember getter = property.getMember();
			AnnotatedMember setter = settable.getMember();
			SerializationConfig writing = this.writing.getConfig();
			DeserializationConfig reading = this.reading.getConfig();
			return (getter != null && (introspector.findSerializer(writing, getter) != null
					|| introspector.findSerializationConverter(writing, getter) != null))
					|| (setter != null && (introspector.findDeserializer(reading, setter) != null
							|| introspector.findDeserializationConverter(reading, setter) != null));
		}

		private static JavaType referenced(JavaType type) {
			return (type.isReferenceType()) ? type.getReferencedType() : type;
		}

		private boolean readsAnObject(JavaType delegate) {
			return delegate.isJavaLangObject() || delegate.isMapLikeType() || delegate.isContainerType()
					|| JsonNode.class.isAssignableFrom(delegate.getRawClass())
					|| this.reading.findContextualValueDeserializer(delegate, null) instanceof BeanDeserializerBase;
		}

		private static boolean readsAValue(ValueInstantiator instantiator) {
			return instantiator.canCreateUsingDelegate() || instantiator.canCreateUsingArrayDelegate()
					|| instantiator.canCreateFromString() || instantiator.canCreateFromInt()
					|| instantiator.canCreateFromLong() || instantiator.canCreateFromBigInteger()
					|| instantiator.canCreateFromDouble() || instantiator.canCreateFromBigDecimal()
					|| instantiator.canCreateFromBoolean();
		}

		/** Makes Jackson resolve a container, so that one it cannot read or write fails here. */
		private void lookUp(JavaType type) {
			this.writing.findValueSerializer(type);
			this.reading.findContextualValueDeserializer(type, null);
		}

		private JsonValues jsonValues() {
			if (this.jsonValues == null) {
				this.jsonValues = new JsonValues(this.mapper);
			}
			return this.jsonValues;
		}

		private static IllegalArgumentException unopenable(JavaType type, Where where) {
			return new IllegalArgumentException(where + " holds values whose classes must be checked at each call,"
					+ " in a " + type.getRawClass().getName() + ", which this check cannot open; use a java.util.List,"
					+ " Set, Map or Optional, or make the values' type final (a record)");
		}

	}

	/**
	 * Where a type sits in a parameter, for messages: the parameter, and below it the path from
	 * the parameter's name ({@code prices[]}, {@code order.customer}).
	 */
	private record Where(String parameter, String path, JavaType type, boolean nested) {

		Where into(String step, JavaType inner) {
			return new Where(this.parameter, this.path + step, inner, true);
		}

		@Override
		public String toString() {
			return (this.nested) ? this.parameter + " at " + this.path + " (" + this.type.toCanonical() + ")"
					: this.parameter;
		}

	}

	/** A type being proven, or proven, with the check its values need. */
	private static final class Proven {

		@Nullable Check check;

		boolean done;

	}

	/**
	 * What a value's classes must pass at a call, where its declared type does not say all: built
	 * at startup for the parts of a parameter's type that need it, and nowhere else.
	 */
	private abstract static class Check {

		/** Nothing to check, where a map needs a value. */
		static final Check NONE = new Check() {

			@Override
			void check(Object value) {
			}

		};

		/**
		 * @throws Refusal saying why the value would not come back equal
		 */
		abstract void check(Object value);

		/** Checks an element; its index is written into a refusal only. */
		static void element(Check check, @Nullable Object element, int index) {
			if (element != null) {
				try {
					check.check(element);
				}
				catch (Refusal refusal) {
					throw refusal.at("[" + index + "]");
				}
			}
		}

		/** Checks a map's value; its key is written into a refusal only. */
		static void entry(Check check, Map.Entry<?, ?> entry) {
			if (entry.getValue() != null) {
				try {
					check.check(entry.getValue());
				}
				catch (Refusal refusal) {
					throw refusal.at("[" + key(entry.getKey()) + "]");
				}
			}
		}

	}

	/** A part of a type that is recursive, checked with what its proof ended with. */
	private static final class Later extends Check {

		private final Proven proven;

		Later(Proven proven) {
			this.proven = proven;
		}

		@Override
		void check(Object value) {
			Check check = this.proven.check;
			if (check != null) {
				check.check(value);
			}
		}

	}

	/**
	 * A bean or record: the argument's class, when it is not the declared one, must write no
	 * property the declared class does not read (the JSON is read back as the declared class, so
	 * those would be lost); then its properties that need checking.
	 */
	private static final class BeanCheck extends Check {

		private final JsonMapper mapper;

		private final Class<?> declared;

		private final Set<String> written;

		private final PropertyCheck[] properties;

		/** For each subclass met: why it would not come back, or "" if it would. */
		private final ClassValue<String> verdicts = new ClassValue<>() {

			@Override
			protected String computeValue(Class<?> type) {
				return verdict(type);
			}

		};

		BeanCheck(JsonMapper mapper, Class<?> declared, Set<String> written, PropertyCheck[] properties) {
			this.mapper = mapper;
			this.declared = declared;
			this.written = Set.copyOf(written);
			this.properties = properties;
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
			for (PropertyCheck property : this.properties) {
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

	private static final class PropertyCheck {

		private final String step;

		private final BeanPropertyWriter getter;

		private final Check check;

		PropertyCheck(BeanPropertyWriter getter, Check check) {
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
			if (value != null) {
				try {
					this.check.check(value);
				}
				catch (Refusal refusal) {
					throw refusal.at(this.step);
				}
			}
		}

	}

	private static final class ElementsCheck extends Check {

		private final Check elements;

		ElementsCheck(Check elements) {
			this.elements = elements;
		}

		@Override
		void check(Object value) {
			int index = 0;
			Iterable<?> elements = (value instanceof Object[] array) ? Arrays.asList(array) : (Iterable<?>) value;
			for (Object element : elements) {
				element(this.elements, element, index++);
			}
		}

	}

	private static final class MapValuesCheck extends Check {

		private final Check values;

		MapValuesCheck(Check values) {
			this.values = values;
		}

		@Override
		void check(Object value) {
			for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
				entry(this.values, entry);
			}
		}

	}

	private static final class ReferenceCheck extends Check {

		private final Check content;

		ReferenceCheck(Check content) {
			this.content = content;
		}

		@Override
		void check(Object value) {
			Object content = (value instanceof Optional<?> optional) ? optional.orElse(null)
					: (value instanceof AtomicReference<?> reference) ? reference.get() : value;
			if (content != null) {
				try {
					this.content.check(content);
				}
				catch (Refusal refusal) {
					throw refusal.at(".get()");
				}
			}
		}

	}

	private static final class SubtypesCheck extends Check {

		private final Class<?> declared;

		private final Map<Class<?>, Check> subtypes;

		SubtypesCheck(Class<?> declared, Map<Class<?>, Check> subtypes) {
			this.declared = declared;
			this.subtypes = Map.copyOf(subtypes);
		}

		@Override
		void check(Object value) {
			Check check = this.subtypes.get(value.getClass());
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

	/**
	 * An {@code Object} (or {@code Number}) slot, such as the values of a
	 * {@code Map<String, Object>}: its JSON carries no type, so it comes back as what JSON makes of
	 * it, {@code String}, {@code Boolean}, the smallest of {@code Integer}, {@code Long} and
	 * {@code BigInteger} that holds an integer, {@code Double}, {@code ArrayList} and
	 * {@code LinkedHashMap} (as the application's mapper reads them). A value must be one of those
	 * already; anything else (a {@code Long} that an {@code Integer} holds, a {@code Set}, a record,
	 * a date) is refused at the call rather than coming back different.
	 * <p>
	 * Which classes come back as themselves is asked of the mapper once, by a round trip of a
	 * sample of each.
	 */
	private static final class JsonValues extends Check {

		private final JsonMapper mapper;

		private final boolean strings;

		private final boolean booleans;

		private final boolean integers;

		private final boolean smallLongs;

		private final boolean longs;

		private final boolean smallBigIntegers;

		private final boolean longBigIntegers;

		private final boolean bigIntegers;

		private final boolean doubles;

		private final boolean fractions;

		private final boolean wholeDecimals;

		private final boolean lists;

		private final boolean maps;

		JsonValues(JsonMapper mapper) {
			this.mapper = mapper;
			this.strings = comesBack(mapper, "a");
			this.booleans = comesBack(mapper, Boolean.TRUE);
			this.integers = comesBack(mapper, 1);
			this.smallLongs = comesBack(mapper, 1L);
			this.longs = comesBack(mapper, Long.MAX_VALUE);
			this.smallBigIntegers = comesBack(mapper, BigInteger.ONE);
			this.longBigIntegers = comesBack(mapper, BigInteger.valueOf(Long.MAX_VALUE));
			this.bigIntegers = comesBack(mapper, BigInteger.TWO.pow(70));
			this.doubles = comesBack(mapper, 1.5);
			this.fractions = comesBack(mapper, new BigDecimal("1.5"));
			this.wholeDecimals = comesBack(mapper, new BigDecimal("15"));
			this.lists = comesBack(mapper, new ArrayList<>(List.of("a")));
			this.maps = comesBack(mapper, new LinkedHashMap<>(Map.of("a", "b")));
		}

		private static boolean comesBack(JsonMapper mapper, Object sample) {
			try {
				return sample.equals(mapper.readValue(mapper.writeValueAsString(sample), Object.class));
			}
			catch (JacksonException ex) {
				return false;
			}
		}

		@Override
		void check(Object value) {
			if (value instanceof Map<?, ?> map && this.maps) {
				for (Map.Entry<?, ?> entry : map.entrySet()) {
					if (!(entry.getKey() instanceof String)) {
						throw new Refusal("holds a map with the key " + described(entry.getKey()) + ", which would come"
								+ " back as a String: a map in an Object slot comes back with String keys; declare the"
								+ " map's type");
					}
					entry(this, entry);
				}
			}
			else if (value instanceof List<?> list && this.lists) {
				int index = 0;
				for (Object element : list) {
					element(this, element, index++);
				}
			}
			else if (!comesBack(value)) {
				throw new Refusal("holds " + described(value) + ", which would come back as " + cameBack(value)
						+ ": a value in an Object slot comes back as what JSON makes of it (a String, Boolean, Integer,"
						+ " Long, Double, List or Map); declare the slot's type");
			}
		}

		private boolean comesBack(Object value) {
			if (value instanceof String) {
				return this.strings;
			}
			if (value instanceof Boolean) {
				return this.booleans;
			}
			if (value instanceof Integer) {
				return this.integers;
			}
			if (value instanceof Long number) {
				return (number == number.intValue()) ? this.smallLongs : this.longs;
			}
			if (value instanceof Double number) {
				return Double.isFinite(number) && this.doubles;
			}
			if (value instanceof BigInteger number) {
				return (number.bitLength() < 32) ? this.smallBigIntegers
						: (number.bitLength() < 64) ? this.longBigIntegers : this.bigIntegers;
			}
			if (value instanceof BigDecimal number) {
				return (number.scale() > 0) ? this.fractions : this.wholeDecimals;
			}
			return false;
		}

		/** Only on a refusal: what the value would have become. */
		private String cameBack(Object value) {
			try {
				return described(this.mapper.readValue(this.mapper.writeValueAsString(value), Object.class));
			}
			catch (JacksonException ex) {
				return "something else, or not at all (" + ex.getOriginalMessage() + ")";
			}
		}

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

	private static String key(@Nullable Object key) {
		return (key instanceof String) ? "\"" + key + "\"" : String.valueOf(key);
	}

	/**
	 * An argument refused at a call: the reason, and where in the argument the value sits, added
	 * on the way out. Only ever thrown to be turned into the caller's exception, so it has no stack.
	 */
	private static final class Refusal extends RuntimeException {

		private final StringBuilder path = new StringBuilder();

		Refusal(String reason) {
			super(reason, null, false, false);
		}

		Refusal at(String step) {
			this.path.insert(0, step);
			return this;
		}

		String path() {
			return this.path.toString();
		}

	}

}
