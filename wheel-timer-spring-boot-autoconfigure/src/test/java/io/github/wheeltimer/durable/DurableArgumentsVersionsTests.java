package io.github.wheeltimer.durable;

import java.lang.reflect.Method;
import java.util.Arrays;

import io.github.wheeltimer.durable.arguments.ArgumentCodec;
import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * What a deploy that changes a durable method's parameter does to the calls written before it:
 * calls written by one version ({@code write}) read by the next ({@code read}). The changes
 * {@code docs/deploys.md} calls compatible read every value back, a property added reading as empty; the
 * others fail with a message that names the property, what the row holds, what this version reads
 * and what to do. And the argument shape, which rows record, changes with each of them.
 */
class DurableArgumentsVersionsTests {

	private static final JsonMapper mapper = ArgumentCodec.mapperFor(JsonMapper.builder().build());

	// Compatible changes

	@Test
	void aPropertyAddedReadsAsEmptyOnCallsWrittenWithoutIt() {
		String row = arguments("before").write(new Object[] { new Ref("o-1", 250) });
		assertThat(arguments("addedProperty").read(row)).containsExactly(new RefWithCurrency("o-1", 250, null));
		assertThat(arguments("addedBoxed").read(row)).containsExactly(new RefWithBoxedCount("o-1", 250, null));
	}

	@Test
	void aNumberWidenedReadsTheNarrowerOnesWritten() {
		String row = arguments("narrow").write(new Object[] { 7, new Ref("o-1", 250) });
		assertThat(arguments("widened").read(row)).containsExactly(7L, new Ref("o-1", 250));
	}

	@Test
	void anEnumConstantAddedReadsTheConstantsWrittenBefore() {
		String row = arguments("twoStates").write(new Object[] { StateBefore.SHIPPED });
		assertThat(arguments("threeStates").read(row)).containsExactly(StateAfter.SHIPPED);
	}

	@Test
	void aPropertyRenamedWithJsonAliasReadsTheOldName() {
		String row = arguments("named").write(new Object[] { new Named("Ada") });
		assertThat(arguments("renamed").read(row)).containsExactly(new Renamed("Ada"));
	}

	@Test
	void aPropertyRemovedAndIgnoredOnPurposeIsDroppedFromCallsWrittenWithIt() {
		String row = arguments("addedProperty").write(new Object[] { new RefWithCurrency("o-1", 250, "EUR") });
		assertThat(arguments("currencyDropped").read(row)).containsExactly(new RefDroppingCurrency("o-1", 250));
	}

	/**
	 * A class with setters, unlike a record: Jackson calls no setter for a property the row lacks,
	 * so an added primitive keeps its default. {@code docs/deploys.md} says so: declare added numbers boxed.
	 */
	@Test
	void aPrimitivePropertyAddedToAClassWithSettersKeepsItsDefaultOnCallsWrittenWithoutIt() {
		String row = arguments("before").write(new Object[] { new Ref("o-1", 250) });
		Object[] read = arguments("addedPrimitiveSetter").read(row);
		assertThat(read[0]).isInstanceOfSatisfying(Settable.class, (settable) -> {
			assertThat(settable.getId()).isEqualTo("o-1");
			assertThat(settable.getCount()).isZero();
		});
	}

	@Test
	void aConstantRenamedInJsonChangesTheShape() {
		assertThat(arguments("twoStates").shape()).isNotEqualTo(arguments("twoStatesRenamed").shape());
	}

	// Incompatible changes: the reason names the property, what the row holds and the fix

	/** A 0 the call was not made with would be made up: an added number must be boxed to read as null. */
	@Test
	void aPrimitivePropertyAddedCannotReadCallsWrittenWithoutIt() {
		String row = arguments("before").write(new Object[] { new Ref("o-1", 250) });
		assertThatIllegalArgumentException().isThrownBy(() -> arguments("addedPrimitive").read(row))
			.withMessage("the arguments cannot be read as this version's parameter types: parameter 0 ("
					+ RefWithCount.class.getName() + ") at count: the row has no value there, which this version"
					+ " reads as int: a version without that property wrote it, and a number it was not written with"
					+ " would be made up. Declare an added number boxed (Integer) to read such calls with null there: "
					+ row);
	}

	@Test
	void aPropertyThisVersionLacksNamesTheValueAndTheTwoFixes() {
		String row = arguments("addedProperty").write(new Object[] { new RefWithCurrency("o-1", 250, "EUR") });
		assertThatIllegalArgumentException().isThrownBy(() -> arguments("before").read(row))
			.withMessage("the arguments cannot be read as this version's parameter types: parameter 0 ("
					+ Ref.class.getName() + ") at currency: the row holds the string \"EUR\" as 'currency', a property"
					+ " DurableArgumentsVersionsTests.Ref does not have here (it reads amount, id). If a version that"
					+ " had it wrote the row, keep the property until such calls have run, or drop its value on"
					+ " purpose with @JsonIgnoreProperties(\"currency\") on DurableArgumentsVersionsTests.Ref: "
					+ row);
	}

