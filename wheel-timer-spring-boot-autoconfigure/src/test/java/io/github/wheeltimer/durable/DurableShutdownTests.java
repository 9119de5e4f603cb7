package io.github.wheeltimer.durable;

import java.time.Duration;
import java.time.Instant;

import io.github.wheeltimer.durable.DurableApp.Orders;
import io.github.wheeltimer.durable.engine.DurableEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A stopping instance whose database went away spends at most
 * {@code wheel-timer.durable.shutdown-timeout} on it, not the pool's connection timeout for each
 * statement (30 s each by default: a Kubernetes grace period spent twice over), and says once what
 * it left to the lease.
 */
@ExtendWith(OutputCaptureExtension.class)
class DurableShutdownTests {

	private Postgres.Restartable database;

	@AfterEach
	void stopTheDatabase() throws Exception {
		if (this.database != null) {
			this.database.close();
		}
	}

	@Test
	void aStopWithTheDatabaseDownIsBoundedByTheShutdownTimeout(CapturedOutput output) throws Exception {
		this.database = Postgres.restartable();
		// Heartbeats far apart, so that the outage is not known yet when the stop begins: its
		// statements wait for a connection, as HikariCP's 30 s default lets them.
		ConfigurableApplicationContext app = DurableApp.start(this.database.newDatabase("stopping"),
				"wheel-timer.durable.shutdown-timeout=2s", "wheel-timer.durable.heartbeat-interval=5s",
				"wheel-timer.durable.lease=20s", "wheel-timer.durable.poll-interval=5s",
				"wheel-timer.durable.horizon=10s");
		Orders orders = app.getBean(Orders.class);
		for (int i = 0; i < 3; i++) {
			orders.far("held-" + i, Instant.now());
		}
		assertThat(app.getBean(DurableEngine.class).held()).isEqualTo(3);
		this.database.stop();
		long started = System.nanoTime();
		app.close();
		Duration took = Duration.ofNanos(System.nanoTime() - started);
		// 2 s of statements, plus the timers' own stop; without the bound, a minute and more.
		assertThat(took).isLessThan(Duration.ofSeconds(15));
		assertThat(output.getOut()).containsOnlyOnce("Durable calls stopped without finishing their writes to the"
				+ " database, as the database ")
			.contains("The calls this instance held stay claimed by it until its lease (PT20S) runs out");
	}

	@Test
	void aHealthyStopRunsTheCallsItKeepsAndHandsTheRestBackWhateverTheTimeout(CapturedOutput output) {
		// A poll interval longer than the time the stop may spend on the database: waiting for the
		// calls it keeps to start is not time on the database.
		ConfigurableApplicationContext app = DurableApp.start(
				"jdbc:h2:mem:stopping-" + java.util.UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"wheel-timer.durable.shutdown-timeout=1s", "wheel-timer.durable.poll-interval=3s",
				"wheel-timer.durable.horizon=10s");
		DurableEngine durable = app.getBean(DurableEngine.class);
		Orders orders = app.getBean(Orders.class);
		for (int i = 0; i < 3; i++) {
			orders.far("kept-" + i, Instant.now());
		}
		app.close();
		assertThat(durable.counts().started()).isEqualTo(3);
		assertThat(output.getOut()).doesNotContain("Durable calls stopped without finishing their writes");
	}

}
