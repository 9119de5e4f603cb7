package io.github.wheeltimer.durable;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import io.github.wheeltimer.VirtualTime;
import io.github.wheeltimer.actuate.DurableCallsDescriptor;
import io.github.wheeltimer.actuate.DurableCallsUnavailableException;
import io.github.wheeltimer.actuate.WheelTimerEndpoint;
import io.github.wheeltimer.durable.DurableApp.Order;
import io.github.wheeltimer.durable.DurableApp.Orders;
import io.github.wheeltimer.durable.engine.DurableEngine;
import io.github.wheeltimer.durable.jdbc.DurableDialect;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * What operators see of durable calls: the endpoint's view of the database, the health indicator
 * when the database goes away, and the meters.
 */
@ExtendWith(OutputCaptureExtension.class)
class DurableCallsOperatorsTests {

	/** What operators read: the endpoint, health and meters. */
	private static final Class<?>[] ACTUATOR = { WithActuator.class };

	/** {@link DurableApp}'s tick. */
	private static final Duration TICK = Duration.ofMillis(10);

	/** {@link Orders#explode}'s delay. */
	private static final Duration EXPLODE_DELAY = Duration.ofMillis(200);

	private ConfigurableApplicationContext app;

	@AfterEach
	void close() {
		if (this.app != null) {
			this.app.close();
		}
	}

