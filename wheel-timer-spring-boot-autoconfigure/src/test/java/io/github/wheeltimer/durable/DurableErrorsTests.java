package io.github.wheeltimer.durable;

import java.time.Instant;
import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import io.github.wheeltimer.actuate.WheelTimerEndpoint;
import io.github.wheeltimer.annotation.DelayedExecution;
import io.github.wheeltimer.annotation.InvalidDelayedExecutionException;
import io.github.wheeltimer.autoconfigure.WheelTimerAutoConfiguration;
import io.github.wheeltimer.autoconfigure.WheelTimerDurableAutoConfiguration;
import io.github.wheeltimer.autoconfigure.WheelTimerEndpointAutoConfiguration;
import io.github.wheeltimer.durable.DurableApp.Orders;
import io.github.wheeltimer.durable.engine.DurableEngine;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A durable method that cannot work fails startup, naming the method and what to do; a call that
 * cannot be written fails in the caller's thread.
 */
class DurableErrorsTests {

	private final ApplicationContextRunner withDatabase = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
				WheelTimerAutoConfiguration.class, DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
				WheelTimerDurableAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:errors-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");

	@Test
	void aDurableMethodWithoutADataSourceSaysWhatToAdd() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
					WheelTimerAutoConfiguration.class, WheelTimerDurableAutoConfiguration.class))
			.withBean(Fine.class)
			.run((context) -> assertThat(rootCause(context.getStartupFailure()))
				.isInstanceOf(InvalidDelayedExecutionException.class)
				.hasMessageContaining("Fine.later(String)")
				.hasMessageContaining("there is no DataSource bean")
				.hasMessageContaining("add spring-boot-starter-jdbc"));
	}

	@Test
	void aDurableMethodWithoutSpringJdbcSaysWhichStarterToAdd() {
		this.withDatabase.withClassLoader(new FilteredClassLoader("org.springframework.jdbc"))
			.withBean(Fine.class)
			.run((context) -> assertThat(rootCause(context.getStartupFailure()))
				.hasMessageContaining("Fine.later(String)")
				.hasMessageContaining("add spring-boot-starter-jdbc and a database driver"));
	}

	@Test
	void inMemoryDelayedMethodsNeedNeitherSpringJdbcNorJackson() {
		new ApplicationContextRunner()
			.withClassLoader(new FilteredClassLoader("org.springframework.jdbc", "tools.jackson"))
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
					WheelTimerAutoConfiguration.class, WheelTimerDurableAutoConfiguration.class,
					WheelTimerEndpointAutoConfiguration.class))
			.withPropertyValues("management.endpoints.web.exposure.include=*")
			.withBean(InMemory.class)
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(DurableEngine.class);
				assertThat(context.getBean(WheelTimerEndpoint.class).timers().durable()).isNull();
			});
	}

	@Test
	void aParameterTypeThatCannotComeBackFromJson() {
		this.withDatabase.withBean(TakesARunnable.class)
			.run((context) -> assertThat(rootCause(context.getStartupFailure()))
				.hasMessageContaining("TakesARunnable.later(Runnable)")
				.hasMessageContaining("parameter 0 (java.lang.Runnable) is abstract"));
	}

	@Test
	void aParameterTypeWithNoWayToCreateIt() {
		this.withDatabase.withBean(TakesAnUncreatable.class)
			.run((context) -> assertThat(rootCause(context.getStartupFailure()))
				.hasMessageContaining("TakesAnUncreatable.later(DurableErrorsTests.Uncreatable)")
				.hasMessageContaining("cannot be created from JSON"));
	}

	@Test
	void aKeyThatIsNotSpel() {
		this.withDatabase.withBean(BadKey.class)
			.run((context) -> assertThat(rootCause(context.getStartupFailure()))
				.hasMessageContaining("BadKey.later(String)")
				.hasMessageContaining("its key \"#orderId +\" is not a valid SpEL expression"));
	}

	@Test
	void twoDurableMethodsWithOneId() {
		this.withDatabase.withBean(SameIdOne.class)
			.withBean(SameIdTwo.class)
			.run((context) -> assertThat(rootCause(context.getStartupFailure()))
				.hasMessageContaining("its durable id 'orders.cancel' is also the id of")
				.hasMessageContaining("give one of them @DelayedExecution(id = \"...\")"));
	}

	@Test
	void aKeyOnAnInMemoryMethod() {
		this.withDatabase.withBean(KeyWithoutDurable.class)
			.run((context) -> assertThat(rootCause(context.getStartupFailure()))
				.hasMessageContaining("KeyWithoutDurable.later(String)")
				.hasMessageContaining("it gives a key, which only durable methods have"));
	}

	@Test
	void aKeyNamingAParameterTheMethodDoesNotHaveFailsStartup() {
		this.withDatabase.withBean(RenamedParameter.class)
			.run((context) -> assertThat(rootCause(context.getStartupFailure()))
				.hasMessageContaining("RenamedParameter.later(String)")
				.hasMessageContaining("its key \"#orderId\" names #orderId, which is not one of its parameters [#id]"));
		this.withDatabase.withBean(KeyBeyondTheParameters.class)
			.run((context) -> assertThat(rootCause(context.getStartupFailure()))
				.hasMessageContaining("its key \"#p1 + #id\" names #p1, and the method has 1 parameter"));
	}

	@Test
	void aKeyByPositionOrOfAPropertyOfAParameterStarts() {
		this.withDatabase.withBean(KeysThatWork.class).run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void anIdLongerThanItsColumnFailsStartup() {
		this.withDatabase.withBean(LongId.class)
			.run((context) -> assertThat(rootCause(context.getStartupFailure()))
				.hasMessageContaining("LongId.later(String)")
				.hasMessageContaining("its durable id is 201 characters long, and ids are stored in a column of 200"));
	}

	@Test
	void aDelayBeyondWhatCanBeStoredFailsStartup() {
		this.withDatabase.withBean(ForeverInMillis.class)
			.run((context) -> assertThat(rootCause(context.getStartupFailure()))
				.hasMessageContaining("ForeverInMillis.later(String)")
				.hasMessageContaining("is longer than durable calls keep: at most about 292 years"));
		this.withDatabase.withBean(ForeverInSeconds.class)
			.run((context) -> assertThat(rootCause(context.getStartupFailure()))
				.hasMessageContaining("ForeverInSeconds.later(String)")
				.hasMessageContaining("is longer than durable calls keep"));
	}

	@Test
	void aKeyLongerThanItsColumnFailsInTheCallersThreadNamingTheMethodTheLimitAndTheLength() {
		ConfigurableApplicationContext app = DurableApp
			.start("jdbc:h2:mem:long-key-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		try {
			String key = "o".repeat(501);
			assertThatIllegalArgumentException().isThrownBy(() -> app.getBean(Orders.class).cancelIfUnpaid(key, null))
				.withMessage("The key \"#orderId\" of the durable delayed method"
						+ " DurableApp.Orders.cancelIfUnpaid(String, Instant) gave a value of 501 characters; a key is"
						+ " stored as text of at most 500 characters (UTF-16 units), without NUL");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> app.getBean(Orders.class).cancelIfUnpaid("o-\u0000", null))
				.withMessageContaining("gave a value of 3 characters holding a NUL character");
			assertThat(app.getBean(DurableCalls.class).cancel("Orders.cancelIfUnpaid", key)).isFalse();
		}
		finally {
			app.close();
		}
	}

	@Test
	void aPollIntervalNotShorterThanTheHorizon() {
		this.withDatabase.withBean(Fine.class)
			.withPropertyValues("wheel-timer.durable.poll-interval=10s")
			.run((context) -> assertThat(rootCause(context.getStartupFailure()))
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("wheel-timer.durable.poll-interval")
				.hasMessageContaining("must be shorter than wheel-timer.durable.horizon"));
	}

	@Test
	void aPlatformDurableCallsDoNotSupportFailsStartupNamingThePropertyAndTheSupportedOnes() {
		this.withDatabase.withBean(Fine.class)
			.withPropertyValues("wheel-timer.durable.jdbc.platform=oracle")
			.run((context) -> assertThat(rootCause(context.getStartupFailure()))
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("wheel-timer.durable.jdbc.platform")
				.hasMessageContaining("oracle")
				.hasMessageContaining("must be one of postgresql, mysql, mariadb, h2"));
	}

	@Test
	void theNamedPlatformIsTheDialectAndADialectBeanOfTheApplicationsReplacesIt() {
		this.withDatabase.withBean(Fine.class)
			.withPropertyValues("wheel-timer.durable.jdbc.platform=H2")
			.run((context) -> assertThat(context).hasNotFailed()
				.getBean(io.github.wheeltimer.durable.jdbc.DurableDialect.class)
				.isInstanceOf(io.github.wheeltimer.durable.jdbc.H2Dialect.class));
		this.withDatabase.withBean(Fine.class)
			.withBean(io.github.wheeltimer.durable.jdbc.DurableDialect.class, RecordingDialect::new)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(io.github.wheeltimer.durable.jdbc.DurableDialect.class))
					.isInstanceOf(RecordingDialect.class)
					.satisfies((dialect) -> assertThat(((RecordingDialect) dialect).upserts).isPositive());
			});
	}

	/** H2's SQL, counting the upserts the repository asked it for. */
	static class RecordingDialect extends io.github.wheeltimer.durable.jdbc.H2Dialect {

		int upserts;

		@Override
		public String upsertByKey(String table, String columns, String values) {
			this.upserts++;
			return super.upsertByKey(table, columns, values);
		}

	}

	@Test
	void aLeaseShorterThanTwoHeartbeats() {
		this.withDatabase.withBean(Fine.class)
			.withPropertyValues("wheel-timer.durable.lease=3s")
			.run((context) -> assertThat(rootCause(context.getStartupFailure()))
				.hasMessageContaining("wheel-timer.durable.lease")
				.hasMessageContaining("must be at least twice wheel-timer.durable.heartbeat-interval"));
	}

	@Test
	void aCallWhenTheDatabaseCannotBeReachedFailsInTheCallersThread() {
		ConfigurableApplicationContext app = DurableApp
			.start("jdbc:h2:mem:unreachable-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		try {
			app.getBean(HikariDataSource.class).close();
			assertThatExceptionOfType(DataAccessResourceFailureException.class)
				.isThrownBy(() -> app.getBean(Orders.class).cancelIfUnpaid("o-1", Instant.now()))
				.withMessageStartingWith("Durable call to DurableApp.Orders.cancelIfUnpaid(String, Instant) was not"
						+ " accepted: its database cannot be reached (")
				.withCauseInstanceOf(CannotGetJdbcConnectionException.class)
				.havingRootCause()
				.withMessageContaining("has been closed");
		}
		finally {
			app.close();
		}
	}

	private static Throwable rootCause(Throwable failure) {
		assertThat(failure).as("startup failure").isNotNull();
		Throwable cause = NestedExceptionUtils.getMostSpecificCause(failure);
		Throwable invalid = failure;
		while (invalid != null && !(invalid instanceof InvalidDelayedExecutionException)
				&& !(invalid instanceof InvalidConfigurationPropertyValueException)) {
			invalid = invalid.getCause();
		}
		return (invalid != null) ? invalid : cause;
	}

	public static class Fine {

		@DelayedExecution(delay = 1000, durable = true)
		public void later(String orderId) {
		}

	}

	public static class InMemory {

		@DelayedExecution(delay = 1000)
		public void later(Runnable task) {
		}

	}

	public static class TakesARunnable {

		@DelayedExecution(delay = 1000, durable = true)
		public void later(Runnable task) {
		}

	}

	public static class Uncreatable {

		private final String value;

		Uncreatable(String value, int other) {
			this.value = value + other;
		}

		public String getValue() {
			return this.value;
		}

	}

	public static class TakesAnUncreatable {

		@DelayedExecution(delay = 1000, durable = true)
		public void later(Uncreatable value) {
		}

	}

	public static class BadKey {

		@DelayedExecution(delay = 1000, durable = true, key = "#orderId +")
		public void later(String orderId) {
		}

	}

	public static class SameIdOne {

		@DelayedExecution(delay = 1000, durable = true, id = "orders.cancel")
		public void later(String orderId) {
		}

	}

	public static class SameIdTwo {

		@DelayedExecution(delay = 1000, durable = true, id = "orders.cancel")
		public void later(String orderId) {
		}

	}

	public static class RenamedParameter {

		@DelayedExecution(delay = 1000, durable = true, key = "#orderId")
		public void later(String id) {
		}

	}

	public static class KeyBeyondTheParameters {

		@DelayedExecution(delay = 1000, durable = true, key = "#p1 + #id")
		public void later(String id) {
		}

	}

	public static class KeysThatWork {

		@DelayedExecution(delay = 1000, durable = true, key = "#p0")
		public void byPosition(String id) {
		}

		@DelayedExecution(delay = 1000, durable = true, key = "#order.id() + '-' + #a1")
		public void ofAProperty(DurableApp.Order order, int attempt) {
		}

	}

	public static class LongId {

		@DelayedExecution(delay = 1000, durable = true,
				id = "x12345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890")
		public void later(String orderId) {
		}

	}

	public static class ForeverInMillis {

		@DelayedExecution(delay = Long.MAX_VALUE, durable = true)
		public void later(String orderId) {
		}

	}

	public static class ForeverInSeconds {

		@DelayedExecution(delay = Long.MAX_VALUE, timeUnit = java.util.concurrent.TimeUnit.SECONDS, durable = true)
		public void later(String orderId) {
		}

	}

	public static class KeyWithoutDurable {

		@DelayedExecution(delay = 1000, key = "#orderId")
		public void later(String orderId) {
		}

	}

}
