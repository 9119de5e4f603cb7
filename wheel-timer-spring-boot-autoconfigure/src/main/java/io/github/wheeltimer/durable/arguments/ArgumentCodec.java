package io.github.wheeltimer.durable.arguments;

import java.io.StringWriter;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Collection;
import java.util.HexFormat;
import java.util.stream.Collectors;

import com.fasterxml.jackson.annotation.JsonInclude;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.exc.InputCoercionException;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.cfg.DateTimeFeature;
import tools.jackson.databind.exc.InvalidTypeIdException;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;
import tools.jackson.databind.json.JsonMapper;
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
 * <li>at startup, {@link ParameterProof} proves that each parameter type makes the round trip:
 * every property Jackson writes is read back, every property it can read is written, down through
 * properties, elements and map values, as the application's mapper (its annotations, naming
 * strategy and modules) resolves them. A type that fails says why and what to change;</li>
 * <li>at each call, in the caller's thread, the {@link ArgumentCheck} checks what the declared
 * types cannot tell: an argument whose class is a subclass with more properties than the declared
 * type, one of a subtype its {@code @JsonTypeInfo} type does not know, and values in {@code Object}
 * slots ({@code Map<String, Object>}) that would not come back as themselves;</li>
 * <li>when the call runs, a row is read strictly: text after the array, a fraction for an
 * integer, {@code null} for a primitive, or a property the type does not have make it
 * unreadable.</li>
 * </ul>
 * Built at startup, by the thread that registers the method; {@link #write} runs in the callers'
 * threads and {@link #read} in the threads that run the calls, any number at once. Immutable and
 * thread-safe: the readers, writers and check are built once, in the constructor; the check
 * remembers what each subclass it meets writes, in a thread-safe way.
 */
public final class ArgumentCodec {

	private final JsonMapper mapper;

	private final String method;

	private final String[] names;

	private final JavaType[] types;

	private final ObjectWriter[] writers;

	private final ObjectReader[] readers;

	/** What the arguments must pass at each call, where their declared types do not say all. */
	private final ArgumentCheck check;

	/** What reading the arguments takes, one line per parameter and per type met below them. */
	private final String description;

	/** The digest of {@link #description}: what a row records of the version that wrote it. */
	private final String shape;

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
	public static JsonMapper mapperFor(JsonMapper application) {
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
	public ArgumentCodec(JsonMapper mapper, Method method) {
		this.mapper = mapper;
		this.method = describe(method);
		Type[] parameters = method.getGenericParameterTypes();
		this.names = new String[parameters.length];
		this.types = new JavaType[parameters.length];
		this.writers = new ObjectWriter[parameters.length];
		this.readers = new ObjectReader[parameters.length];
		ParameterProof proof = new ParameterProof(mapper);
		for (int i = 0; i < parameters.length; i++) {
			JavaType type = mapper.constructType(parameters[i]);
			this.names[i] = method.getParameters()[i].getName();
			this.types[i] = type;
			proof.prove(type, parameter(i), this.names[i]);
			this.writers[i] = mapper.writerFor(type);
			// Each reader reads one element of the array, with the rest of the array after it.
			this.readers[i] = mapper.readerFor(type).without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
		}
		this.check = proof.check();
		StringBuilder description = new StringBuilder();
		for (int i = 0; i < parameters.length; i++) {
			description.append("parameter ").append(i).append(": ").append(this.types[i].toCanonical()).append('\n');
		}
		proof.shape().forEach((line) -> description.append(line).append('\n'));
		this.description = description.toString();
		this.shape = digest(this.description);
	}

	/**
	 * The argument shape: a digest of what reading this method's arguments takes (its parameters'
	 * types, their properties as Jackson reads them, down through properties and elements, their
	 * enums' constants, what they ignore). Two versions of an application whose rows read the same
	 * way have the same shape; a change to a parameter's type that could change how a row reads
	 * changes it. Each row records its writer's, so that an instance can leave a call written by
	 * another live version to that version.
	 * @return 16 hexadecimal digits
	 */
	public String shape() {
		return this.shape;
	}

	/** @return what the shape is a digest of, one line per parameter and type, for operators */
	public String description() {
		return this.description;
	}

	private static String digest(String description) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(description.getBytes(StandardCharsets.UTF_8));
			return HexFormat.of().formatHex(digest, 0, 8);
		}
		catch (NoSuchAlgorithmException ex) {
			// Every Java platform has SHA-256.
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Runs in the caller's thread, once per call.
	 * @throws IllegalArgumentException naming the method, the parameter and the classes, for an
	 * argument that would not come back equal
	 */
	public String write(@Nullable Object[] arguments) {
		for (int i = 0; i < arguments.length; i++) {
			Object argument = arguments[i];
			if (argument != null) {
				try {
					this.check.check(argument, this.types[i]);
				}
				catch (ArgumentCheck.Refusal refusal) {
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
	public @Nullable Object[] read(String json) {
		@Nullable Object[] arguments = new Object[this.types.length];
		int reading = -1;
		JsonParser parser = this.mapper.createParser(json);
		try {
			if (parser.nextToken() != JsonToken.START_ARRAY) {
				throw new Malformed("the arguments are not a JSON array: " + abbreviate(json), null);
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
				throw new Malformed("the arguments' JSON array is followed by more text: " + abbreviate(json), null);
			}
		}
		catch (JacksonException ex) {
			if (ex instanceof StreamReadException && !(ex instanceof InputCoercionException)) {
				// Not JSON; a number too large for its type, by contrast, another version may have written.
				throw new Malformed("the arguments are not JSON: " + reason(ex) + ": " + abbreviate(json), ex);
			}
			String parameter = (reading >= 0) ? parameter(reading) + at(ex) + ": " : "";
			throw new IllegalArgumentException("the arguments cannot be read as this version's parameter types: "
					+ parameter + explain(ex, parser, json, reading) + ": " + abbreviate(json), ex);
		}
		finally {
			parser.close();
		}
		return arguments;
	}

	/** Where in a parameter reading failed, as a path from the parameter: " at items[2].price". */
	private static String at(JacksonException ex) {
		StringBuilder path = new StringBuilder();
		for (JacksonException.Reference step : ex.getPath()) {
			if (step.getPropertyName() != null) {
				path.append(path.isEmpty() ? "" : ".").append(step.getPropertyName());
			}
			else if (step.getIndex() >= 0) {
				path.append('[').append(step.getIndex()).append(']');
			}
		}
		return path.isEmpty() ? "" : " at " + path;
	}

	/**
	 * What the row holds where reading failed, what this version expects there, and what would
	 * make such rows readable: the message operators act on after a deploy changed a parameter.
	 */
	private String explain(JacksonException ex, JsonParser parser, String json, int parameter) {
		if (ex instanceof UnrecognizedPropertyException unknown) {
			String type = ClassUtils.getShortName(unknown.getReferringClass());
			return "the row holds " + found(ex, json, parameter) + " as '" + unknown.getPropertyName() + "', a property "
					+ type + " does not have here (it reads " + known(unknown) + "). If a version that had it wrote"
					+ " the row, keep the property until such calls have run, or drop its value on purpose with"
					+ " @JsonIgnoreProperties(\"" + unknown.getPropertyName() + "\") on " + type;
		}
		if (ex instanceof InvalidTypeIdException subtype) {
			return "the row names the subtype '" + subtype.getTypeId() + "', which " + subtype.getBaseType().toCanonical()
					+ " does not know here. If a version that had it wrote the row, keep the subtype (and its"
					+ " @JsonSubTypes entry) until such calls have run";
		}
		if (ex instanceof InputCoercionException coercion && coercion.getTargetType() != null) {
			return "the row holds " + found(ex, json, parameter) + ", which this version reads as "
					+ coercion.getTargetType().getName() + " (" + reason(ex) + "). If a version with a wider type"
					+ " there wrote the row, keep that type until such calls have run";
		}
		if (ex instanceof MismatchedInputException mismatch && mismatch.getTargetType() != null
				&& mismatch.getTargetType().isPrimitive() && parser.currentToken() == JsonToken.END_OBJECT) {
			return "the row has no value there, which this version reads as " + mismatch.getTargetType().getName()
					+ ": a version without that property wrote it, and a number it was not written with would be made"
					+ " up. Declare an added number boxed (" + ClassUtils.resolvePrimitiveIfNecessary(
							mismatch.getTargetType()).getSimpleName() + ") to read such calls with null there";
		}
		if (ex instanceof MismatchedInputException mismatch && mismatch.getTargetType() != null) {
			Class<?> target = mismatch.getTargetType();
			String reads = target.isEnum() ? "the enum " + target.getName() + ", which lacks it" : target.getName();
			return "the row holds " + found(ex, json, parameter) + ", which this version reads as " + reads + " ("
					+ reason(ex) + "). If a version with another type there wrote the row, keep a type that reads"
					+ " what it wrote (a wider number, the enum's constant) until such calls have run";
		}
		return reason(ex);
	}

	/**
	 * The JSON value where reading failed, found again in the row by the failure's path (the
	 * parser's own position depends on how far the deserializer had buffered).
	 */
	private String found(JacksonException ex, String json, int parameter) {
		try {
			JsonNode node = this.mapper.readTree(json).path(parameter);
			for (JacksonException.Reference step : ex.getPath()) {
				node = (step.getPropertyName() != null) ? node.path(step.getPropertyName()) : node.path(step.getIndex());
			}
			return switch (node.getNodeType()) {
				case STRING -> "the string \"" + abbreviate(node.asString()) + "\"";
				case NUMBER -> "the number " + node.asString();
				case BOOLEAN -> "the boolean " + node.asString();
				case NULL -> "null";
				case OBJECT -> "an object";
				case ARRAY -> "an array";
				default -> "a value";
			};
		}
		catch (JacksonException unparsable) {
			return "a value";
		}
	}

	private static String known(UnrecognizedPropertyException unknown) {
		Collection<Object> known = unknown.getKnownPropertyIds();
		return (known == null || known.isEmpty()) ? "no property"
				: known.stream().map(String::valueOf).sorted().collect(Collectors.joining(", "));
	}

	/**
	 * A row that is not a JSON array of arguments at all, such as JSON edited by hand: unlike
	 * arguments of another shape, which another version of the application may read, no version
	 * reads it.
	 */
	public static final class Malformed extends IllegalArgumentException {

		private static final long serialVersionUID = 1L;

		Malformed(String message, @Nullable Throwable cause) {
			super(message, cause);
		}

	}

	/** A parameter as messages name it: "parameter 0 (java.lang.String)". */
	private String parameter(int index) {
		return "parameter " + index + " (" + this.types[index].toCanonical() + ")";
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

}
