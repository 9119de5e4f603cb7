package io.github.wheeltimer.durable;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TimeZone;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.wheeltimer.durable.DurableApp.Order;
import io.github.wheeltimer.durable.DurableApp.Orders;
import io.github.wheeltimer.durable.jdbc.ClaimAndGateStatements;
import io.github.wheeltimer.durable.jdbc.DurableDialect;
import io.github.wheeltimer.durable.jdbc.DurableTables;
import io.github.wheeltimer.durable.jdbc.MySqlDialect;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.TransactionDefinition;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DurableCallsContractTests} on a real MariaDB 10.11 through MariaDB's driver, plus what
 * only MySQL and MariaDB show: time zones, keys compared byte for byte, deadlocks, and the schema
 * lock.
 */
class MariaDbDurableCallsTests extends DurableCallsContractTests {

	@Override
	String newDatabase() {
		return MariaDb.newDatabase("mariadb");
	}

	@Test
	void aJvmInShanghaiAgainstAUtcServerRunsACallAfterItsDelayNotEightHoursOff() {
		TimeZone zone = TimeZone.getDefault();
		TimeZone.setDefault(TimeZone.getTimeZone("Asia/Shanghai"));
		try {
			// And a session whose time zone is neither: NOW() would be five hours behind UTC there.
			String url = newDatabase() + "&sessionVariables=time_zone='-05:00'";
			ConfigurableApplicationContext app = start(url);
			JdbcTemplate jdbc = jdbc(app);
			Instant calledAt = Instant.now();
			app.getBean(Orders.class).far("shanghai", calledAt);
			// Stored in UTC: due about 1.5 s after the server's UTC clock, not 8 hours either way.
			Double dueIn = jdbc.queryForObject("SELECT TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), due_at) / 1e6"
					+ " FROM WHEEL_TIMER_CALL", Double.class);
			assertThat(dueIn).isBetween(0.5, 1.5);
			awaitRuns(app, 1);
			Instant ranAt = instant(runs(app).get(0).get("ran_at"));
			assertThat(ranAt).isAfterOrEqualTo(calledAt.plusMillis(1500)).isBefore(calledAt.plusSeconds(10));
		}
		finally {
			TimeZone.setDefault(zone);
		}
	}

