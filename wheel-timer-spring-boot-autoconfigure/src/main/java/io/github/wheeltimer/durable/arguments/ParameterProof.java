package io.github.wheeltimer.durable.arguments;

import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.github.wheeltimer.durable.arguments.ArgumentCheck.Need;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.AnnotationIntrospector;
import tools.jackson.databind.BeanDescription;
import tools.jackson.databind.BeanProperty;
import tools.jackson.databind.DeserializationConfig;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.introspect.AnnotatedAndMetadata;
import tools.jackson.databind.introspect.AnnotatedMember;
import tools.jackson.databind.introspect.AnnotatedWithParams;
import tools.jackson.databind.introspect.BeanPropertyDefinition;
import tools.jackson.databind.introspect.ClassIntrospector;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.jsontype.NamedType;

/**
 * The startup proof that the parameter types of one durable method make the round trip through
 * JSON: every property Jackson writes is read back, every property it reads is written, down
 * through properties, elements and map values. A type that fails says why and what to change. On
 * the way, it notes for the {@link ArgumentCheck} what to check at each call, where the declared
 * types do not say all.
 * <p>
 * A type is taken as this mapper (its annotations, naming strategy, mix-ins and modules) sees it,
 * through Jackson's public API: what is written is what the serializer reports to a format
 * visitor, what is read is the deserialization {@link BeanDescription}. A type written as an
 * object (a bean, a record) is compared property by property; a container through its elements,
 * keys and values; a type written as one value (numbers, strings, dates, enums, {@code @JsonValue},
 * a serializer of its own) or read by a creator or deserializer of its own is taken as it is.
 * <p>
 * Used by the thread that registers the method, at startup: not thread-safe, and need not be.
 */
final class ParameterProof {

	private final JsonMapper mapper;

	private final DeserializationConfig config;

	private final AnnotationIntrospector annotations;

	private final ClassIntrospector reading;

	/** Only to find a {@code @JsonAnyGetter}, whose entries no format visitor reports. */
	private final ClassIntrospector writing;

	/** Whether each type met needs a check at each call; one met again while it is proven does. */
	private final Map<JavaType, Boolean> proven = new HashMap<>();

	private final Map<JavaType, Need> needs = new HashMap<>();

	/**
	 * What reading the types takes, one line per type met: a bean's properties as it is read, an
	 * enum's constants, a polymorphic type's subtypes. Sorted, so that the same code gives the same
	 * lines on every JVM: the {@linkplain ArgumentCodec#shape() shape} is their digest.
	 */
	private final Set<String> shape = new TreeSet<>();

	/** The parameter being proven, and its name, where paths into it start: for messages. */
	private String parameter = "";

	private String name = "";

	ParameterProof(JsonMapper mapper) {
		this.mapper = mapper;
		this.config = mapper.deserializationConfig();
		this.annotations = this.config.getAnnotationIntrospector();
		this.reading = this.config.classIntrospectorInstance().forOperation(this.config);
		this.writing = mapper.serializationConfig().classIntrospectorInstance()
			.forOperation(mapper.serializationConfig());
	}

	/**
	 * Proves one parameter's type.
	 * @param parameter the parameter, as messages name it
	 * @param name the parameter's name, where paths into it start
	 * @throws IllegalArgumentException starting with {@code parameter}, saying why its type cannot
	 * make the round trip and what to change
	 */
	void prove(JavaType type, String parameter, String name) {
		this.parameter = parameter;
		this.name = name;
		if (type.isJavaLangObject() || type.hasRawClass(Number.class)) {
			throw new IllegalArgumentException(parameter + " is declared " + type.getRawClass().getSimpleName()
					+ ", so its JSON carries no type: the argument would come back as whatever JSON makes of it (a"
					+ " String, a number, a List or a Map); declare the parameter's type");
		}
		try {
			prove(type, name);
		}
		catch (JacksonException ex) {
			throw new IllegalArgumentException(parameter + " cannot be written to or read from JSON: "
					+ ex.getOriginalMessage(), ex);
		}
	}

