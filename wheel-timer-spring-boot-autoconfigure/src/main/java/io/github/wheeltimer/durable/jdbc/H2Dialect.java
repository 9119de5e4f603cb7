package io.github.wheeltimer.durable.jdbc;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.ReentrantLock;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * H2 2.x, for tests and embedded use: its {@code MERGE} replaces a call by key as an update
 * then an insert, so two callers replacing one key at once may both insert.
 * <p>
 * Its {@code CREATE INDEX IF NOT EXISTS} fails when another session creates the same index at the
 * same moment, and it has no lock a session can take by name: the migration scripts run under a lock
 * of this JVM, which is where an in-memory database's sessions are (several application contexts
 * of one test run, say). Instances in several JVMs on one H2 server are not kept apart.
 */
public class H2Dialect extends DurableDialect {

	/** By the tables' prefix; held by the thread that runs the scripts, from lock to unlock. */
	private static final ConcurrentMap<String, ReentrantLock> schemaLocks = new ConcurrentHashMap<>();

	@Override
	public String platform() {
		return "h2";
	}

	@Override
	public String before(Duration duration) {
		return "DATEADD(MILLISECOND, -" + duration.toMillis() + ", CURRENT_TIMESTAMP)";
	}

	@Override
	public String upsertByKey(String table, String columns, String values) {
		return "MERGE INTO " + table + " (" + columns + ") KEY (method_id, call_key) VALUES (" + values + ")";
	}

	@Override
	public boolean upsertRetriesOnDuplicateKey() {
		return true;
	}

	@Override
	public void lockSchema(JdbcTemplate jdbc, String name) {
		schemaLocks.computeIfAbsent(name, (prefix) -> new ReentrantLock()).lock();
	}

	@Override
	public void unlockSchema(JdbcTemplate jdbc, String name) {
		ReentrantLock lock = schemaLocks.get(name);
		if (lock != null && lock.isHeldByCurrentThread()) {
			lock.unlock();
		}
	}

}
