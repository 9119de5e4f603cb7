package io.github.wheeltimer.durable;

import java.io.StringWriter;
import java.lang.reflect.Method;
import java.lang.reflect.Type;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.deser.AbstractDeserializer;
import tools.jackson.databind.deser.ValueInstantiator;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.ser.impl.UnknownSerializer;

/**
 * The arguments of one durable method as JSON: an array with one element per parameter, each
 * written and read with the parameter's declared (generic) type. No class names are stored, so a
 * row stays readable when classes move, and a row can only ever become an instance of the type
 * the method declares.
 * <p>
 * Immutable and thread-safe: the readers and writers are built once, at startup.
 */
final class DurableArguments {

	private final JsonMapper mapper;

	private final JavaType[] types;

	private final ObjectWriter[] writers;

	private final ObjectReader[] readers;

	/**
	 * The mapper durable arguments are written and read with, derived once from the application's.
	 * @param application the application's mapper
	 * @return the mapper for durable arguments
	 */
	static JsonMapper mapperFor(JsonMapper application) {
		return application;
	}

	/**
	 * @throws IllegalArgumentException naming the parameter if its type cannot make the round
	 * trip through JSON
	 */
	DurableArguments(JsonMapper mapper, Method method) {
		this.mapper = mapper;
		Type[] parameters = method.getGenericParameterTypes();
		this.types = new JavaType[parameters.length];
		this.writers = new ObjectWriter[parameters.length];
		this.readers = new ObjectReader[parameters.length];
		for (int i = 0; i < parameters.length; i++) {
			JavaType type = mapper.constructType(parameters[i]);
			requireRoundTrip(mapper, type, "parameter " + i + " (" + type.toCanonical() + ")");
			this.types[i] = type;
			this.writers[i] = mapper.writerFor(type);
			// Each reader reads one element of the array, with the rest of the array after it.
			this.readers[i] = mapper.readerFor(type).without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
		}
	}

	/** Runs in the caller's thread, once per call. */
	String write(@Nullable Object[] arguments) {
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
		try (JsonParser parser = this.mapper.createParser(json)) {
			if (parser.nextToken() != JsonToken.START_ARRAY) {
				throw new IllegalArgumentException("the arguments are not a JSON array: " + abbreviate(json));
			}
			for (int i = 0; i < arguments.length; i++) {
				if (parser.nextToken() == JsonToken.END_ARRAY) {
					throw new IllegalArgumentException("the row has " + i + " arguments, the method takes "
							+ arguments.length + ": " + abbreviate(json));
				}
				arguments[i] = this.readers[i].readValue(parser);
			}
			if (parser.nextToken() != JsonToken.END_ARRAY) {
				throw new IllegalArgumentException("the row has more arguments than the " + arguments.length
						+ " the method takes: " + abbreviate(json));
			}
		}
		catch (JacksonException ex) {
			throw new IllegalArgumentException("the arguments cannot be read as the method's parameter types ("
					+ ex.getOriginalMessage() + "): " + abbreviate(json), ex);
		}
		return arguments;
	}

	/**
	 * Fails on the types that would be written but never read back: abstract types and interfaces
	 * without type information, classes with no way to create them, and values with nothing to
	 * write. Containers are checked through their element types.
	 */
	private static void requireRoundTrip(JsonMapper mapper, JavaType type, String what) {
		JavaType content = type.getContentType();
		if (content != null) {
			requireRoundTrip(mapper, content, what);
		}
		JavaType key = type.getKeyType();
		if (key != null) {
			requireRoundTrip(mapper, key, what);
		}
		if (type.isContainerType() || type.isPrimitive() || type.isEnumType()) {
			return;
		}
		ValueDeserializer<Object> deserializer;
		ValueSerializer<Object> serializer;
		try {
			deserializer = mapper._deserializationContext().findRootValueDeserializer(type);
			serializer = mapper._serializationContext().findValueSerializer(type);
		}
		catch (JacksonException ex) {
			throw new IllegalArgumentException(what + " cannot be written to or read from JSON: "
					+ ex.getOriginalMessage(), ex);
		}
		if (deserializer instanceof AbstractDeserializer) {
			throw new IllegalArgumentException(what + " is abstract and its JSON would carry no type to read it"
					+ " back as; declare a concrete type (a record, say)");
		}
		ValueInstantiator instantiator = (deserializer instanceof ValueInstantiator.Gettable gettable)
				? gettable.getValueInstantiator() : null;
		if (instantiator != null && !instantiator.canInstantiate()) {
			throw new IllegalArgumentException(what + " cannot be created from JSON: it has no default constructor"
					+ " and no @JsonCreator; declare a record or add one");
		}
		if (serializer instanceof UnknownSerializer) {
			throw new IllegalArgumentException(what + " has no properties to write to JSON; declare a record or a"
					+ " class with getters");
		}
	}

	private static String abbreviate(String json) {
		return (json.length() <= 200) ? json : json.substring(0, 200) + "...";
	}

}
