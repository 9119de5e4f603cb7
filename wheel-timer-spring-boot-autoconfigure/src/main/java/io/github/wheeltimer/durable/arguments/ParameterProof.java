package io.github.wheeltimer.durable.arguments;

import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.AnnotationIntrospector;
import tools.jackson.databind.DeserializationConfig;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.PropertyName;
import tools.jackson.databind.SerializationConfig;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.ValueSerializer;
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

import org.springframework.util.ClassUtils;

/**
 * The startup proof that the parameter types of one durable method make the round trip through
 * JSON: every property Jackson writes is read back, every property it can read is written, down
 * through properties, elements and map values. A type that fails says why and what to change. On
 * the way, it builds the {@link ArgumentCheck} each parameter's arguments need at each call, for
 * what the declared types cannot tell.
 * <p>
 * A type is taken as Jackson resolves it for this mapper (its annotations, naming strategy and
 * modules): a bean (or record) is compared property by property between the serializer and the
 * deserializer, a container through its elements, keys and values, and a type that Jackson or the
 * application writes and reads as a single value (numbers, strings, dates, enums, types with
 * {@code @JsonValue} or a serializer of their own) is taken as it is.
 * <p>
 * Used only by the thread that registers the method, at startup, inside the
 * {@link ArgumentCodec} constructor, and thrown away once the method is registered: it is not
 * thread-safe, and need not be.
 */
final class ParameterProof {

	private final JsonMapper mapper;

	private final SerializationContext writing;

	private final DeserializationContext reading;

	/** Each type once; a type met again while it is being proven (a tree of nodes) is checked lazily. */
	private final Map<JavaType, Proven> proven = new HashMap<>();

	private @Nullable ArgumentCheck jsonValues;

	/**
	 * What reading the types takes, one line per type met: a bean's properties as its deserializer
	 * knows them, an enum's constants. Sorted, so that the same code gives the same lines on every
	 * JVM: the {@linkplain ArgumentCodec#shape() shape} is their digest.
	 */
	private final Set<String> shape = new TreeSet<>();

	ParameterProof(JsonMapper mapper) {
		this.mapper = mapper;
		this.writing = mapper._serializationContext();
		this.reading = mapper._deserializationContext();
	}

