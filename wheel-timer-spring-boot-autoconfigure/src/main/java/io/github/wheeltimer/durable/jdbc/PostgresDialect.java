package io.github.wheeltimer.durable.jdbc;

import java.time.Duration;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * PostgreSQL 12 and later: the claim and a batch's gates are each one {@code UPDATE ...
 * RETURNING}, whose subquery's row locks last as long as the update, and the migration scripts
 * run under an advisory lock, as {@code CREATE ... IF NOT EXISTS} fails when another
 * session creates the same table at the same moment.
 */
public class PostgresDialect extends DurableDialect {

	/** Advisory lock keys are the application's: this one is ours, plus the prefix's hash. */
	private static final long SCHEMA_LOCK_BASE = 0x5768_6565_6c54_0000L;

	@Override
	public String platform() {
		return "postgresql";
	}

	@Override
	public String before(Duration duration) {
		return "(CURRENT_TIMESTAMP - INTERVAL '" + duration.toMillis() + " milliseconds')";
	}

	@Override
	public String upsertByKey(String table, String columns, String values) {
		return "INSERT INTO " + table + " (" + columns + ") VALUES (" + values + ")"
				+ " ON CONFLICT (method_id, call_key) DO UPDATE SET id = EXCLUDED.id, arguments = EXCLUDED.arguments,"
				+ " due_at = EXCLUDED.due_at, state = EXCLUDED.state, owner_id = EXCLUDED.owner_id, attempts = 0,"
				+ " trace_parent = EXCLUDED.trace_parent, shape = EXCLUDED.shape, created_at = EXCLUDED.created_at,"
				+ " failures = 0, retries = 0, retrying_since = NULL, finished_at = NULL, last_error = NULL WHERE " + table
				+ ".state IN ('PENDING', 'CLAIMED')";
	}

	/**
	 * From version 3 the claim's index names {@code pending}, not {@code state}, and no index
	 * names the key alone: a gate that leaves the key is a heap-only update.
	 */
	@Override
	public boolean gateInPlace() {
		return true;
	}

	@Override
	public String pending() {
		return "pending";
	}

	@Override
	public String retiredIndex() {
		return "CALL_DUE";
	}

	@Override
	public boolean indexExists(JdbcTemplate jdbc, String name) {
		return Boolean.TRUE.equals(jdbc.queryForObject("SELECT to_regclass(?) IS NOT NULL", Boolean.class, name));
	}

	/** {@code CONCURRENTLY}: waits for the transactions that use the index, and holds no writer meanwhile. */
	@Override
	public String dropIndex(String name) {
		return "DROP INDEX CONCURRENTLY IF EXISTS " + name;
	}

	/**
	 * {@code ANY(ARRAY(...))} makes the locking, limited subquery an init plan, run once: under
	 * {@code IN (...)} the planner may run it again (a rescan, a re-check of a row updated
	 * meanwhile), and a claim would take more or fewer rows than its limit.
	 */
	@Override
	public String inSubquery(String column, String subquery) {
		return column + " = ANY(ARRAY(" + subquery + "))";
	}

	@Override
	public String returning(String update, String columns) {
		return update + " RETURNING " + columns;
	}

	@Override
	public void lockSchema(JdbcTemplate jdbc, String name) {
		jdbc.queryForList("SELECT pg_advisory_lock(?)", SCHEMA_LOCK_BASE + name.hashCode());
	}

	@Override
	public void unlockSchema(JdbcTemplate jdbc, String name) {
		jdbc.queryForList("SELECT pg_advisory_unlock(?)", SCHEMA_LOCK_BASE + name.hashCode());
	}

}