	@Test
	void theEndpointShowsCallsByStateInstancesFailuresAndUnknownMethods() {
		this.app = DurableApp.start(new Class<?>[] { WithActuator.class, VirtualTime.class },
				"jdbc:h2:mem:operators-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"management.endpoints.web.exposure.include=*", "wheel-timer.durable.instance-name=shop-1");
		Orders orders = this.app.getBean(Orders.class);
		orders.explode("o-1");
		orders.remind(new Order("o-2", 5));
		JdbcTemplate jdbc = DurableCallsContractTests.jdbc(this.app);
		DurableCallsContractTests.insertRow(jdbc, "Renamed.method", "[]", "PENDING", null, 0);
		// Overdue by the application's clock, which the endpoint reads: a row by SQL is due by the wall clock.
		Instant overdueSince = VirtualTime.now(this.app).minusSeconds(1);
		jdbc.update("UPDATE WHEEL_TIMER_CALL SET due_at = ? WHERE method_id = 'Renamed.method'",
				this.app.getBean(DurableDialect.class).instant(overdueSince));
		DurableEngine engine = this.app.getBean(DurableEngine.class);
		VirtualTime.advance(this.app, EXPLODE_DELAY.minus(TICK));
		assertThat(engine.counts().failed()).as("never before its delay").isZero();
		VirtualTime.advance(this.app, TICK);
		assertThat(engine.counts().failed()).isOne();
		DurableCallsDescriptor durable = this.app.getBean(WheelTimerEndpoint.class).timers().durable();
		assertThat(durable).isNotNull();
		assertThat(durable.calls()).containsEntry("FAILED", 1L).containsEntry("PENDING", 2L);
		assertThat(durable.oldestOverdue()).isEqualTo(overdueSince);
		assertThat(durable.instances()).singleElement().satisfies((instance) -> {
			assertThat(instance.name()).isEqualTo("shop-1");
			assertThat(instance.alive()).isTrue();
		});
		assertThat(durable.failed()).singleElement()
			.satisfies((failed) -> assertThat(failed.error()).isEqualTo("java.lang.IllegalStateException: boom for o-1"));
		assertThat(durable.unknownMethods()).containsOnlyKeys("Renamed.method");
		assertThat(durable.counts().scheduled()).isEqualTo(2);
		assertThat(durable.databaseError()).isNull();

		MeterRegistry meters = this.app.getBean(MeterRegistry.class);
		assertThat(meters.get("wheel.timer.durable.calls").tag("outcome", "failed").functionCounter().count())
			.isEqualTo(1);
		assertThat(meters.get("wheel.timer.durable.scheduled").functionCounter().count()).isEqualTo(2);
		assertThat(meters.get("wheel.timer.durable.lateness").timer().count()).isEqualTo(1);
	}

	@Test
	void callsOfAMethodOnlyAnotherLiveInstanceKnowsAreNotReportedAsWaitingForOne() {
		this.app = DurableApp.start(ACTUATOR, "jdbc:h2:mem:operators-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"management.endpoints.web.exposure.include=*");
		JdbcTemplate jdbc = DurableCallsContractTests.jdbc(this.app);
		DurableCallsContractTests.insertRow(jdbc, "New.method", "[]", "PENDING", null, 0);
		DurableCallsContractTests.insertRow(jdbc, "Retired.method", "[]", "PENDING", null, 0);
		// Another instance, alive, deployed with the new method; and a dead one that knew the retired one:
		// silent past its lease (1 s), not yet for the ten leases after which a poll removes its row.
		jdbc.update("INSERT INTO WHEEL_TIMER_INSTANCE (id, name, heartbeat_at, methods) VALUES (?, 'new', ?, ?)",
				UUID.randomUUID(), OffsetDateTime.now().plusHours(1), "New.method\norders.far");
		jdbc.update("INSERT INTO WHEEL_TIMER_INSTANCE (id, name, heartbeat_at, methods) VALUES (?, 'old', ?, ?)",
				UUID.randomUUID(), OffsetDateTime.now().minusSeconds(4), "Retired.method");
		DurableCallsDescriptor durable = this.app.getBean(WheelTimerEndpoint.class).timers().durable();
		assertThat(durable.unknownMethods()).containsOnlyKeys("Retired.method");
		assertThat(durable.instances()).extracting(DurableCallsDescriptor.InstanceDescriptor::name).contains("new", "old");
		assertThat(durable.instances()).filteredOn((instance) -> instance.name().equals("new"))
			.singleElement()
			.satisfies((instance) -> assertThat(instance.methods()).containsExactly("New.method", "orders.far"));
		assertThat(this.app.getBean(DurableEngine.class).counts().claimed()).as("not this instance's to claim").isZero();
	}

	@Test
	void anOutageIsOneWarningWithoutAStackTraceHoweverThePollFails(CapturedOutput output) {
		this.app = DurableApp.start(ACTUATOR, "jdbc:h2:mem:operators-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		DurableEngine durable = this.app.getBean(DurableEngine.class);
		this.app.getBean(HikariDataSource.class).close();
		// On real time, as an outage is lived through: several polls (every 200 ms) and heartbeats fail,
		// the claim's own transaction cannot begin.
		await().atMost(Duration.ofSeconds(5)).until(() -> durable.problem() != null);
		await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
			.until(() -> !output.getOut().contains("poll failed")
					&& !output.getOut().contains("CannotCreateTransactionException"));
		assertThat(output.getOut()).containsOnlyOnce("Durable calls cannot reach their database");
		assertThat(durable.problem()).startsWith("The database cannot be reached: ");
	}

	@Test
	void aDroppedTableIsSaidOnceAsMissingAndHealthStaysDownUntilItIsBack(CapturedOutput output) {
		this.app = DurableApp.start(ACTUATOR, "jdbc:h2:mem:operators-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"management.endpoints.web.exposure.include=*");
		HealthIndicator health = this.app.getBean("wheelTimerDurableHealthIndicator", HealthIndicator.class);
		JdbcTemplate jdbc = DurableCallsContractTests.jdbc(this.app);
		jdbc.execute("ALTER TABLE WHEEL_TIMER_CALL RENAME TO WHEEL_TIMER_CALL_AWAY");
		// On real time, as a database problem is lived through: the polls find the table gone as they come.
		await().atMost(Duration.ofSeconds(5)).until(() -> health.health().getStatus().equals(Status.DOWN));
		// Heartbeats still pass meanwhile (their table is there): health must not flap.
		await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
			.until(() -> health.health().getStatus().equals(Status.DOWN));
		assertThat(health.health().getDetails().get("failure").toString())
			.startsWith("The durable calls' tables are missing or incomplete: ");
		assertThat(output.getOut()).containsOnlyOnce("Durable calls' tables are missing or incomplete (poll)")
			.doesNotContain("cannot reach their database")
			.doesNotContain("reach their database again");
		jdbc.execute("ALTER TABLE WHEEL_TIMER_CALL_AWAY RENAME TO WHEEL_TIMER_CALL");
		await().atMost(Duration.ofSeconds(5)).until(() -> health.health().getStatus().equals(Status.UP));
		assertThat(output.getOut()).containsOnlyOnce("Durable calls' tables are usable again");
	}

	@Test
	void healthIsDownWhileTheDatabaseCannotBeReached() {
		this.app = DurableApp.start(ACTUATOR, "jdbc:h2:mem:operators-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"management.endpoints.web.exposure.include=*");
		HealthIndicator health = this.app.getBean("wheelTimerDurableHealthIndicator", HealthIndicator.class);
		assertThat(health.health().getStatus()).isEqualTo(Status.UP);
		this.app.getBean(HikariDataSource.class).close();
		// On real time, as an outage is lived through: polls and heartbeats find the database gone as they come.
		await().atMost(Duration.ofSeconds(5)).until(() -> health.health().getStatus().equals(Status.DOWN));
		assertThat(health.health().getDetails().get("failure").toString())
			.startsWith("The database cannot be reached: ");
		WheelTimerEndpoint endpoint = this.app.getBean(WheelTimerEndpoint.class);
		assertThat(endpoint.timers().durable().databaseError()).startsWith("The database cannot be reached: ");
		// Known unreachable: answered at once, not after the pool's connection timeout.
		assertThatExceptionOfType(DurableCallsUnavailableException.class)
			.isThrownBy(() -> endpoint.durable("durable", "failed", null, null, null, null, null, SecurityContext.NONE))
			.withMessageStartingWith("The database cannot be reached: ");
	}

}
