package io.github.wheeltimer.durable.arguments;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

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
final class JsonValueCheck extends ArgumentCheck {

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

	JsonValueCheck(JsonMapper mapper) {
		this.mapper = mapper;
		this.strings = comesBack("a");
		this.booleans = comesBack(Boolean.TRUE);
		this.integers = comesBack(1);
		this.smallLongs = comesBack(1L);
		this.longs = comesBack(Long.MAX_VALUE);
		this.smallBigIntegers = comesBack(BigInteger.ONE);
		this.longBigIntegers = comesBack(BigInteger.valueOf(Long.MAX_VALUE));
		this.bigIntegers = comesBack(BigInteger.TWO.pow(70));
		this.doubles = comesBack(1.5);
		this.fractions = comesBack(new BigDecimal("1.5"));
		this.wholeDecimals = comesBack(new BigDecimal("15"));
		this.lists = comesBack(new ArrayList<>(List.of("a")));
		this.maps = comesBack(new LinkedHashMap<>(Map.of("a", "b")));
	}

	/** At startup: whether a sample comes back equal. */
	private boolean comesBack(Object sample) {
		try {
			return sample.equals(roundTrip(sample));
		}
		catch (JacksonException ex) {
			return false;
		}
	}

	private @Nullable Object roundTrip(Object value) {
		return this.mapper.readValue(this.mapper.writeValueAsString(value), Object.class);
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
				checkAt(this, entry.getValue(), entry.getKey());
			}
		}
		else if (value instanceof List<?> list && this.lists) {
			checkElements(this, list);
		}
		else if (!isJsonValue(value)) {
			throw new Refusal("holds " + described(value) + ", which would come back as " + cameBack(value)
					+ ": a value in an Object slot comes back as what JSON makes of it (a String, Boolean, Integer,"
					+ " Long, Double, List or Map); declare the slot's type");
		}
	}

	/** At a call: whether a value is of a class that, at its size, comes back as itself. */
	private boolean isJsonValue(Object value) {
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
			return described(roundTrip(value));
		}
		catch (JacksonException ex) {
			return "something else, or not at all (" + ex.getOriginalMessage() + ")";
		}
	}

}
