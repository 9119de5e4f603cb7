package io.github.wheeltimer.durable;

import java.time.Duration;
import java.util.List;

import io.github.wheeltimer.durable.jdbc.ClaimAndGateStatements;
import io.github.wheeltimer.durable.jdbc.DurableTables;
import io.github.wheeltimer.durable.jdbc.PostgresDialect;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

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
				DurableTables.withPrefix("WHEEL_TIMER_"), Duration.ofSeconds(30), "id IN (?)");
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
		assertThat(String.join("\n", plan)).contains("WHEEL_TIMER_CALL_DUE".toLowerCase()).doesNotContain("Seq Scan");
	}

}
