package io.github.wheeltimer.durable;

import java.lang.reflect.Method;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.annotation.JsonValue;
import io.github.wheeltimer.durable.arguments.ArgumentCodec;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.annotation.JsonSerialize;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.ser.std.ToStringSerializer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The catches of the argument proof and of the check at each call that the startup and round
 * trip tests do not reach, on {@link ArgumentCodec} directly: each names the parameter and
 * says what to change; and the value types Jackson and its modules write and read start.
 */
class DurableArgumentsProofTests {

	private static final JsonMapper mapper = ArgumentCodec.mapperFor(JsonMapper.builder().build());

	@Test
	void typesThatCannotComeBackFailAtStartupSayingWhatToChange() {
		assertThatIllegalArgumentException().isThrownBy(() -> arguments("number"))
			.withMessageContaining("parameter 0 (java.lang.Number) is declared Number, so its JSON carries no type");
		assertThatIllegalArgumentException().isThrownBy(() -> arguments("objectKeys"))
			.withMessageContaining("has map keys declared Object, which JSON brings back as Strings");
		assertThatIllegalArgumentException().isThrownBy(() -> arguments("empty"))
			.withMessageContaining("has no properties to write to JSON; declare a record or a class with getters");
		assertThatIllegalArgumentException().isThrownBy(() -> arguments("anyGetter"))
			.withMessageContaining("the entries of its @JsonAnyGetter are written but nothing reads them back");
		assertThatIllegalArgumentException().isThrownBy(() -> arguments("ignoresUnknown"))
			.withMessageContaining("'total' is written but cannot be set back");
		assertThatIllegalArgumentException().isThrownBy(() -> arguments("toStringOnly"))
			.withMessageContaining("is written as a single value (by @JsonValue or a serializer of its own) but can"
					+ " only be read from a JSON object; give it a @JsonCreator that takes that value");
		assertThatIllegalArgumentException().isThrownBy(() -> arguments("noSubtypes"))
			.withMessageContaining("names its subtype in its JSON (@JsonTypeInfo), but Jackson knows none of its"
					+ " concrete subtypes; list them in @JsonSubTypes");
		assertThatIllegalArgumentException().isThrownBy(() -> arguments("abstractClass"))
			.withMessageContaining("is abstract and its JSON would carry no type to read it back as");
	}

	@Test
	void valuesCreatorsAndAnySettersOfTheirOwnStart() {
		for (String method : List.of("values", "wrapper", "delegating", "anyBoth", "emptyRecord")) {
			assertThat(arguments(method).shape()).as(method).hasSize(16);
		}
		ArgumentCodec wrapper = arguments("wrapper");
		assertThat(wrapper.read(wrapper.write(new Object[] { new Wrapper(new Inner("a")) })))
			.containsExactly(new Wrapper(new Inner("a")));
	}

	@Test
	void aSubclassWithMorePropertiesIsRefusedInEveryContainer() {
		Vip vip = new Vip("Ada", "gold");
		assertThat(refusal("optional", Optional.of(vip))).startsWith("parameter 0 (customer.get()) is declared");
		assertThat(refusal("reference", new AtomicReference<>(vip))).startsWith("parameter 0 (customer.get())");
		assertThat(refusal("map", Map.of("k", vip))).startsWith("parameter 0 (customers[\"k\"])");
		assertThat(refusal("array", (Object) new Customer[] { new Customer("Grace"), vip }))
			.startsWith("parameter 0 (customers[1])");
		assertThat(refusal("holder", new Holder(vip)))
			.isEqualTo("parameter 0 (holder.customer) is declared DurableArgumentsProofTests.Customer, and holds a"
					+ " DurableArgumentsProofTests.Vip, whose property 'tier' would be lost: arguments are stored as"
					+ " JSON and read back as their declared type; declare it as DurableArgumentsProofTests.Vip, or"
					+ " pass a DurableArgumentsProofTests.Customer");
	}