	/** @return the check at each call of the arguments of the parameters proven */
	ArgumentCheck check() {
		return new ArgumentCheck(this.mapper, this.needs);
	}

	/** @return what the shape's digest is made of, with the parameters' own types, which the caller adds */
	Set<String> shape() {
		return this.shape;
	}

	/** @return whether values of the type need a check at each call */
	private boolean prove(JavaType type, String path) {
		Boolean known = this.proven.putIfAbsent(type, true);
		if (known != null) {
			return known;
		}
		Need need = classify(type, path);
		if (need != null) {
			this.needs.put(type, need);
		}
		this.proven.put(type, need != null);
		return need != null;
	}

	private @Nullable Need classify(JavaType type, String path) {
		Class<?> raw = type.getRawClass();
		if (type.isJavaLangObject() || raw == Number.class) {
			// An Object slot inside a parameter (Map<String, Object>): its values are checked at each call.
			return Need.JSON_VALUES;
		}
		if (type.isEnumType()) {
			List<String> constants = new ArrayList<>();
			for (Enum<?> constant : (Enum<?>[]) raw.getEnumConstants()) {
				constants.add(jsonName(constant));
			}
			this.shape.add(type.toCanonical() + " enum " + constants);
			return null;
		}
		if (type.isPrimitive()) {
			return null;
		}
		if (type.isContainerType() || type.isReferenceType()) {
			return container(type, path);
		}
		BeanDescription bean = introspect(type);
		if (this.annotations.findPolymorphicTypeInfo(this.config, bean.getClassInfo()) == null) {
			return value(type, bean, path);
		}
		return polymorphic(type, bean, path);
	}

	/**
	 * A reference, a collection, an array or a map: its content is proven, and where the content
	 * needs a check at each call, the check goes through the container, which must be one it opens.
	 */
	private @Nullable Need container(JavaType type, String path) {
		Class<?> raw = type.getRawClass();
		JavaType key = type.getKeyType();
		if (key != null && key.isJavaLangObject()) {
			throw new IllegalArgumentException(where(path, type) + " has map keys declared Object, which JSON brings"
					+ " back as Strings; declare the key type");
		}
		if (key != null && !key.isEnumType() && !key.isPrimitive()
				&& ArgumentCheck.written(this.mapper, key) != null) {
			throw new IllegalArgumentException(where(path, type) + " has map keys of " + key.toCanonical()
					+ ", which JSON keys hold as their toString() and cannot read back; key the map by a String, a"
					+ " number, an enum, a UUID or a date");
		}
		JavaType content = type.getContentType();
		if (!prove(content, path + (type.isReferenceType() ? ".get()" : "[]"))) {
			return null;
		}
		if (!type.isArrayType() && !Iterable.class.isAssignableFrom(raw) && !Map.class.isAssignableFrom(raw)
				&& raw != Optional.class && raw != AtomicReference.class) {
			throw new IllegalArgumentException(where(path, type) + " holds values whose classes must be checked at"
					+ " each call, in a " + raw.getName() + ", which this check cannot open; use a java.util.List,"
					+ " Set, Map or Optional, or make the values' type final (a record)");
		}
		return Need.CONTENT;
	}

	/**
	 * A type whose JSON names its subtype ({@code @JsonTypeInfo}): each concrete subtype Jackson
	 * knows is proven, and an argument must be of one of them.
	 */
	private Need polymorphic(JavaType type, BeanDescription bean, String path) {
		Class<?> raw = type.getRawClass();
		Map<Class<?>, Need> subtypes = new LinkedHashMap<>();
		Set<String> ids = new TreeSet<>();
		for (NamedType subtype : this.config.getSubtypeResolver().collectAndResolveSubtypesByClass(this.config,
				bean.getClassInfo())) {
			ids.add(subtype.getName() + "=" + subtype.getType().getName());
			if (raw.isAssignableFrom(subtype.getType()) && !Modifier.isAbstract(subtype.getType().getModifiers())) {
				// Proven as a value: the subtype inherits @JsonTypeInfo, but is not polymorphic itself.
				JavaType concrete = this.mapper.getTypeFactory().constructSpecializedType(type, subtype.getType());
				Need need = value(concrete, introspect(concrete), path + " as " + subtype.getType().getSimpleName());
				subtypes.put(subtype.getType(), (need != null) ? need : Need.NONE);
			}
		}
		if (subtypes.isEmpty()) {
			throw new IllegalArgumentException(where(path, type) + " names its subtype in its JSON (@JsonTypeInfo), but"
					+ " Jackson knows none of its concrete subtypes; list them in @JsonSubTypes");
		}
		this.shape.add(type.toCanonical() + " subtypes " + ids);
		return new ArgumentCheck.Subtypes(raw, Map.copyOf(subtypes));
	}

