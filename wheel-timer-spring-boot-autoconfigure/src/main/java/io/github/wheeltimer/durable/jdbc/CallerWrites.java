package io.github.wheeltimer.durable.jdbc;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.github.wheeltimer.durable.CallState;
import io.github.wheeltimer.durable.StoredCall;
import io.github.wheeltimer.durable.storage.CallRepository.Requeue;
import io.github.wheeltimer.durable.storage.FailedCall;
import io.github.wheeltimer.durable.storage.Requeued;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The changes application code and operators make to calls, each in the caller's transaction if it
 * has one: a new call or a replace, a cancel, a reschedule, a re-queue, a delete; and the poll's
 * deletes of failed calls past their retention, the same delete by age. Thread-safe.
 */
final class CallerWrites {

	/** Rows that started or failed: the calls a key no longer names once they started. */
	private static final String NOT_WAITING = "NOT " + CallTable.WAITING;

	/**
	 * How many times a new call's write finds its key held by a call that started: each time, one
	 * more call of that key started between the key's move and the write.
	 */
	private static final int KEY_TRIES = 8;

	/** The columns a new call sets, in the order {@link #insert} binds them. */
	private static final String NEW_COLUMNS = "id, method_id, call_key, arguments, due_at, state, owner_id, attempts,"
			+ " trace_parent, shape, created_at, failures, retries, retrying_since, finished_at, last_error";

	private final CallTable table;

	private final JdbcTemplate jdbc;

	private final DurableDialect dialect;

	private final String calls;

	private final CallRows rows;

	private final CallQueries queries;

	private final String insert;

	private final String upsert;

	CallerWrites(CallTable table, CallRows rows, CallQueries queries) {
		this.table = table;
		this.jdbc = table.jdbc();
		this.dialect = table.dialect();
		this.calls = table.name();
		this.rows = rows;
		this.queries = queries;
		// A new call, or one that replaces a waiting call by its key: no history, whatever that one had.
		String values = "?, ?, ?, ?, ?, ?, ?, 0, ?, ?, " + this.dialect.now() + ", 0, 0, NULL, NULL, NULL";
		this.insert = "INSERT INTO " + this.calls + " (" + NEW_COLUMNS + ") VALUES (" + values + ")";
		this.upsert = this.dialect.upsertByKey(this.calls, NEW_COLUMNS, values);
	}

	void insert(UUID id, String methodId, @Nullable String key, String arguments, Instant due, @Nullable UUID owner,
			@Nullable String traceParent, String shape) {
		Object[] values = { this.dialect.id(id), methodId, key, arguments, this.dialect.instant(due),
				(owner != null) ? CallTable.CLAIMED : CallTable.PENDING, (owner != null) ? this.dialect.id(owner) : null,
				traceParent, shape };
		if (key == null) {
			this.table.update(this.insert, values);
			return;
		}
		if (upsert(values) > 0 || !this.dialect.gateInPlace()) {
			return;
		}
		// A started call holds the key (a gate in place left it): moved aside, it is this call's.
		for (int tries = 0; tries < KEY_TRIES; tries++) {
			releaseStartedKey(methodId, key);
			if (upsert(values) > 0) {
				return;
			}
		}
		throw new IllegalStateException("Could not write a call of " + methodId + " with key '" + key + "': a call of"
				+ " that key started each of " + KEY_TRIES + " times it was written");
	}

	private int upsert(Object[] values) {
		try {
			return this.table.update(this.upsert, values);
		}
		catch (DuplicateKeyException raced) {
			if (!this.dialect.upsertRetriesOnDuplicateKey()) {
				throw raced;
			}
			// The other caller's row is there now: this one replaces it.
			return this.table.update(this.upsert, values);
		}
	}

	/**
	 * Moves a started call's key aside, where the gate left it ({@link DurableDialect#gateInPlace()}),
	 * as the gate would have: a failure keeps it, and the key is free for a new call.
	 */
	private void releaseStartedKey(String methodId, String key) {
		this.table.update("UPDATE " + this.calls + " SET started_key = call_key, call_key = NULL WHERE method_id = ?"
				+ " AND call_key = ? AND " + NOT_WAITING, methodId, key);
	}

	/**
	 * Where an absent key's delete would lock a gap of the key index until the caller's transaction
	 * ends, the key is first looked for in the transaction's snapshot: found, it is deleted as it is
	 * now (a call made since that holds it is deleted too); not found, nothing is locked, and a call
	 * committed since the snapshot was taken is left, as the caller's other reads would leave it.
	 */
	boolean cancel(String methodId, String key) {
		if (this.dialect.locksGapsOfAbsentRows() && this.table.inTransaction() && this.jdbc
			.queryForList(this.dialect.limit("SELECT 1 FROM " + this.calls + " WHERE method_id = ? AND call_key = ? AND "
					+ CallTable.WAITING), Integer.class, methodId, key, 1)
			.isEmpty()) {
			return false;
		}
		return this.table.update(
				"DELETE FROM " + this.calls + " WHERE method_id = ? AND call_key = ? AND " + CallTable.WAITING, methodId,
				key) > 0;
	}

	boolean cancel(UUID id) {
		return this.table.update("DELETE FROM " + this.calls + " WHERE id = ? AND " + CallTable.WAITING,
				this.dialect.id(id)) == 1;
	}

