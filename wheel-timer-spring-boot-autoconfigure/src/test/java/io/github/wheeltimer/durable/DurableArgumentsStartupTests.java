package io.github.wheeltimer.durable;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import io.github.wheeltimer.VirtualTime;
import io.github.wheeltimer.annotation.DelayedExecution;
import io.github.wheeltimer.annotation.InvalidDelayedExecutionException;
import io.github.wheeltimer.autoconfigure.WheelTimerAutoConfiguration;
import io.github.wheeltimer.autoconfigure.WheelTimerDurableAutoConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A durable method whose parameter types would not come back from JSON as they were written
 * fails startup, naming the method, the parameter and the property, and saying what to change;
 * the types that do come back start, as the application's mapper (its naming, its annotations)
 * writes and reads them.
 */
class DurableArgumentsStartupTests {

	private static final String PREFIX = "io.github.wheeltimer.durable.DurableArgumentsStartupTests$";

	private static final Duration TICK = Duration.ofMillis(10);

	/** The delay of the methods that record their runs ({@link Recorder}s). */
	private static final Duration DELAY = Duration.ofMillis(50);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
				WheelTimerAutoConfiguration.class, DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
				WheelTimerDurableAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:startup-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"wheel-timer.tick-duration=10ms", "wheel-timer.durable.horizon=1s",
				"wheel-timer.durable.poll-interval=200ms", "wheel-timer.durable.heartbeat-interval=200ms",
				"wheel-timer.durable.lease=1s")
		.withUserConfiguration(VirtualTime.class);

	@Test
	void aConstructorParameterThatNoGetterWritesFailsStartup() {
		this.runner.withBean(TakesAPrice.class)
			.run((context) -> assertThat(startupFailure(context.getStartupFailure()))
				.hasMessageContaining("TakesAPrice.later(DurableArgumentsStartupTests.Price)")
				.hasMessageContaining("durable calls store their arguments as JSON, and its parameter 0 (" + PREFIX
						+ "Price) would not come back as it was written: 'euro' is written but cannot be set back (no"
						+ " setter, field or constructor parameter takes it); its constructor takes 'currency', which"
						+ " is never written (no getter or visible field gives it). Make what is written and what is"
						+ " read the same properties"));
	}

	@Test
	void aTypeThatCannotComeBackDeepInAParameterIsNamedWithItsPath() {
		this.runner.withBean(TakesPrices.class)
			.run((context) -> assertThat(startupFailure(context.getStartupFailure()))
				.hasMessageContaining("its parameter 0 (java.util.Map<java.lang.String,java.util.List<" + PREFIX
						+ "Price>>) at prices[][] (" + PREFIX + "Price) would not come back as it was written"));
	}

	@Test
	void aGetterDerivedFromTheOthersFailsStartupUnlessMarkedReadOnly() {
		this.runner.withBean(TakesABasket.class)
			.run((context) -> assertThat(startupFailure(context.getStartupFailure()))
				.hasMessageContaining("parameter 0 (" + PREFIX + "Basket) would not come back as it was written: 'size'"
						+ " is written but cannot be set back")
				.hasMessageEndingWith("@JsonIgnore or @JsonProperty(access = READ_ONLY) on getters derived from the"
						+ " others (a record does all this)"));
		MarkedBasket basket = new MarkedBasket(List.of("a", "b"));
		this.runner.withBean(TakesAMarkedBasket.class)
			.run((context) -> {
				MarkedBasket back = ranWith(context, TakesAMarkedBasket.class, (takes) -> takes.later(basket));
				assertThat(back).isEqualTo(basket);
			});
	}

	@Test
	void anUnwrappedPropertyComesBack() {
		Shipment shipment = new Shipment();
		shipment.setId("s-1");
		shipment.setAddress(new Address("1 Main St", "Springfield"));
		this.runner.withBean(TakesAShipment.class).run((context) -> {
			Shipment back = ranWith(context, TakesAShipment.class, (takes) -> takes.later(shipment));
			assertThat(back.getId()).isEqualTo("s-1");
			assertThat(back.getAddress()).isEqualTo(new Address("1 Main St", "Springfield"));
		});
	}

	@Test
	void aSetterWithoutAGetterFailsStartup() {
		this.runner.withBean(TakesACredential.class)
			.run((context) -> assertThat(startupFailure(context.getStartupFailure()))
				.hasMessageContaining("parameter 0 (" + PREFIX + "Credential) would not come back as it was written:"
						+ " 'secret' can be set but is never written (it has no getter)"));
	}

	@Test
	void aParameterDeclaredObjectFailsStartupSayingToDeclareItsType() {
		this.runner.withBean(TakesAnObject.class)
			.run((context) -> assertThat(startupFailure(context.getStartupFailure()))
				.hasMessageContaining("TakesAnObject.later(Object)")
				.hasMessageContaining("its parameter 0 (java.lang.Object) is declared Object, so its JSON carries no"
						+ " type: the argument would come back as whatever JSON makes of it (a String, a number, a List"
						+ " or a Map); declare the parameter's type"));
	}

	@Test
	void aMapKeyedByABeanFailsStartup() {
		this.runner.withBean(TakesAMapByBean.class)
			.run((context) -> assertThat(startupFailure(context.getStartupFailure()))
				.hasMessageContaining("parameter 0 (java.util.Map<" + PREFIX + "Line,java.lang.Integer>) has map keys"
						+ " of " + PREFIX + "Line, which JSON keys hold as their toString() and cannot read back; key"
						+ " the map by a String, a number, an enum, a UUID or a date"));
	}

	@Test
	void aMapOfObjectsPassesStartup() {
		this.runner.withBean(TakesAMapOfObjects.class).run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void theApplicationsNamingStrategyAndRenamesCount() {
		this.runner
			.withPropertyValues("spring.jackson.property-naming-strategy=SNAKE_CASE")
			.withBean(TakesAPerson.class)
			.run((context) -> {
				Person person = new Person();
				person.setGivenName("Ada");
				person.setFamilyName("Lovelace");
				Person back = ranWith(context, TakesAPerson.class, (takes) -> takes.later(person));
				assertThat(back.getGivenName()).isEqualTo("Ada");
				assertThat(back.getFamilyName()).isEqualTo("Lovelace");
			});
	}

	/** Makes a call and returns the argument it ran with. */
	@SuppressWarnings("unchecked")
	private static <T extends Recorder, A> A ranWith(AssertableApplicationContext context, Class<T> type,
			Consumer<T> call) {
		assertThat(context).hasNotFailed();
		T bean = context.getBean(type);
		call.accept(bean);
		VirtualTime.advance(context, DELAY.minus(TICK));
		assertThat(bean.received()).as("never before its delay").isEmpty();
		VirtualTime.advance(context, TICK);
		assertThat(bean.received()).as("ran once").hasSize(1);
		return (A) bean.received().get(0);
	}

	/** The failure that names the method, as Boot reports it. */
	private static Throwable startupFailure(Throwable failure) {
		assertThat(failure).as("startup failure").isNotNull();
		Throwable invalid = failure;
		while (invalid != null && !(invalid instanceof InvalidDelayedExecutionException)) {
			invalid = invalid.getCause();
		}
		assertThat(invalid).as("InvalidDelayedExecutionException in " + failure).isNotNull();
		return invalid;
	}

	/** Written as {@code {"amount":9.99,"euro":true}}: its currency would come back null. */
	public static class Price {

		private final BigDecimal amount;

		private final String currency;

		public Price(BigDecimal amount, String currency) {
			this.amount = amount;
			this.currency = currency;
		}

		public BigDecimal getAmount() {
			return this.amount;
		}

		public boolean isEuro() {
			return "EUR".equals(this.currency);
		}

	}

	public static class TakesAPrice {

		@DelayedExecution(delay = 1000, durable = true)
		public void later(Price price) {
		}

	}

	public static class TakesPrices {

		@DelayedExecution(delay = 1000, durable = true)
		public void later(Map<String, List<Price>> prices) {
		}

	}

	public record Basket(List<String> items) {

		public int getSize() {
			return this.items.size();
		}

	}

	public static class TakesABasket {

		@DelayedExecution(delay = 1000, durable = true)
		public void later(Basket basket) {
		}

	}

	public record MarkedBasket(List<String> items) {

		@JsonProperty(access = JsonProperty.Access.READ_ONLY)
		public int getSize() {
			return this.items.size();
		}

	}

	public static class TakesAMarkedBasket extends Recorder {

		@DelayedExecution(delay = 50, durable = true)
		public void later(MarkedBasket basket) {
			record(basket);
		}

	}

	public static class Credential {

		private String user;

		private String secret;

		public String getUser() {
			return this.user;
		}

		public void setUser(String user) {
			this.user = user;
		}

		public void setSecret(String secret) {
			this.secret = secret;
		}

		boolean matches(String secret) {
			return secret.equals(this.secret);
		}

	}

	public static class TakesACredential {

		@DelayedExecution(delay = 1000, durable = true)
		public void later(Credential credential) {
		}

	}

	public static class TakesAnObject {

		@DelayedExecution(delay = 1000, durable = true)
		public void later(Object payload) {
		}

	}

	public record Line(String sku, int quantity) {
	}

	public static class TakesAMapByBean {

		@DelayedExecution(delay = 1000, durable = true)
		public void later(Map<Line, Integer> quantities) {
		}

	}

	public static class TakesAMapOfObjects {

		@DelayedExecution(delay = 1000, durable = true)
		public void later(Map<String, Object> attributes, List<Map<String, Object>> events) {
		}

	}

	public static class Person {

		private String givenName;

		private String familyName;

		@JsonProperty("first")
		public String getGivenName() {
			return this.givenName;
		}

		@JsonProperty("first")
		public void setGivenName(String givenName) {
			this.givenName = givenName;
		}

		public String getFamilyName() {
			return this.familyName;
		}

		public void setFamilyName(String familyName) {
			this.familyName = familyName;
		}

	}

	public static class TakesAPerson extends Recorder {

		@DelayedExecution(delay = 50, durable = true)
		public void later(Person person) {
			record(person);
		}

	}

	public static class Shipment {

		private String id;

		private Address address;

		public String getId() {
			return this.id;
		}

		public void setId(String id) {
			this.id = id;
		}

		@JsonUnwrapped
		public Address getAddress() {
			return this.address;
		}

		public void setAddress(Address address) {
			this.address = address;
		}

	}

	public record Address(String street, String city) {
	}

	public static class TakesAShipment extends Recorder {

		@DelayedExecution(delay = 50, durable = true)
		public void later(Shipment shipment) {
			record(shipment);
		}

	}

	/** Keeps the argument each call ran with. */
	public static class Recorder {

		private final List<Object> received = new CopyOnWriteArrayList<>();

		public List<Object> received() {
			return this.received;
		}

		void record(Object argument) {
			this.received.add(argument);
		}

	}

}
