package io.github.wheeltimer.durable;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;

import io.github.wheeltimer.VirtualTime;
import io.github.wheeltimer.durable.DurableApp.Orders;
import io.github.wheeltimer.durable.jdbc.ClaimAndGateStatements;
import io.github.wheeltimer.durable.jdbc.DurableTables;
import io.github.wheeltimer.durable.jdbc.PostgresDialect;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link DurableCallsContractTests} on a real PostgreSQL, plus what only PostgreSQL shows: the plan
 * of the claim.
 */
class PostgresDurableCallsTests extends DurableCallsContractTests {

	@Override
	String newDatabase() {
		return Postgres.newDatabase();
	}

	@Test
	void theStartGateFindsItsRowByPrimaryKeyWhenThisInstanceHoldsABacklog() {
		ConfigurableApplicationContext app = start(newDatabase());
		JdbcTemplate jdbc = jdbc(app);
		// What autovacuum sees in a table with a backlog: most rows pending, with no owner...
		jdbc.update("INSERT INTO WHEEL_TIMER_CALL (id, method_id, arguments, due_at, state)"
				+ " SELECT gen_random_uuid(), 'orders.far', '[\"x\",null]', now(), 'PENDING'"
				+ " FROM generate_series(1, 20000)");
		jdbc.execute("ANALYZE WHEEL_TIMER_CALL");
		// ...then this instance claims thousands of them.
		jdbc.update("UPDATE WHEEL_TIMER_CALL SET state = 'CLAIMED', owner_id = '00000000-0000-0000-0000-000000000001'"
				+ " WHERE id IN (SELECT id FROM WHEEL_TIMER_CALL LIMIT 5000)");
		String gate = ClaimAndGateStatements.gateStatement(new PostgresDialect(),
				DurableTables.withPrefix("WHEEL_TIMER_"), Duration.ofSeconds(30), "id IN (?)", true);
		String explain = "EXPLAIN " + gate.replaceFirst("\\?", "'00000000-0000-0000-0000-0000000000aa'::uuid")
			.replaceFirst("\\?", "'00000000-0000-0000-0000-000000000001'::uuid")
			.replaceFirst("\\?", "'00000000-0000-0000-0000-000000000001'::uuid");
		String plan = String.join("\n", jdbc.queryForList(explain, String.class));
		assertThat(plan).contains("wheel_timer_call_pkey").doesNotContain("wheel_timer_call_owner");
	}

	@Test
	void theClaimReadsPendingRowsThroughThePartialIndex() {
		ConfigurableApplicationContext app = start(newDatabase());
		JdbcTemplate jdbc = jdbc(app);
		// Enough rows, mostly not pending, that a sequential scan would be the worse plan anyway;
		// ANALYZE gives the planner the real numbers.
		jdbc.update("INSERT INTO WHEEL_TIMER_CALL (id, method_id, arguments, due_at, state)"
				+ " SELECT gen_random_uuid(), 'orders.far', '[\"x\",null]', now() + (n || ' seconds')::interval,"
				+ " CASE WHEN n % 50 = 0 THEN 'PENDING' ELSE 'FAILED' END FROM generate_series(1, 20000) n");
		jdbc.execute("ANALYZE WHEEL_TIMER_CALL");
		// The repository's own statement (one UPDATE ... RETURNING), with its parameters written in.
		String claim = ClaimAndGateStatements.claimStatement(new PostgresDialect(),
				DurableTables.withPrefix("WHEEL_TIMER_"), 2, 0);
		assertThat(claim).startsWith("UPDATE ").contains(" RETURNING ");
		List<String> plan = jdbc.queryForList("EXPLAIN " + claim
			.replaceFirst("\\?", "'00000000-0000-0000-0000-000000000001'::uuid")
			.replaceFirst("\\?", "now() + interval '10 seconds'")
			.replaceFirst("\\?", "'orders.far'")
			.replaceFirst("\\?", "'Orders.explode'")
			.replaceFirst("\\?", "500"), String.class);
		assertThat(String.join("\n", plan)).contains("WHEEL_TIMER_CALL_PENDING".toLowerCase()).doesNotContain("Seq Scan");
	}