	/**
	 * A new id, as a replace gives one: an instance whose wheel holds the call at its old time
	 * finds the old id gone at its gate, even if it claims the row again meanwhile. The row is
	 * locked by the update until the caller's transaction ends: a gate skips it meanwhile.
	 */
	boolean reschedule(UUID id, UUID newId, Instant due, @Nullable UUID owner) {
		return this.table.update("UPDATE " + this.calls + " SET id = ?, due_at = ?, state = ?, owner_id = ? WHERE id = ?"
				+ " AND " + CallTable.WAITING, this.dialect.id(newId),
				this.dialect.instant(due), (owner != null) ? CallTable.CLAIMED : CallTable.PENDING,
				(owner != null) ? this.dialect.id(owner) : null, this.dialect.id(id)) == 1;
	}

	Requeue requeue(UUID id, Instant due, @Nullable UUID owner) {
		StoredCall call = this.queries.find(id);
		if (call == null || call.state() != CallState.FAILED) {
			return Requeue.NOT_FAILED;
		}
		if (requeueOne(id, call.methodId(), call.key(), due, owner)) {
			return Requeue.REQUEUED;
		}
		StoredCall now = this.queries.find(id);
		return (now != null && now.state() == CallState.FAILED && call.key() != null) ? Requeue.KEY_HELD
				: Requeue.NOT_FAILED;
	}

	/**
	 * A new round of retries, with no error; the runs before stay the call's history. Of several
	 * failed calls with one key, the newest gets it back; one statement each, a key given back only
	 * if no pending call holds it (rare: an operator's action).
	 */
	Requeued requeueFailed(@Nullable String methodId, Instant due) {
		String requeue = "UPDATE " + this.calls + " SET state = '" + CallTable.PENDING + "', due_at = ?, retries = 0,"
				+ " retrying_since = NULL, finished_at = NULL, last_error = NULL";
		String ofMethod = (methodId != null) ? " AND method_id = ?" : "";
		Object at = this.dialect.instant(due);
		Object[] keyless = (methodId != null) ? new Object[] { at, methodId } : new Object[] { at };
		int requeued = this.table.update(
				requeue + " WHERE state = '" + CallTable.FAILED + "' AND started_key IS NULL" + ofMethod, keyless);
		List<FailedCall> keyed = this.jdbc.query("SELECT id, method_id, started_key FROM " + this.calls
				+ " WHERE state = '" + CallTable.FAILED + "' AND started_key IS NOT NULL" + ofMethod + " ORDER BY finished_at DESC",
				(rs, n) -> new FailedCall(this.rows.id(rs, 1), rs.getString(2), rs.getString(3), 0, null, null),
				(methodId != null) ? new Object[] { methodId } : new Object[0]);
		List<FailedCall> keyHeld = new ArrayList<>();
		for (FailedCall call : keyed) {
			if (requeueOne(call.id(), call.methodId(), call.key(), due, null)) {
				requeued++;
			}
			else {
				keyHeld.add(call);
			}
		}
		return new Requeued(requeued, keyHeld);
	}

	/**
	 * Puts one failed call back, as if new, with its key given back only if no waiting call of its
	 * method holds it now.
	 * @param key the key it was made with, or {@code null}
	 * @param owner the instance that holds it from now on (claimed), or {@code null} for pending
	 * @return whether it was failed and is back; {@code false} also when its key is held
	 */
	private boolean requeueOne(UUID id, String methodId, @Nullable String key, Instant due, @Nullable UUID owner) {
		String requeue = "UPDATE " + this.calls + " SET state = ?, owner_id = ?, due_at = ?, retries = 0,"
				+ " retrying_since = NULL, finished_at = NULL, last_error = NULL, call_key = started_key,"
				+ " started_key = NULL WHERE id = ? AND state = '" + CallTable.FAILED + "'";
		List<Object> arguments = new ArrayList<>(List.of((owner != null) ? CallTable.CLAIMED : CallTable.PENDING));
		arguments.add((owner != null) ? this.dialect.id(owner) : null);
		arguments.add(this.dialect.instant(due));
		arguments.add(this.dialect.id(id));
		if (key != null) {
			if (this.dialect.gateInPlace()) {
				releaseStartedKey(methodId, key);
			}
			requeue += " AND "
					+ this.dialect.notExists("SELECT 1 FROM " + this.calls + " h WHERE h.method_id = ? AND h.call_key = ?");
			arguments.add(methodId);
			arguments.add(key);
		}
		try {
			return this.table.update(requeue, arguments.toArray()) == 1;
		}
		catch (DuplicateKeyException raced) {
			// A caller took the key between the check and the update.
			return false;
		}
	}

	boolean deleteFailed(UUID id) {
		return this.table.update("DELETE FROM " + this.calls + " WHERE id = ? AND state = '" + CallTable.FAILED + "'",
				this.dialect.id(id)) == 1;
	}

	int deleteCallsOf(String methodId) {
		return this.table.update("DELETE FROM " + this.calls + " WHERE method_id = ? AND state IN ('" + CallTable.PENDING
				+ "', '" + CallTable.CLAIMED + "', '" + CallTable.FAILED + "')", methodId);
	}

	int deleteFailedBefore(Duration retention) {
		return this.table.update("DELETE FROM " + this.calls + " WHERE " + CallQueries.FAILED + " AND finished_at < "
				+ this.dialect.before(retention));
	}

}
