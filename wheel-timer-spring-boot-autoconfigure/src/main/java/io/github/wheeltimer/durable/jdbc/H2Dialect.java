package io.github.wheeltimer.durable.jdbc;

import java.time.Duration;

/**
 * H2 2.x, for tests and embedded use: its {@code MERGE} replaces a call by key as an update
 * then an insert, so two callers replacing one key at once may both insert.
 */
public class H2Dialect extends DurableDialect {

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

}