	/**
	 * A type written as one value, taken as it is, or as an object of properties, compared as a
	 * bean; one read by a deserializer or a delegating creator of its own knows what it reads.
	 */
	private @Nullable Need value(JavaType type, BeanDescription bean, String path) {
		if (this.annotations.findDeserializer(this.config, bean.getClassInfo()) != null) {
			return null;
		}
		Map<String, BeanProperty> written = ArgumentCheck.written(this.mapper, type);
		List<AnnotatedAndMetadata<? extends AnnotatedWithParams, JsonCreator.Mode>> creators = new ArrayList<>(
				bean.getConstructorsWithMode());
		creators.addAll(bean.getFactoryMethodsWithMode());
		if (written != null && bean.findJsonValueAccessor() == null) {
			return creators.stream().anyMatch((c) -> c.metadata == JsonCreator.Mode.DELEGATING) ? null
					: bean(type, bean, written, path);
		}
		// A value (a number, a string, a date...) as Jackson and its modules write and read it, unless the
		// class writes it itself and has no creator to read it back.
		if ((bean.findJsonValueAccessor() != null
				|| this.annotations.findSerializer(this.mapper.serializationConfig(), bean.getClassInfo()) != null)
				&& creators.stream().noneMatch((c) -> c.annotated.getParameterCount() == 1)) {
			throw new IllegalArgumentException(where(path, type) + " is written as a single value (by @JsonValue or a"
					+ " serializer of its own) but can only be read from a JSON object; give it a @JsonCreator that"
					+ " takes that value");
		}
		return null;
	}

