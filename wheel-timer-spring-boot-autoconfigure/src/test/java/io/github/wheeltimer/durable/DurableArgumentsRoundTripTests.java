package io.github.wheeltimer.durable;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.github.wheeltimer.VirtualTime;
import io.github.wheeltimer.annotation.DelayedExecution;
import io.github.wheeltimer.autoconfigure.WheelTimerAutoConfiguration;
import io.github.wheeltimer.autoconfigure.WheelTimerDurableAutoConfiguration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A durable call runs with arguments equal to those it was made with: each kind of value makes
 * the round trip through its row, and an argument that would not is refused in the caller's
 * thread, before any row is written.
 */
class DurableArgumentsRoundTripTests {

	private static final String HERE = "DurableArgumentsRoundTripTests.";

	private static final Duration TICK = Duration.ofMillis(10);

	/** The delay of every delayed method here. */
	private static final Duration DELAY = Duration.ofMillis(50);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
				WheelTimerAutoConfiguration.class, DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
				WheelTimerDurableAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:arguments-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"wheel-timer.tick-duration=10ms", "wheel-timer.durable.horizon=1s",
				"wheel-timer.durable.poll-interval=200ms", "wheel-timer.durable.heartbeat-interval=200ms",
				"wheel-timer.durable.lease=1s")
		.withUserConfiguration(VirtualTime.class)
		.withBean(Takes.class);

	@Test
	void aMapOfObjectsComesBackAsJsonValues() {
		Map<String, Object> attributes = new LinkedHashMap<>();
		attributes.put("name", "Ada");
		attributes.put("age", 36);
		attributes.put("population", 8_100_000_000L);
		attributes.put("huge", BigInteger.TWO.pow(80));
		attributes.put("ratio", 0.25);
		attributes.put("vip", true);
		attributes.put("nothing", null);
		attributes.put("tags", List.of("a", "b"));
		attributes.put("address", Map.of("city", "London", "lines", List.of(1, 2)));
		this.runner.withBean(TakesAttributes.class)
			.run((context) -> assertThat(
					roundTrip(context, TakesAttributes.class, (takes) -> takes.attributes(attributes)))
				.containsExactly(attributes));
	}

	@Test
	void collectionsComeBackEqual() {
		List<String> list = List.of("b", "a", "b");
		Set<Integer> set = Set.of(3, 1, 2);
		TreeSet<String> sorted = new TreeSet<>(List.of("z", "y"));
		Map<Status, List<LocalDate>> byStatus = new EnumMap<>(Status.class);
		byStatus.put(Status.PAID, List.of(LocalDate.of(2024, 2, 29)));
		int[] numbers = { 3, 1, 4 };
		this.runner.run((context) -> {
			List<Object> back = roundTrip(context, (takes) -> takes.collections(list, set, sorted, byStatus, numbers));
			assertThat(back.subList(0, 4)).containsExactly(list, set, sorted, byStatus);
			assertThat(back.get(2)).isInstanceOf(TreeSet.class);
			assertThat((int[]) back.get(4)).containsExactly(numbers);
		});
	}

	@Test
	void recordsAndEnumsComeBackEqual() {
		Order order = new Order("o-1", Status.PAID,
				List.of(new Line("sku-1", 2, new BigDecimal("9.99")), new Line("sku-2", 1, new BigDecimal("0.50"))),
				Map.of("gifts", 1));
		Category tree = new Category("root",
				List.of(new Category("a", List.of(new Category("a1", List.of()))), new Category("b", List.of())));
		this.runner.run((context) -> assertThat(roundTrip(context, (takes) -> takes.order(order, Status.OPEN, tree)))
			.containsExactly(order, Status.OPEN, tree));
	}

	@Test
	void dateTimesKeepTheirZoneAndOffset() {
		ZonedDateTime zoned = ZonedDateTime.of(2024, 3, 1, 9, 30, 15, 123_456_789, ZoneId.of("Asia/Shanghai"));
		OffsetDateTime offset = OffsetDateTime.of(2024, 3, 1, 9, 30, 0, 0, ZoneOffset.ofHoursMinutes(5, 30));
		LocalDateTime local = LocalDateTime.of(2024, 3, 1, 9, 30, 0, 1);
		LocalTime time = LocalTime.of(23, 59, 59, 999_999_999);
		Instant instant = Instant.parse("2024-03-01T09:30:00.000000001Z");
		ZoneId zone = ZoneId.of("UTC");
		Duration duration = Duration.ofMillis(1500).plusNanos(7);
		this.runner.withPropertyValues("spring.jackson.time-zone=America/New_York").run((context) -> assertThat(
				roundTrip(context, (takes) -> takes.dateTimes(zoned, offset, local, time, instant, zone, duration)))
			.containsExactly(zoned, offset, local, time, instant, zone, duration));
	}

	@Test
	void nothingIsLeftOutWhenTheApplicationLeavesOutNullsAndEmpties() {
		Basket basket = new Basket("b-1", List.of(), Map.of(), null, Optional.empty());
		this.runner.withPropertyValues("spring.jackson.default-property-inclusion=non_empty")
			.run((context) -> assertThat(roundTrip(context, (takes) -> takes.basket(basket))).containsExactly(basket));
	}

	@Test
	void numbersKeepTheirScaleAndSize() {
		BigDecimal amount = new BigDecimal("9.990");
		BigInteger huge = BigInteger.TEN.pow(40);
		this.runner.run((context) -> assertThat(
				roundTrip(context, (takes) -> takes.numbers(amount, huge, Long.MIN_VALUE, 0.1 + 0.2, 'x')))
			.containsExactly(amount, huge, Long.MIN_VALUE, 0.1 + 0.2, 'x'));
	}

	@Test
	void optionalsComeBackEqual() {
		Optional<Line> line = Optional.of(new Line("sku-1", 1, BigDecimal.ONE));
		this.runner.run((context) -> assertThat(
				roundTrip(context, (takes) -> takes.optionals(Optional.of("a"), Optional.empty(), line)))
			.containsExactly(Optional.of("a"), Optional.empty(), line));
	}

	@Test
	void aClassWithGettersAndSettersComesBackAndSoDoesASubclassThatAddsNoProperty() {
		this.runner.run((context) -> {
			assertThat(roundTrip(context, (takes) -> takes.customer(new Customer("Ada"))))
				.containsExactly(new Customer("Ada"));
			Customer subclass = new Customer("Grace") {
			};
			assertThat(roundTrip(context, (takes) -> takes.customer(subclass))).containsExactly(new Customer("Grace"));
		});
	}

	@Test
	void aSubtypeNamedInItsJsonComesBackAsItself() {
		this.runner.run((context) -> assertThat(
				roundTrip(context, (takes) -> takes.shapes(new Circle(1.5), List.of(new Square(2), new Circle(3)))))
			.containsExactly(new Circle(1.5), List.of(new Square(2), new Circle(3))));
	}

	@Test
	void aSubclassWithMorePropertiesThanTheParameterIsRefusedInTheCallersThread() {
		this.runner.run((context) -> {
			Takes takes = context.getBean(Takes.class);
			assertThatIllegalArgumentException().isThrownBy(() -> takes.customer(new VipCustomer("Ada", "gold")))
				.withMessage("Durable call to " + HERE + "Takes.customer(" + HERE + "Customer) was not accepted:"
						+ " parameter 0 (customer) is declared " + HERE + "Customer, and holds a " + HERE
						+ "VipCustomer, whose property 'tier' would be lost: arguments are stored as JSON and read back"
						+ " as their declared type; declare it as " + HERE + "VipCustomer, or pass a " + HERE
						+ "Customer");
			assertThat(rows(context)).isZero();
		});
	}

	@Test
	void aSubclassWithMorePropertiesDeepInAnArgumentIsRefused() {
		this.runner.run((context) -> {
			Takes takes = context.getBean(Takes.class);
			List<Customer> customers = List.of(new Customer("Ada"), new VipCustomer("Grace", "gold"));
			assertThatIllegalArgumentException().isThrownBy(() -> takes.customers(customers))
				.withMessageContaining("parameter 0 (customers[1]) is declared " + HERE + "Customer, and holds a "
						+ HERE + "VipCustomer, whose property 'tier' would be lost");
			assertThat(rows(context)).isZero();
		});
	}

	@Test
	void aSubtypeTheJsonCannotNameIsRefused() {
		this.runner.run((context) -> {
			Takes takes = context.getBean(Takes.class);
			assertThatIllegalArgumentException().isThrownBy(() -> takes.shapes(new Circle(1), List.of(new Triangle())))
				.withMessageContaining("parameter 1 (others[0]) is declared " + HERE + "Shape, and holds a " + HERE
						+ "Triangle, which is not one of the subtypes Jackson knows for it (" + HERE + "Circle, " + HERE
						+ "Square)")
				.withMessageEndingWith("list it in @JsonSubTypes");
			assertThat(rows(context)).isZero();
		});
	}

	@Test
	void aValueInAMapOfObjectsThatWouldComeBackAsAnotherTypeIsRefused() {
		this.runner.withBean(TakesAttributes.class).run((context) -> {
			TakesAttributes takes = context.getBean(TakesAttributes.class);
			assertThatIllegalArgumentException()
				.isThrownBy(() -> takes.attributes(Map.of("address", Map.of("floors", List.of(1, 2L)))))
				.withMessageContaining("was not accepted: parameter 0 (attributes[\"address\"][\"floors\"][1]) holds a"
						+ " Long (2), which would come back as an Integer (2)")
				.withMessageEndingWith("declare the slot's type");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> takes.attributes(Map.of("since", LocalDate.of(2024, 1, 1))))
				.withMessageContaining("parameter 0 (attributes[\"since\"]) holds a LocalDate (2024-01-01), which would"
						+ " come back as a String (2024-01-01)");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> takes.attributes(Map.of("tags", new TreeSet<>(Set.of("a")))))
				.withMessageContaining("holds a TreeSet ([a]), which would come back as an ArrayList ([a])");
			assertThat(rows(context)).isZero();
		});
	}

	private static List<Object> roundTrip(AssertableApplicationContext context, Consumer<Takes> call) {
		return roundTrip(context, Takes.class, call);
	}

	/** Makes a call and returns the arguments it ran with. */
	private static <T extends Recorder> List<Object> roundTrip(AssertableApplicationContext context, Class<T> type,
			Consumer<T> call) {
		T bean = context.getBean(type);
		int before = bean.received().size();
		call.accept(bean);
		VirtualTime.advance(context, DELAY.minus(TICK));
		assertThat(bean.received()).as("never before its delay").hasSize(before);
		VirtualTime.advance(context, TICK);
		assertThat(bean.received()).as("ran once").hasSize(before + 1);
		return bean.received().get(before);
	}

	private static int rows(AssertableApplicationContext context) {
		Integer rows = new JdbcTemplate(context.getBean(DataSource.class))
			.queryForObject("SELECT COUNT(*) FROM WHEEL_TIMER_CALL", Integer.class);
		return (rows != null) ? rows : -1;
	}

	/** Keeps the arguments each call ran with. */
	public static class Recorder {

		private final List<List<Object>> received = new CopyOnWriteArrayList<>();

		public List<List<Object>> received() {
			return this.received;
		}

		void record(Object... arguments) {
			this.received.add(new ArrayList<>(Arrays.asList(arguments)));
		}

	}

	/** Apart from the others: it did not start before. */
	public static class TakesAttributes extends Recorder {

		@DelayedExecution(delay = 50, durable = true)
		public void attributes(Map<String, Object> attributes) {
			record(attributes);
		}

	}

	public static class Takes extends Recorder {

		@DelayedExecution(delay = 50, durable = true)
		public void collections(List<String> list, Set<Integer> set, TreeSet<String> sorted,
				Map<Status, List<LocalDate>> byStatus, int[] numbers) {
			record(list, set, sorted, byStatus, numbers);
		}

		@DelayedExecution(delay = 50, durable = true)
		public void order(Order order, Status status, Category tree) {
			record(order, status, tree);
		}

		@DelayedExecution(delay = 50, durable = true)
		public void dateTimes(ZonedDateTime zoned, OffsetDateTime offset, LocalDateTime local, LocalTime time,
				Instant instant, ZoneId zone, Duration duration) {
			record(zoned, offset, local, time, instant, zone, duration);
		}

		@DelayedExecution(delay = 50, durable = true)
		public void numbers(BigDecimal amount, BigInteger huge, long smallest, double inexact, char letter) {
			record(amount, huge, smallest, inexact, letter);
		}

		@DelayedExecution(delay = 50, durable = true)
		public void optionals(Optional<String> present, Optional<String> empty, Optional<Line> line) {
			record(present, empty, line);
		}

		@DelayedExecution(delay = 50, durable = true)
		public void basket(Basket basket) {
			record(basket);
		}

		@DelayedExecution(delay = 50, durable = true)
		public void customer(Customer customer) {
			record(customer);
		}

		@DelayedExecution(delay = 50, durable = true)
		public void customers(List<Customer> customers) {
			record(customers);
		}

		@DelayedExecution(delay = 50, durable = true)
		public void shapes(Shape shape, List<Shape> others) {
			record(shape, others);
		}

	}

	public enum Status {

		OPEN, PAID

	}

	public record Line(String sku, int quantity, BigDecimal price) {
	}

	public record Order(String id, Status status, List<Line> lines, Map<String, Integer> counts) {
	}

	public record Category(String name, List<Category> children) {
	}

	public record Basket(String id, List<Line> lines, Map<String, Integer> counts, String note,
			Optional<String> coupon) {
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

		@Override
		public boolean equals(Object other) {
			return other instanceof Customer customer && Objects.equals(this.name, customer.name);
		}

		@Override
		public int hashCode() {
			return Objects.hashCode(this.name);
		}

		@Override
		public String toString() {
			return "Customer " + this.name;
		}

	}

	public static class VipCustomer extends Customer {

		private String tier;

		public VipCustomer() {
		}

		public VipCustomer(String name, String tier) {
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

	@JsonTypeInfo(use = JsonTypeInfo.Id.NAME)
	@JsonSubTypes({ @JsonSubTypes.Type(value = Circle.class, name = "circle"),
			@JsonSubTypes.Type(value = Square.class, name = "square") })
	public interface Shape {

	}

	public record Circle(double radius) implements Shape {
	}

	public record Square(int side) implements Shape {
	}

	public record Triangle() implements Shape {
	}

}