	@Test
	void aNumberNarrowedBelowAValueWrittenNamesTheValueAndTheTypeItIsReadAs() {
		String row = arguments("widened").write(new Object[] { 5_000_000_000L, new Ref("o-1", 250) });
		assertThatIllegalArgumentException().isThrownBy(() -> arguments("narrow").read(row))
			.isNotInstanceOf(ArgumentCodec.Malformed.class)
			.withMessageStartingWith("the arguments cannot be read as this version's parameter types: parameter 0"
					+ " (int): the row holds the number 5000000000, which this version reads as int");
	}

	@Test
	void anEnumConstantRemovedNamesTheConstantAndTheEnum() {
		String row = arguments("threeStates").write(new Object[] { StateAfter.RETURNED });
		assertThatIllegalArgumentException().isThrownBy(() -> arguments("twoStates").read(row))
			.withMessageStartingWith("the arguments cannot be read as this version's parameter types: parameter 0 ("
					+ StateBefore.class.getName() + "): the row holds the string \"RETURNED\", which this version"
					+ " reads as the enum " + StateBefore.class.getName() + ", which lacks it");
	}

	@Test
	void textThatIsNotJsonIsMalformedForEveryVersion() {
		assertThatIllegalArgumentException().isThrownBy(() -> arguments("before").read("[{\"id\": oops"))
			.isInstanceOf(ArgumentCodec.Malformed.class)
			.withMessageStartingWith("the arguments are not JSON: ");
		assertThatIllegalArgumentException().isThrownBy(() -> arguments("before").read("{\"id\":\"o-1\"}"))
			.isInstanceOf(ArgumentCodec.Malformed.class);
	}

	// The shape

	@Test
	void theShapeIsTheSameForTheSameTypesAndChangesWithEachChange() {
		String before = arguments("before").shape();
		assertThat(before).hasSize(16).matches("[0-9a-f]{16}").isEqualTo(arguments("before").shape());
		assertThat(arguments("sameTypes").shape()).as("another method, the same parameter types").isEqualTo(before);
		assertThat(Arrays.asList(arguments("addedProperty").shape(), arguments("addedPrimitive").shape(),
				arguments("addedBoxed").shape(), arguments("currencyDropped").shape()))
			.doesNotContain(before)
			.doesNotHaveDuplicates();
		assertThat(arguments("twoStates").shape()).isNotEqualTo(arguments("threeStates").shape());
		assertThat(arguments("narrow").shape()).isNotEqualTo(arguments("widened").shape());
		assertThat(arguments("named").shape()).isNotEqualTo(arguments("renamed").shape());
		assertThat(arguments("before").description()).isEqualTo("parameter 0: " + Ref.class.getName() + "\n"
				+ Ref.class.getName() + " [amount: long, id: java.lang.String]\n");
	}

	private static ArgumentCodec arguments(String version) {
		Method method = Arrays.stream(Versions.class.getDeclaredMethods())
			.filter((candidate) -> candidate.getName().equals(version))
			.findFirst()
			.orElseThrow();
		return new ArgumentCodec(mapper, method);
	}

	/** One durable method, as successive versions declare its parameters. */
	@SuppressWarnings("unused")
	static class Versions {

		void before(Ref ref) {
		}

		void sameTypes(Ref other) {
		}

		void addedProperty(RefWithCurrency ref) {
		}

		void addedPrimitive(RefWithCount ref) {
		}

		void addedBoxed(RefWithBoxedCount ref) {
		}

		void addedPrimitiveSetter(Settable ref) {
		}

		void twoStatesRenamed(StateRenamed state) {
		}

		void currencyDropped(RefDroppingCurrency ref) {
		}

		void narrow(int count, Ref ref) {
		}

		void widened(long count, Ref ref) {
		}

		void twoStates(StateBefore state) {
		}

		void threeStates(StateAfter state) {
		}

		void named(Named named) {
		}

		void renamed(Renamed renamed) {
		}

	}

	record Ref(String id, long amount) {
	}

	record RefWithCurrency(String id, long amount, @Nullable String currency) {
	}

	record RefWithCount(String id, long amount, int count) {
	}

	record RefWithBoxedCount(String id, long amount, @Nullable Integer count) {
	}

	@JsonIgnoreProperties("currency")
	record RefDroppingCurrency(String id, long amount) {
	}

	enum StateBefore {

		PAID, SHIPPED

	}

	enum StateAfter {

		PAID, SHIPPED, RETURNED

	}

	enum StateRenamed {

		@JsonProperty("paid")
		PAID, SHIPPED

	}

	/** A class with setters, where the others are records. */
	static class Settable {

		private String id = "";

		private long amount;

		private int count;

		public String getId() {
			return this.id;
		}

		public void setId(String id) {
			this.id = id;
		}

		public long getAmount() {
			return this.amount;
		}

		public void setAmount(long amount) {
			this.amount = amount;
		}

		public int getCount() {
			return this.count;
		}

		public void setCount(int count) {
			this.count = count;
		}

	}

	record Named(String name) {
	}

	record Renamed(@JsonAlias("name") String title) {
	}

}