	/**
	 * Proves one parameter's type.
	 * @param type the parameter's declared type
	 * @param what the parameter, as messages name it
	 * @param name the parameter's name, where paths into it start
	 * @return what its arguments must pass at each call, or {@code null} where the type says all
	 * @throws IllegalArgumentException starting with {@code what}, saying why the type cannot make
	 * the round trip and what to change
	 */
	@Nullable ArgumentCheck prove(JavaType type, String what, String name) {
		if (carriesNoType(type)) {
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

	private @Nullable ArgumentCheck prove(JavaType type, Where where) {
		Proven known = this.proven.get(type);
		if (known != null) {
			return (known.done) ? known.check : ArgumentCheck.later(() -> known.check);
		}
		Proven proving = new Proven();
		this.proven.put(type, proving);
		proving.check = classify(type, where);
		proving.done = true;
		return proving.check;
	}

	private @Nullable ArgumentCheck classify(JavaType type, Where where) {
		if (carriesNoType(type)) {
			return jsonValues();
		}
		if (type.isEnumType()) {
			List<String> constants = new ArrayList<>();
			for (Object constant : type.getRawClass().getEnumConstants()) {
				constants.add(jsonName((Enum<?>) constant));
			}
			this.shape.add(type.toCanonical() + " enum " + constants);
			return null;
		}
		if (type.isPrimitive()) {
			return null;
		}
		if (type.isReferenceType()) {
			return container(type, where, ".get()", type.getReferencedType(),
					type.hasRawClass(Optional.class) || type.hasRawClass(AtomicReference.class),
					ArgumentCheck::reference);
		}
		if (type.isArrayType() || type.isCollectionLikeType()) {
			return container(type, where, "[]", type.getContentType(),
					type.isArrayType() || Iterable.class.isAssignableFrom(type.getRawClass()), ArgumentCheck::elements);
		}
		if (type.isMapLikeType()) {
			requireReadableKeys(type.getKeyType(), where);
			return container(type, where, "[]", type.getContentType(), Map.class.isAssignableFrom(type.getRawClass()),
					ArgumentCheck::mapValues);
		}
		if (this.reading.findTypeDeserializer(type) != null) {
			return polymorphic(type, where);
		}
		return value(type, where);
	}

	/** {@code Object} or {@code Number}: its JSON carries no type to read it back as. */
	private static boolean carriesNoType(JavaType type) {
		return type.isJavaLangObject() || type.hasRawClass(Number.class);
	}

	/**
	 * A reference, a collection or a map: its content is proven, and where the content needs a
	 * check at each call, the check goes through the container, which must be one it can open.
	 * @param step how a path goes from the container into its content
	 * @param openable whether the check can reach the content at a call
	 * @param through the check that goes through the container to the content's
	 */
	private @Nullable ArgumentCheck container(JavaType type, Where where, String step, JavaType content,
			boolean openable, UnaryOperator<ArgumentCheck> through) {
		// Makes Jackson resolve the container, so that one it cannot read or write fails here.
		this.writing.findValueSerializer(type);
		this.reading.findContextualValueDeserializer(type, null);
		ArgumentCheck check = prove(content, where.into(step, content));
		if (check == null) {
			return null;
		}
		if (!openable) {
			throw new IllegalArgumentException(where + " holds values whose classes must be checked at each call,"
					+ " in a " + type.getRawClass().getName() + ", which this check cannot open; use a java.util.List,"
					+ " Set, Map or Optional, or make the values' type final (a record)");
		}
		return through.apply(check);
	}

	private void requireReadableKeys(JavaType key, Where where) {
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
	}

	/**
	 * A type whose JSON names its subtype ({@code @JsonTypeInfo}): each subtype Jackson knows is
	 * proven, and an argument must be of one of them.
	 */
	private ArgumentCheck polymorphic(JavaType type, Where where) {
		DeserializationConfig config = this.reading.getConfig();
		Collection<NamedType> named = config.getSubtypeResolver()
			.collectAndResolveSubtypesByClass(config, this.reading.introspectClassAnnotations(type));
		Map<Class<?>, ArgumentCheck> subtypes = new LinkedHashMap<>();
		for (NamedType subtype : named) {
			Class<?> raw = subtype.getType();
			if (type.getRawClass().isAssignableFrom(raw) && !Modifier.isAbstract(raw.getModifiers())
					&& !raw.isInterface()) {
				JavaType concrete = this.reading.getTypeFactory().constructSpecializedType(type, raw);
				ArgumentCheck check = value(concrete, where.into(" as " + raw.getSimpleName(), concrete));
				subtypes.put(raw, (check != null) ? check : ArgumentCheck.NONE);
			}
		}
		if (subtypes.isEmpty()) {
			throw new IllegalArgumentException(where + " names its subtype in its JSON (@JsonTypeInfo), but Jackson"
					+ " knows none of its concrete subtypes; list them in @JsonSubTypes");
		}
		Set<String> ids = new TreeSet<>();
		named.forEach((subtype) -> ids.add(subtype.getName() + "=" + subtype.getType().getName()));
		this.shape.add(type.toCanonical() + " subtypes " + ids);
		return ArgumentCheck.subtypes(type.getRawClass(), subtypes);
	}

	/** A type Jackson writes as one value or as an object of properties. */
	private @Nullable ArgumentCheck value(JavaType type, Where where) {
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
			if (!deserializer.getClass().getName().startsWith("tools.jackson.")) {
				// The application's own reading of a value: a change to it may change what reads.
				this.shape.add(type.toCanonical() + " read by " + deserializer.getClass().getName());
			}
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
	private @Nullable ArgumentCheck bean(JavaType type, BeanDeserializerBase reader, BeanSerializerBase writer,
			Where where) {
		Set<String> derived = derived(type);
		Set<String> written = new LinkedHashSet<>();
		List<String> problems = new ArrayList<>();
		Map<BeanPropertyWriter, ArgumentCheck> checks = new LinkedHashMap<>();
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
		Set<String> read = new TreeSet<>();
		for (Iterator<SettableBeanProperty> it = reader.properties(); it.hasNext();) {
			SettableBeanProperty settable = it.next();
			read.add(settable.getName() + ": " + settable.getType().toCanonical());
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
		JsonIgnoreProperties.Value ignorals = ignorals(type);
		this.shape.add(type.toCanonical() + " " + read + (derived.isEmpty() ? "" : " ignores " + new TreeSet<>(derived))
				+ ((reader.hasAnySetter() || (ignorals != null && ignorals.getIgnoreUnknown())) ? " ignores unknown" : ""));
		if (Modifier.isFinal(type.getRawClass().getModifiers()) && checks.isEmpty()) {
			return null;
		}
		return ArgumentCheck.bean(this.mapper, type.getRawClass(), written, checks);
	}

	/**
	 * Proves that one written property is read back, as a type that makes the round trip,
	 * adding the check its values need.
	 * @return what is wrong, or {@code null}
	 */
	private @Nullable String readBack(PropertyWriter property, BeanDeserializerBase reader, Set<String> derived,
			Where where, Map<BeanPropertyWriter, ArgumentCheck> checks) {
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
		ArgumentCheck check = prove(readAs, where.into("." + name, readAs));
		// A getter of Optional<T> for a T: the check sees the Optional.
		add(checks, property, (check != null && writtenAs.isReferenceType() && !readAs.isReferenceType())
				? ArgumentCheck.reference(check) : check);
		return null;
	}

	private static void add(Map<BeanPropertyWriter, ArgumentCheck> checks, PropertyWriter property,
			@Nullable ArgumentCheck check) {
		if (check != null && property instanceof BeanPropertyWriter getter) {
			checks.put(getter, check);
		}
	}

	/** The properties the class itself says are written and not read: values derived from the others. */
	private Set<String> derived(JavaType type) {
		Set<String> derived = new LinkedHashSet<>(
				this.reading.introspectBeanDescription(type).getIgnoredPropertyNames());
		JsonIgnoreProperties.Value ignorals = ignorals(type);
		if (ignorals != null) {
			derived.addAll(ignorals.findIgnoredForDeserialization());
		}
		return derived;
	}

	/** An enum constant as its JSON names it: {@code @JsonProperty} on the constant, else its name. */
	private static String jsonName(Enum<?> constant) {
		try {
			JsonProperty renamed = constant.getDeclaringClass().getField(constant.name()).getAnnotation(JsonProperty.class);
			return (renamed != null && !renamed.value().isEmpty()) ? renamed.value() : constant.name();
		}
		catch (NoSuchFieldException ex) {
			return constant.name();
		}
	}

	private JsonIgnoreProperties.@Nullable Value ignorals(JavaType type) {
		return this.reading.getConfig()
			.getDefaultPropertyIgnorals(type.getRawClass(), this.reading.introspectClassAnnotations(type));
	}

	/**
	 * What reading the proven types takes, one line per type, sorted; with the parameters' own
	 * types, which the caller adds, it is what the shape's digest is made of.
	 * @return the lines
	 */
	Set<String> shape() {
		return this.shape;
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

	private ArgumentCheck jsonValues() {
		if (this.jsonValues == null) {
			this.jsonValues = ArgumentCheck.jsonValues(this.mapper);
		}
		return this.jsonValues;
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

		@Nullable ArgumentCheck check;

		boolean done;

	}

}