	@ParameterizedTest(name = "{0}, cancelling an absent key: {1}")
	@CsvSource({ "REPEATABLE-READ, false", "READ-COMMITTED, true", "REPEATABLE-READ, true" })
	void aCallersOpenTransactionHoldsUpNoOtherCall(String isolation, boolean cancelAbsent) throws Exception {
		ConfigurableApplicationContext app = start(newDatabase(), "spring.datasource.hikari.transaction-isolation=TRANSACTION_"
				+ isolation.replace('-', '_'));
		assertThat(jdbc(app).queryForObject("SELECT @@tx_isolation", String.class)).isEqualTo(isolation);
		Orders orders = app.getBean(Orders.class);
		CountDownLatch made = new CountDownLatch(1);
		CountDownLatch othersRan = new CountDownLatch(1);
		ExecutorService caller = Executors.newSingleThreadExecutor();
		try {
			// A caller's transaction that makes a call, cancels another, and stays open: its rows and
			// the index entries it touched stay locked meanwhile.
			Future<?> open = caller.submit(() -> transactions(app).executeWithoutResult((status) -> {
				orders.cancelIfUnpaid("held", Instant.now());
				if (cancelAbsent) {
					app.getBean(DurableCalls.class).cancel("Orders.cancelIfUnpaid", "gone");
				}
				made.countDown();
				try {
					othersRan.await(20, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}));
			assertThat(made.await(10, TimeUnit.SECONDS)).isTrue();
			// Other callers' calls of the same method are made, claimed, gated and finished meanwhile.
			for (int i = 0; i < 5; i++) {
				orders.cancelIfUnpaid("other-" + i, Instant.now());
			}
			awaitRuns(app, 5);
			assertThat(runs(app)).extracting((run) -> run.get("call_id")).doesNotContain("held");
			othersRan.countDown();
			open.get(10, TimeUnit.SECONDS);
			awaitRuns(app, 6);
			assertThat(runs(app)).extracting((run) -> run.get("call_id")).contains("held");
		}
		finally {
			othersRan.countDown();
			caller.shutdownNow();
		}
	}

	@Test
	void anInstanceFrozenInTheMiddleOfItsClaimDoesNotKeepTheOthersFromTakingADeadInstancesCallsOver()
			throws Exception {
		ConfigurableApplicationContext app = start(newDatabase());
		JdbcTemplate jdbc = jdbc(app);
		DurableDialect dialect = app.getBean(DurableDialect.class);
		// Another instance's claim, as the repository runs it, frozen before its commit (a GC pause):
		// its locking read has scanned the pending rows due within its horizon.
		try (Connection frozen = app.getBean(DataSource.class).getConnection()) {
			frozen.setTransactionIsolation(isolation(dialect.ownTransactionIsolation(), frozen));
			frozen.setAutoCommit(false);
			try (PreparedStatement claim = frozen.prepareStatement(ClaimAndGateStatements.claimSelect(dialect,
					DurableTables.withPrefix("WHEEL_TIMER_"), "id", 1, 0))) {
				claim.setString(1, dialect.instant(Instant.now().plusSeconds(60)).toString());
				claim.setString(2, "orders.far");
				claim.setInt(3, 100);
				claim.executeQuery().close();
			}
			// A dead instance's claimed call: taking it over puts it back to pending, into that range.
			UUID dead = UUID.randomUUID();
			insertInstance(jdbc, dead, "dead", Instant.now().minusSeconds(30), "orders.far");
			insertRow(jdbc, "orders.far", "[\"held by the dead\",null]", "CLAIMED", dead, 0);
			awaitRuns(app, 1);
			frozen.rollback();
		}
		assertThat(runs(app)).extracting((run) -> run.get("call_id")).containsExactly("held by the dead");
	}

	private static int isolation(int level, Connection connection) throws SQLException {
		return (level == TransactionDefinition.ISOLATION_DEFAULT) ? connection.getTransactionIsolation() : level;
	}

	@Test
	void keysThatDifferOnlyInCaseOrTrailingSpacesAreDifferentCalls() {
		ConfigurableApplicationContext app = start(newDatabase());
		Orders orders = app.getBean(Orders.class);
		// A text collation would take all three for one key, and each call would replace the last.
		orders.remind(new Order("o-1", 1));
		orders.remind(new Order("O-1", 2));
		orders.remind(new Order("o-1 ", 3));
		assertThat(calls(app)).isEqualTo(3);
		assertThat(app.getBean(DurableCalls.class).cancel("orders.remind", "o-1 ")).isTrue();
		assertThat(jdbc(app).queryForList("SELECT arguments FROM WHEEL_TIMER_CALL ORDER BY arguments", String.class))
			.containsExactly("[{\"id\":\"O-1\",\"cents\":2}]", "[{\"id\":\"o-1\",\"cents\":1}]");
	}

	@Test
	void manyCallersReplacingAndCancellingTheSameKeysAtOnceNeverSeeADeadlock() throws Exception {
		// InnoDB's INSERT ... ON DUPLICATE KEY UPDATE takes a shared lock on the duplicate, then an
		// exclusive one: callers replacing one key at once deadlock, and the losers are retried.
		ConfigurableApplicationContext app = start(newDatabase());
		Orders orders = app.getBean(Orders.class);
		DurableCalls calls = app.getBean(DurableCalls.class);
		int threads = 6;
		int rounds = 150;
		ExecutorService callers = Executors.newFixedThreadPool(threads);
		try {
			CyclicBarrier together = new CyclicBarrier(threads);
			List<Future<?>> done = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int caller = t;
				done.add(callers.submit(() -> {
					together.await(10, TimeUnit.SECONDS);
					for (int i = 0; i < rounds; i++) {
						String key = "k-" + (i % 4);
						if ((i + caller) % 5 == 0) {
							calls.cancel("orders.remind", key);
						}
						else {
							orders.remind(new Order(key, caller));
						}
					}
					return null;
				}));
			}
			for (Future<?> caller : done) {
				caller.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			callers.shutdownNow();
		}
		// Each key names at most one pending call, and each call of the last round is there or cancelled.
		assertThat(jdbc(app).queryForList("SELECT call_key FROM WHEEL_TIMER_CALL", String.class))
			.doesNotHaveDuplicates()
			.isSubsetOf("k-0", "k-1", "k-2", "k-3");
	}

	@Test
	void theClaimReadsPendingRowsThroughTheDueIndex() {
		ConfigurableApplicationContext app = start(newDatabase());
		JdbcTemplate jdbc = jdbc(app);
		for (int i = 0; i < 40; i++) {
			insertRow(jdbc, "orders.far", "[\"x" + i + "\",null]", (i % 10 == 0) ? "PENDING" : "FAILED", null, 0);
		}
		jdbc.execute("ANALYZE TABLE WHEEL_TIMER_CALL");
		String claim = ClaimAndGateStatements.claimStatement(MySqlDialect.mariaDb(),
				DurableTables.withPrefix("WHEEL_TIMER_"), 2, 0);
		assertThat(claim).contains("LIMIT ? FOR UPDATE SKIP LOCKED");
		List<String> keys = jdbc.query("EXPLAIN " + claim.replaceFirst("\\?", "UTC_TIMESTAMP(6)")
			.replaceFirst("\\?", "'orders.far'")
			.replaceFirst("\\?", "'Orders.explode'")
			.replaceFirst("\\?", "500"), (rs, n) -> rs.getString("key"));
		assertThat(keys).containsExactly("WHEEL_TIMER_CALL_DUE");
	}

}