	/**
	 * Compares what a bean writes with what it reads back, property by property: both as this
	 * mapper resolves them, so renames, naming strategies, ignorals and mix-ins count.
	 */
	private @Nullable Need bean(JavaType type, BeanDescription bean, Map<String, BeanProperty> written, String path) {
		if (Modifier.isAbstract(type.getRawClass().getModifiers())) {
			throw new IllegalArgumentException(where(path, type) + " is abstract and its JSON would carry no type to"
					+ " read it back as; declare a concrete type (a record, say)");
		}
		Map<String, BeanPropertyDefinition> read = new LinkedHashMap<>();
		bean.findProperties()
			.stream()
			.filter(BeanPropertyDefinition::couldDeserialize)
			.forEach((property) -> read.put(property.getName(), property));
		if (bean.findDefaultConstructor() == null
				&& read.values().stream().noneMatch(BeanPropertyDefinition::hasConstructorParameter)) {
			throw new IllegalArgumentException(where(path, type) + " cannot be created from JSON: it has no default"
					+ " constructor and no @JsonCreator; declare a record or add one");
		}
		JsonIgnoreProperties.Value ignorals = this.config.getDefaultPropertyIgnorals(type.getRawClass(),
				bean.getClassInfo());
		Set<String> derived = new TreeSet<>(bean.getIgnoredPropertyNames());
		derived.addAll(ignorals.findIgnoredForDeserialization());
		// An any-setter reads every property; ignoreUnknown drops them, so it counts for the shape only.
		boolean readsAny = bean.findAnySetterAccessor() != null;
		boolean writesAny = this.writing.introspectForSerialization(type, bean.getClassInfo()).findAnyGetter() != null;
		if (written.isEmpty() && !writesAny && !readsAny && !type.isRecordType()) {
			throw new IllegalArgumentException(where(path, type) + " has no properties to write to JSON; declare a"
					+ " record or a class with getters");
		}
		List<String> problems = new ArrayList<>();
		if (writesAny && !readsAny) {
			problems.add("the entries of its @JsonAnyGetter are written but nothing reads them back (it has no"
					+ " @JsonAnySetter)");
		}
		List<ArgumentCheck.Part> parts = new ArrayList<>();
		boolean unwraps = read.values().stream().anyMatch(this::unwrapped);
		for (BeanProperty property : written.values()) {
			String name = property.getName();
			if (read.containsKey(name)) {
				part(parts, name, property.getMember(), property.getType(), path);
			}
			else if (!readsAny && !unwraps && !derived.contains(name)) {
				problems.add("'" + name + "' is written but cannot be set back (no setter, field or constructor"
						+ " parameter takes it)");
			}
		}
		Set<String> lines = new TreeSet<>();
		for (BeanPropertyDefinition property : read.values()) {
			String name = property.getName();
			lines.add(name + ": " + property.getPrimaryType().toCanonical());
			if (unwrapped(property)) {
				// Its properties are written and read as the bean's own: its type is proven as a whole.
				part(parts, name, property.getAccessor(), property.getPrimaryType(), path);
			}
			else if (!written.containsKey(name) && (bean.findInjectables() == null
					|| !bean.findInjectables().containsValue(property.getPrimaryMember()))) {
				problems.add(property.hasConstructorParameter()
						? "its constructor takes '" + name + "', which is never written (no getter or visible field"
								+ " gives it)"
						: "'" + name + "' can be set but is never written (it has no getter)");
			}
		}
		if (!problems.isEmpty()) {
			throw new IllegalArgumentException(where(path, type) + " would not come back as it was written: "
					+ String.join("; ", problems) + ". Make what is written and what is read the same properties:"
					+ " a getter for each constructor parameter and setter, a setter or constructor parameter for"
					+ " each getter, and @JsonIgnore or @JsonProperty(access = READ_ONLY) on getters derived from"
					+ " the others (a record does all this)");
		}
		this.shape.add(type.toCanonical() + " " + lines + (derived.isEmpty() ? "" : " ignores " + derived)
				+ ((readsAny || ignorals.getIgnoreUnknown()) ? " ignores unknown" : ""));
		if (Modifier.isFinal(type.getRawClass().getModifiers()) && parts.isEmpty()) {
			return null;
		}
		return new ArgumentCheck.Bean(type.getRawClass(), Set.copyOf(written.keySet()), List.copyOf(parts));
	}

	/** Proves a property's type, and keeps it where its values need a check at each call. */
	private void part(List<ArgumentCheck.Part> parts, String name, @Nullable AnnotatedMember getter, JavaType type,
			String path) {
		if (prove(type, path + "." + name) && getter != null) {
			parts.add(new ArgumentCheck.Part(name, getter, type));
		}
	}

	private BeanDescription introspect(JavaType type) {
		return this.reading.introspectForDeserialization(type, this.reading.introspectClassAnnotations(type));
	}

	/** {@code @JsonUnwrapped}: its own properties are written and read as the bean's. */
	private boolean unwrapped(BeanPropertyDefinition property) {
		return this.annotations.findUnwrappingNameTransformer(this.config, property.getPrimaryMember()) != null;
	}

	/** The parameter, and a type below it by its path: "parameter 0 (...) at prices[][] (Price)". */
	private String where(String path, JavaType type) {
		return path.equals(this.name) ? this.parameter
				: this.parameter + " at " + path + " (" + type.toCanonical() + ")";
	}

	/** An enum constant as its JSON names it: {@code @JsonProperty} on the constant, else its name. */
	private static String jsonName(Enum<?> constant) {
		try {
			JsonProperty renamed = constant.getDeclaringClass()
				.getField(constant.name())
				.getAnnotation(JsonProperty.class);
			return (renamed != null && !renamed.value().isEmpty()) ? renamed.value() : constant.name();
		}
		catch (NoSuchFieldException ex) {
			return constant.name();
		}
	}

}