	@Test
	void aValueInAnObjectSlotIsRefusedUnlessItComesBackEqual() {
		assertThat(refusal("objects", List.of(Map.of(1, "a")))).isEqualTo("parameter 0 (objects[0]) holds a map with"
				+ " the key an Integer (1), which would come back as a String: a map in an Object slot comes back with"
				+ " String keys; declare the map's type");
		assertThat(refusal("objects", List.of(Double.NaN))).startsWith("parameter 0 (objects[0]) holds a Double (NaN),"
				+ " which would come back as a String (NaN)");
		ArgumentCodec objects = arguments("objects");
		List<Object> fine = List.of("a", 1, 5_000_000_000L, 0.5, true, List.of(), Map.of("k", List.of(2)));
		assertThat(objects.read(objects.write(new Object[] { fine }))).containsExactly(fine);
	}

	private static String refusal(String method, Object argument) {
		try {
			arguments(method).write(new Object[] { argument });
		}
		catch (IllegalArgumentException ex) {
			String message = ex.getMessage();
			return message.substring(message.indexOf("was not accepted: ") + "was not accepted: ".length());
		}
		throw new AssertionError(method + " accepted " + argument);
	}

	private static ArgumentCodec arguments(String name) {
		Method method = Arrays.stream(Methods.class.getDeclaredMethods())
			.filter((candidate) -> candidate.getName().equals(name))
			.findFirst()
			.orElseThrow();
		return new ArgumentCodec(mapper, method);
	}

	@SuppressWarnings("unused")
	static class Methods {

		void number(Number number) {
		}

		void objectKeys(Map<Object, String> byKey) {
		}

		void empty(Empty empty) {
		}

		void anyGetter(AnyGetterOnly bag) {
		}

		void ignoresUnknown(IgnoresUnknown totals) {
		}

		void toStringOnly(ToStringOnly value) {
		}

		void noSubtypes(NoSubtypes shape) {
		}

		void abstractClass(AbstractThing thing) {
		}

		void values(Map<LocalDate, ZonedDateTime> dates, ZoneId zone, Map<UUID, JsonNode> nodes, JsonNode node) {
		}

		void wrapper(Wrapper wrapper) {
		}

		void delegating(Delegating delegating) {
		}

		void anyBoth(AnyBoth bag) {
		}

		void emptyRecord(EmptyRecord marker) {
		}

		void optional(Optional<Customer> customer) {
		}

		void reference(AtomicReference<Customer> customer) {
		}

		void map(Map<String, Customer> customers) {
		}

		void array(Customer[] customers) {
		}

		void holder(Holder holder) {
		}

		void objects(List<Object> objects) {
		}

	}

	public static class Empty {

	}

	public record EmptyRecord() {
	}

	public static class AnyGetterOnly {

		@JsonAnyGetter
		public Map<String, Object> extra() {
			return Map.of();
		}

	}

	public static class AnyBoth {

		@JsonAnyGetter
		public Map<String, Object> extra() {
			return Map.of();
		}

		@JsonAnySetter
		public void extra(String name, Object value) {
		}

	}

	@JsonIgnoreProperties(ignoreUnknown = true)
	public record IgnoresUnknown(int net, int tax) {

		public int getTotal() {
			return this.net + this.tax;
		}

	}

	@JsonSerialize(using = ToStringSerializer.class)
	public static class ToStringOnly {

		public String getValue() {
			return "v";
		}

	}

	@JsonTypeInfo(use = JsonTypeInfo.Id.NAME)
	public interface NoSubtypes {

	}

	public abstract static class AbstractThing {

		public abstract String getName();

	}

	public record Inner(String text) {
	}

	/** Written as its inner record, read back through its delegating creator. */
	public record Wrapper(@JsonValue Inner inner) {

		@JsonCreator(mode = JsonCreator.Mode.DELEGATING)
		public Wrapper {
		}

	}

	public static class Delegating {

		@JsonCreator(mode = JsonCreator.Mode.DELEGATING)
		public Delegating(Map<String, Object> values) {
		}

		public String getName() {
			return "n";
		}

	}

	public static class Customer {

		private String name;

		public Customer() {
		}

		public Customer(String name) {
			this.name = name;
		}

		public String getName() {
			return this.name;
		}

		public void setName(String name) {
			this.name = name;
		}

	}

	public static class Vip extends Customer {

		private String tier;

		public Vip() {
		}

		public Vip(String name, String tier) {
			super(name);
			this.tier = tier;
		}

		public String getTier() {
			return this.tier;
		}

		public void setTier(String tier) {
			this.tier = tier;
		}

	}

	public record Holder(Customer customer) {
	}

}