	/**
	 * Calls paced as an application makes them, a few per tick: each gate and finish changes no
	 * indexed column, so that PostgreSQL writes the row's new version on its page (a heap-only
	 * update). The claims and the retries may not be: they change the due index's rows.
	 */
	@Test
	void theStartGatesUpdateTheirRowsInPlace() {
		ConfigurableApplicationContext app = startOnVirtualTime(newDatabase());
		JdbcTemplate jdbc = jdbc(app);
		assertThat(jdbc.queryForObject("SELECT to_regclass('wheel_timer_call_due') IS NULL", Boolean.class))
			.as("the claim index of starters before version 3, dropped as none runs")
			.isTrue();
		Orders orders = app.getBean(Orders.class);
		long[] before = updates(jdbc);
		int calls = 0;
		for (int tick = 0; tick < 60; tick++) {
			for (int i = 0; i < 5; i++) {
				orders.cancelIfUnpaid("o-" + calls++, VirtualTime.now(app));
			}
			VirtualTime.advance(app, Duration.ofMillis(10));
		}
		VirtualTime.advance(app, Duration.ofSeconds(1));
		assertThat(runs(app)).hasSize(calls);
		int gates = calls;
		await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
			long[] after = updates(jdbc);
			assertThat(after[0] - before[0]).as("updates: a gate each, and a claim for those a poll claimed")
				.isGreaterThanOrEqualTo(gates);
			assertThat(after[1] - before[1]).as("heap-only updates").isGreaterThanOrEqualTo(gates * 9L / 10);
		});
	}

	/**
	 * A rolling deploy: an instance of a starter before version 3 runs when this one starts, so the
	 * index its claims read stays, and this instance's gates move the key aside as that starter
	 * expects. The next start after it stopped drops the index.
	 */
	@Test
	void theClaimIndexOfAnOlderStarterStaysWhileOneRunsAndGoesAtTheFirstStartAfter() throws Exception {
		String url = newDatabase();
		start(url).close();
		JdbcTemplate jdbc = new JdbcTemplate(TestDatabases.dataSource(url));
		// The tables as an older starter left them, with one of its instances alive: its heartbeat an
		// hour ahead, since nothing renews it, and the next start may take more than the 1 s lease.
		jdbc.execute("CREATE INDEX WHEEL_TIMER_CALL_DUE ON WHEEL_TIMER_CALL (due_at) WHERE state = 'PENDING'");
		UUID older = UUID.randomUUID();
		jdbc.update("INSERT INTO WHEEL_TIMER_INSTANCE (id, name, started_at, heartbeat_at, methods) VALUES (?,"
				+ " 'older', now(), now() + interval '1 hour', 'orders.far')", older);
		// Real time: the run holds its executor thread, which an advance of virtual time would wait for.
		ConfigurableApplicationContext beside = start(url);
		Orders.firstFailureMayEnd = new CountDownLatch(1);
		try {
			beside.getBean(Orders.class).failsSlowly("k-1", "old");
			await().atMost(Duration.ofSeconds(10)).until(() -> runs(beside).size() == 1);
			assertThat(jdbc.queryForMap("SELECT call_key, started_key FROM WHEEL_TIMER_CALL WHERE state = 'RUNNING'"))
				.as("the key moved aside as the call started")
				.containsEntry("call_key", null)
				.containsEntry("started_key", "k-1");
		}
		finally {
			Orders.firstFailureMayEnd.countDown();
		}
		assertThat(jdbc.queryForObject("SELECT to_regclass('wheel_timer_call_due') IS NOT NULL", Boolean.class)).isTrue();
		beside.close();
		jdbc.update("DELETE FROM WHEEL_TIMER_INSTANCE WHERE id = ?", older);
		start(url);
		assertThat(jdbc.queryForObject("SELECT to_regclass('wheel_timer_call_due') IS NULL", Boolean.class)).isTrue();
	}

	/**
	 * Many calls waiting far ahead: the polls (claim, take-over) and the clean-ups (failed calls
	 * past their retention, calls of methods no instance knows) find what they need through
	 * indexes, and none reads the table whole.
	 */
	@Test
	void pollsAndCleanUpsReadNoTableWholeHoweverManyCallsWait() {
		String url = newDatabase();
		start(url).close();
		JdbcTemplate jdbc = new JdbcTemplate(TestDatabases.dataSource(url));
		int waiting = 50_000;
		jdbc.update("INSERT INTO WHEEL_TIMER_CALL (id, method_id, call_key, arguments, due_at, state)"
				+ " SELECT gen_random_uuid(), 'orders.far', 'k-' || n, '[\"x\",null]', now() + interval '30 days'"
				+ " + (n || ' seconds')::interval, 'PENDING' FROM generate_series(1, ?) n", waiting);
		jdbc.execute("ANALYZE WHEEL_TIMER_CALL");
		long before = sequentialReads(jdbc);
		// Its first poll cleans up (then once a minute, by the real clock); the polls follow the virtual one.
		ConfigurableApplicationContext app = startOnVirtualTime(url);
		app.getBean(Orders.class).cancelIfUnpaid("o-1", VirtualTime.now(app));
		VirtualTime.advance(app, Duration.ofMinutes(2));
		assertThat(runs(app)).hasSize(1);
		// Closed, its sessions end, and each reports its reads to the statistics as it ends.
		app.close();
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(jdbc.queryForObject(
				"SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
				Integer.class)).isZero());
		assertThat(sequentialReads(jdbc) - before).as("rows read by sequential scans of the calls' table")
			.isLessThan(waiting);
	}

	private static long sequentialReads(JdbcTemplate jdbc) {
		Long read = jdbc.queryForObject(
				"SELECT seq_tup_read FROM pg_stat_user_tables WHERE relname = 'wheel_timer_call'", Long.class);
		return (read != null) ? read : 0;
	}

	/** @return the table's updates and heap-only updates so far, as the statistics collector has them */
	private static long[] updates(JdbcTemplate jdbc) {
		return jdbc.queryForObject("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname ="
				+ " 'wheel_timer_call'", (rs, n) -> new long[] { rs.getLong(1), rs.getLong(2) });
	}

}
