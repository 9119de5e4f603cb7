package io.github.wheeltimer.durable;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.dao.InvalidDataAccessResourceUsageException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.StringUtils;

/**
 * Every statement durable calls send to the database, and nothing else: the rows of calls
 * ({@code <prefix>CALL}) and of instances ({@code <prefix>INSTANCE}).
 * <p>
 * A call's row moves {@code PENDING -> CLAIMED -> RUNNING -> deleted}, or to {@code FAILED}.
 * {@code owner_id} is the instance holding a claimed or running call. Lease decisions compare
 * heartbeats with the database's own clock; due times are the application's clock, as every
 * scheduler's are.
 * <p>
 * Statements that take part in the caller's work ({@link #insert}, {@link #cancel(String, String)},
 * {@link #finish(UUID)} inside a delayed method's transaction) go through {@link JdbcTemplate},
 * which joins a Spring transaction on the same {@code DataSource} and never commits, rolls back or
 * closes a connection it borrowed from one. The claim runs in a transaction of its own.
 */
public final class DurableCallStore {

	static final String PENDING = "PENDING";

	static final String CLAIMED = "CLAIMED";

	static final String RUNNING = "RUNNING";

	static final String FAILED = "FAILED";

	/** The length of {@code method_id}, in UTF-16 units (see {@link StoredText}). */
	static final int METHOD_ID_LENGTH = 200;

	/** The length of {@code call_key}, in UTF-16 units. */
	static final int KEY_LENGTH = 500;

	/** The length of an instance's {@code name}, in UTF-16 units. */
	static final int NAME_LENGTH = 200;

	private static final int ERROR_LENGTH = 4000;

	/** Every column of the calls' table, as the script in the jar creates it. */
	private static final List<String> CALL_COLUMNS = List.of("id", "method_id", "call_key", "arguments", "due_at",
			"state", "owner_id", "attempts", "created_at", "finished_at", "last_error", "trace_parent", "started_key");

	/** Every column of the instances' table. */
	private static final List<String> INSTANCE_COLUMNS = List.of("id", "name", "started_at", "heartbeat_at",
			"methods");

	/** The most rows one take-over statement releases. */
	private static final int RELEASE_CHUNK = 1000;

	/** Between the method ids of an instance's row: ids are trimmed, so none holds a line break. */
	private static final String METHOD_SEPARATOR = "\n";

	private final JdbcTemplate jdbc;

	private final TransactionTemplate ownTransaction;

	private final DataSource dataSource;

	private final DurableDialect dialect;

	private final String calls;

	private final String instances;

	private final String insert;

	private final String upsert;

	private final String start;

	/** Rows claimed or running by an instance whose heartbeat is older than the lease. */
	private final String ofDeadOwners;

	DurableCallStore(DataSource dataSource, DurableDialect dialect, String tablePrefix, Duration lease) {
		this.dataSource = dataSource;
		this.jdbc = new JdbcTemplate(dataSource);
		this.ownTransaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		this.dialect = dialect;
		this.calls = tablePrefix + "CALL";
		this.instances = tablePrefix + "INSTANCE";
		this.insert = "INSERT INTO " + this.calls + " (" + DurableDialect.COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?)";
		this.upsert = dialect.upsertByKey(this.calls);
		// The start gate: one statement that is both the fence against a falsely declared dead owner
		// (another instance took the row over) and the cross-instance cancel (the row is gone). The
		// owner is compared with IS NOT DISTINCT FROM, which no index serves, so that the row is
		// found by its primary key: with "owner_id = ?", PostgreSQL's statistics (pending rows have
		// no owner) make the owner index look as selective, and each gate then reads every row this
		// instance claimed (a backlog of 10,000 drained several times slower).
		// The key moves aside as the call starts: a new call may take it, and a failure keeps it (a
		// re-run after a take-over finds it there). Assigned before it is cleared, for databases that
		// read each assignment's left side as already set.
		this.start = "UPDATE " + this.calls + " SET state = '" + RUNNING + "', attempts = attempts + 1,"
				+ " started_key = COALESCE(call_key, started_key), call_key = NULL WHERE id = ? AND owner_id IS NOT"
				+ " DISTINCT FROM ? AND state = '" + CLAIMED
				+ "' AND EXISTS (SELECT 1"
				+ " FROM " + this.instances + " WHERE id = ? AND heartbeat_at > " + dialect.before(lease) + ")";
		this.ofDeadOwners = " FROM " + this.calls + " WHERE state IN ('" + CLAIMED + "', '" + RUNNING + "') AND owner_id"
				+ " NOT IN (SELECT id FROM " + this.instances + " WHERE heartbeat_at > " + dialect.before(lease) + ")";
	}

	DataSource dataSource() {
		return this.dataSource;
	}

	/**
	 * @return the claim's select for that many method ids; parameters: the due time to claim up
	 * to, the method ids, the limit
	 */
	String claimStatement(int methodIds) {
		return "SELECT id, method_id, call_key, arguments, due_at, attempts, trace_parent FROM " + this.calls + " WHERE state = '"
				+ PENDING + "' AND due_at <= ? AND method_id IN (" + String.join(", ", Collections.nCopies(methodIds, "?"))
				+ ") ORDER BY due_at LIMIT ? FOR UPDATE SKIP LOCKED";
	}

	/**
	 * Checks that both tables exist with every column this version writes, so that a database
	 * without them fails startup with what to do, not the first statement of a poll.
	 * @throws DurableSchemaMissingException naming what is missing
	 */
	void requireSchema() {
		List<String> missing = new ArrayList<>();
		missing.addAll(missingOf(this.calls, CALL_COLUMNS));
		missing.addAll(missingOf(this.instances, INSTANCE_COLUMNS));
		if (!missing.isEmpty()) {
			throw new DurableSchemaMissingException(missing, DurableSchemaInitializer.script(this.dialect));
		}
	}

	/** @return the table, if it is missing, else its missing columns as {@code table.column} */
	private List<String> missingOf(String table, List<String> columns) {
		if (answers("SELECT " + String.join(", ", columns) + " FROM " + table + " WHERE 1 = 0")) {
			return List.of();
		}
		if (!answers("SELECT 1 FROM " + table + " WHERE 1 = 0")) {
			return List.of(table);
		}
		return columns.stream().filter((column) -> !answers("SELECT " + column + " FROM " + table + " WHERE 1 = 0"))
			.map((column) -> table + "." + column)
			.toList();
	}

	private boolean answers(String query) {
		try {
			this.jdbc.queryForList(query);
			return true;
		}
		catch (InvalidDataAccessResourceUsageException missing) {
			return false;
		}
	}

	/** @return the start gate's statement, for a test of its plan */
	String startStatement() {
		return this.start;
	}

	DurableDialect dialect() {
		return this.dialect;
	}

	String callsTable() {
		return this.calls;
	}

	/**
	 * Writes a new call; with a key, replaces the pending call of that method and key (a new id,
	 * so a wheel that still holds the old one finds it gone at the start gate).
	 * @param owner the instance that holds it from birth, or {@code null} if it is left pending
	 * @param traceParent the caller's span as a W3C {@code traceparent}, or {@code null}
	 */
	void insert(UUID id, String methodId, @Nullable String key, String arguments, Instant due, @Nullable UUID owner,
			@Nullable String traceParent) {
		Object[] values = { id, methodId, key, arguments, timestamp(due), (owner != null) ? CLAIMED : PENDING, owner,
				traceParent };
		if (key == null) {
			this.jdbc.update(this.insert, values);
			return;
		}
		try {
			this.jdbc.update(this.upsert, values);
		}
		catch (DuplicateKeyException raced) {
			// H2's MERGE is an update, then an insert: two callers replacing one key at once can both
			// insert. The second finds the first's row now, and replaces it.
			if (this.dialect != DurableDialect.H2) {
				throw raced;
			}
			this.jdbc.update(this.upsert, values);
		}
	}

	/** @return the number of calls cancelled: 0 or 1 */
	int cancel(String methodId, String key) {
		return this.jdbc.update("DELETE FROM " + this.calls + " WHERE method_id = ? AND call_key = ?", methodId, key);
	}

	/** @return whether the call was still pending or claimed, and is now gone */
	boolean cancel(UUID id) {
		return this.jdbc.update("DELETE FROM " + this.calls + " WHERE id = ? AND state IN ('" + PENDING + "', '"
				+ CLAIMED + "')", id) == 1;
	}

	/**
	 * Claims pending calls due up to {@code until} of the methods this instance knows, earliest
	 * first, skipping rows another instance is claiming at the same moment.
	 */
	List<Row> claim(UUID owner, Instant until, Collection<String> methodIds, int limit) {
		if (methodIds.isEmpty()) {
			return List.of();
		}
		List<Object> arguments = new ArrayList<>();
		arguments.add(timestamp(until));
		arguments.addAll(methodIds);
		arguments.add(limit);
		String select = claimStatement(methodIds.size());
		List<Row> rows = this.ownTransaction.execute((status) -> {
			List<Row> claimed = this.jdbc.query(select, DurableCallStore::row, arguments.toArray());
			if (!claimed.isEmpty()) {
				String claimedIds = String.join(", ", Collections.nCopies(claimed.size(), "?"));
				List<Object> update = new ArrayList<>();
				update.add(owner);
				claimed.forEach((row) -> update.add(row.id()));
				this.jdbc.update("UPDATE " + this.calls + " SET state = '" + CLAIMED + "', owner_id = ? WHERE id IN ("
						+ claimedIds + ")", update.toArray());
			}
			return claimed;
		});
		return (rows != null) ? rows : List.of();
	}

	/**
	 * The start gate: moves a claimed call to running only if {@code owner} still holds it and its
	 * heartbeat is fresh by the database's clock.
	 * @return whether the call may run
	 */
	boolean start(UUID id, UUID owner) {
		return this.jdbc.update(this.start, id, owner, owner) == 1;
	}

	/** @return whether the call was claimed by {@code owner} and is pending again */
	boolean release(UUID id, UUID owner) {
		return this.jdbc.update("UPDATE " + this.calls + " SET state = '" + PENDING + "', owner_id = NULL WHERE id = ?"
				+ " AND owner_id IS NOT DISTINCT FROM ? AND state = '" + CLAIMED + "'", id, owner) == 1;
	}

	/**
	 * Hands back a call whose start gate failed: claimed, or running at {@code attempt} if the
	 * gate's update passed and its answer was lost (the call then runs again elsewhere: at least
	 * once).
	 * @return whether the call was {@code owner}'s and is pending again
	 */
	boolean releaseAfterGate(UUID id, UUID owner, int attempt) {
		return this.jdbc.update("UPDATE " + this.calls + " SET state = '" + PENDING + "', owner_id = NULL WHERE id = ?"
				+ " AND owner_id IS NOT DISTINCT FROM ? AND (state = '" + CLAIMED + "' OR (state = '" + RUNNING
				+ "' AND attempts = ?))", id, owner, attempt) == 1;
	}

	/**
	 * Hands the calls {@code owner} claimed and has not started back to the other instances.
	 * @param after only those due after this, or {@code null} for all
	 * @param except calls to leave claimed: they fired, and start soon
	 */
	int releaseAll(UUID owner, @Nullable Instant after, Collection<UUID> except) {
		StringBuilder release = new StringBuilder("UPDATE " + this.calls + " SET state = '" + PENDING
				+ "', owner_id = NULL WHERE owner_id = ? AND state = '" + CLAIMED + "'");
		List<Object> arguments = new ArrayList<>();
		arguments.add(owner);
		if (after != null) {
			release.append(" AND due_at > ?");
			arguments.add(timestamp(after));
		}
		if (!except.isEmpty()) {
			release.append(" AND id NOT IN (").append(String.join(", ", Collections.nCopies(except.size(), "?"))).append(')');
			arguments.addAll(except);
		}
		return this.jdbc.update(release.toString(), arguments.toArray());
	}

	/**
	 * The call ran: its row goes, whoever holds it now (a finish retried after an outage must
	 * stop a take-over from running the call again).
	 */
	void finish(UUID id) {
		this.jdbc.update("DELETE FROM " + this.calls + " WHERE id = ?", id);
	}

	/**
	 * The call ran, in its method's own transaction, which this joins: its row goes only if this
	 * run is still the row's, {@code owner}'s running call at that attempt (a take-over then a
	 * re-claim, even by the same instance, starts another attempt). The delete locks the row until
	 * that transaction ends: a take-over skips it meanwhile, and then finds it gone (or, if the
	 * transaction rolled back, takes it over at a later poll).
	 * @return whether the row was this run's; if not, the transaction must roll back
	 */
	boolean finish(UUID id, UUID owner, int attempt) {
		return this.jdbc.update("DELETE FROM " + this.calls + " WHERE id = ? AND owner_id IS NOT DISTINCT FROM ? AND"
				+ " state = '" + RUNNING + "' AND attempts = ?", id, owner, attempt) == 1;
	}

	/**
	 * Keeps the call's row as failed, with why, for operators; only if this run is still the
	 * row's, {@code owner}'s running call at that attempt: a run that lost its lease meanwhile must
	 * not fail the run that took it over. The key the call started with stays in
	 * {@code started_key}, for a re-queue to give back.
	 * @return whether the row was this run's
	 */
	boolean fail(UUID id, UUID owner, int attempt, String error) {
		return this.jdbc.update("UPDATE " + this.calls + " SET state = '" + FAILED + "', owner_id = NULL,"
				+ " finished_at = CURRENT_TIMESTAMP, last_error = ? WHERE id = ? AND owner_id IS NOT DISTINCT FROM ?"
				+ " AND state = '" + RUNNING + "' AND attempts = ?", StoredText.of(error, ERROR_LENGTH), id, owner,
				attempt) == 1;
	}

	/**
	 * Takes over the calls of instances whose heartbeat is older than the lease: claimed ones are
	 * pending again, and so are running ones, which then run again (at least once).
	 * @return the number of calls taken over
	 */
	int releaseDeadOwners() {
		// Usually none: one cheap statement per poll, and a transaction only when there is work.
		if (this.jdbc.queryForList("SELECT id" + this.ofDeadOwners + " LIMIT 1", UUID.class).isEmpty()) {
			return 0;
		}
		// Rows locked by a transaction still open (a delayed method's finish on an instance frozen
		// before its commit, a caller's cancel) are skipped, not waited for: a plain UPDATE would block
		// every instance's poll for as long as that transaction stays open.
		Integer released = this.ownTransaction.execute((status) -> release(
				this.jdbc.queryForList("SELECT id" + this.ofDeadOwners + " FOR UPDATE SKIP LOCKED", UUID.class)));
		return (released != null) ? released : 0;
	}

	/**
	 * Takes over the calls of one instance known to be gone (a previous run of a restarted
	 * instance), whatever its heartbeat, and removes its row: claimed calls are pending again, and
	 * so are running ones, which then run again (at least once).
	 * @return the number of calls taken over
	 */
	int releaseCallsOf(UUID owner) {
		Integer released = this.ownTransaction.execute((status) -> {
			int count = release(this.jdbc.queryForList("SELECT id FROM " + this.calls + " WHERE state IN ('" + CLAIMED
					+ "', '" + RUNNING + "') AND owner_id = ? FOR UPDATE SKIP LOCKED", UUID.class, owner));
			this.jdbc.update("DELETE FROM " + this.instances + " WHERE id = ?", owner);
			return count;
		});
		return (released != null) ? released : 0;
	}

	/** Puts the locked rows back to pending, a chunk per statement. */
	private int release(List<UUID> ids) {
		int count = 0;
		for (int from = 0; from < ids.size(); from += RELEASE_CHUNK) {
			List<UUID> chunk = ids.subList(from, Math.min(ids.size(), from + RELEASE_CHUNK));
			count += this.jdbc.update("UPDATE " + this.calls + " SET state = '" + PENDING + "', owner_id = NULL"
					+ " WHERE id IN (" + String.join(", ", Collections.nCopies(chunk.size(), "?")) + ")", chunk.toArray());
		}
		return count;
	}

	int deleteFailedBefore(Duration retention) {
		return this.jdbc.update("DELETE FROM " + this.calls + " WHERE state = '" + FAILED + "' AND finished_at < "
				+ this.dialect.before(retention));
	}

	int deleteInstancesSilentFor(Duration silence) {
		return this.jdbc.update("DELETE FROM " + this.instances + " WHERE heartbeat_at < " + this.dialect.before(silence));
	}

	/**
	 * Beats; an instance that was declared dead and deleted joins again.
	 * @param methods the durable method ids the instance knows, recorded when it joins
	 */
	void heartbeat(UUID instance, String name, Collection<String> methods) {
		if (this.jdbc.update("UPDATE " + this.instances + " SET heartbeat_at = CURRENT_TIMESTAMP WHERE id = ?",
				instance) == 0) {
			this.jdbc.update("INSERT INTO " + this.instances + " (id, name, heartbeat_at, methods) VALUES (?, ?,"
					+ " CURRENT_TIMESTAMP, ?)", instance, StoredText.of(name, NAME_LENGTH),
					String.join(METHOD_SEPARATOR, methods));
		}
	}

	void unregister(UUID instance) {
		this.jdbc.update("DELETE FROM " + this.instances + " WHERE id = ?", instance);
	}

	/** @return the number of calls per state, and the earliest due time of each */
	List<StateCount> countByState() {
		return this.jdbc.query("SELECT state, COUNT(*), MIN(due_at) FROM " + this.calls + " GROUP BY state ORDER BY state",
				(rs, n) -> new StateCount(rs.getString(1), rs.getLong(2), instant(rs, 3)));
	}

	/**
	 * @param methodId only this method's, or {@code null} for all
	 * @return the newest failed calls, at most {@code limit}
	 */
	List<FailedCall> failed(@Nullable String methodId, int limit) {
		String select = "SELECT id, method_id, started_key, attempts, finished_at, last_error FROM " + this.calls
				+ " WHERE state = '" + FAILED + "'" + ((methodId != null) ? " AND method_id = ?" : "")
				+ " ORDER BY finished_at DESC LIMIT ?";
		Object[] arguments = (methodId != null) ? new Object[] { methodId, limit } : new Object[] { limit };
		return this.jdbc.query(select, (rs, n) -> new FailedCall(rs.getObject(1, UUID.class), rs.getString(2),
				rs.getString(3), rs.getInt(4), instant(rs, 5), rs.getString(6)), arguments);
	}

	/** @return how many calls failed, of one method or of all ({@code null}) */
	long countFailed(@Nullable String methodId) {
		String count = "SELECT COUNT(*) FROM " + this.calls + " WHERE state = '" + FAILED + "'";
		Long failed = (methodId != null) ? this.jdbc.queryForObject(count + " AND method_id = ?", Long.class, methodId)
				: this.jdbc.queryForObject(count, Long.class);
		return (failed != null) ? failed : 0;
	}

	List<Instance> instances(Duration lease) {
		return this.jdbc.query("SELECT i.id, i.name, i.heartbeat_at, CASE WHEN i.heartbeat_at > "
				+ this.dialect.before(lease) + " THEN 1 ELSE 0 END, (SELECT COUNT(*) FROM " + this.calls
				+ " c WHERE c.owner_id = i.id), i.methods FROM " + this.instances + " i ORDER BY i.name, i.id",
				(rs, n) -> new Instance(rs.getObject(1, UUID.class), rs.getString(2), instant(rs, 3), rs.getInt(4) == 1,
						rs.getLong(5), methods(rs.getString(6))));
	}

	private static List<String> methods(@Nullable String joined) {
		return StringUtils.hasLength(joined) ? List.of(joined.split(METHOD_SEPARATOR)) : List.of();
	}

	/**
	 * Puts failed calls back to pending, due now, as if new: no error, no attempts, so that their
	 * next start is not taken for a re-run after a crash. A call that had a key gets it back, so
	 * that it can be cancelled or replaced by key again, unless a pending call holds that key now
	 * (a newer call with the key replaced it, as it would have replaced it pending): that call stays
	 * failed. Of several failed calls with one key, the newest gets it back.
	 * @param methodId only this method's, or {@code null} for all
	 * @param due the due time to give them
	 * @return what was re-queued
	 */
	Requeued requeueFailed(@Nullable String methodId, Instant due) {
		String requeue = "UPDATE " + this.calls + " SET state = '" + PENDING + "', due_at = ?, attempts = 0,"
				+ " finished_at = NULL, last_error = NULL";
		String ofMethod = (methodId != null) ? " AND method_id = ?" : "";
		Object[] keyless = (methodId != null) ? new Object[] { timestamp(due), methodId }
				: new Object[] { timestamp(due) };
		int requeued = this.jdbc.update(requeue + " WHERE state = '" + FAILED + "' AND started_key IS NULL" + ofMethod,
				keyless);
		List<FailedCall> keyed = this.jdbc.query("SELECT id, method_id, started_key FROM " + this.calls + " WHERE state = '"
				+ FAILED + "' AND started_key IS NOT NULL" + ofMethod + " ORDER BY finished_at DESC",
				(rs, n) -> new FailedCall(rs.getObject(1, UUID.class), rs.getString(2), rs.getString(3), 0, null, null),
				(methodId != null) ? new Object[] { methodId } : new Object[0]);
		// One statement each, a key given back only if no pending call holds it: rare, an operator's action.
		String giveBack = requeue + ", call_key = started_key, started_key = NULL WHERE id = ? AND state = '" + FAILED
				+ "' AND NOT EXISTS (SELECT 1 FROM " + this.calls + " h WHERE h.method_id = ? AND h.call_key = ?)";
		List<FailedCall> keyHeld = new ArrayList<>();
		for (FailedCall call : keyed) {
			boolean back;
			try {
				back = this.jdbc.update(giveBack, timestamp(due), call.id(), call.methodId(), call.key()) == 1;
			}
			catch (DuplicateKeyException raced) {
				// A caller took the key between the check and the update.
				back = false;
			}
			if (back) {
				requeued++;
			}
			else {
				keyHeld.add(call);
			}
		}
		return new Requeued(requeued, keyHeld);
	}

	/** @return the pending calls per method id that is not in {@code known} */
	List<StateCount> pendingOfUnknownMethods(Collection<String> known) {
		String notIn = known.isEmpty() ? ""
				: " AND method_id NOT IN (" + String.join(", ", Collections.nCopies(known.size(), "?")) + ")";
		return this.jdbc.query("SELECT method_id, COUNT(*), MIN(due_at) FROM " + this.calls + " WHERE state = '"
				+ PENDING + "'" + notIn + " GROUP BY method_id ORDER BY method_id",
				(rs, n) -> new StateCount(rs.getString(1), rs.getLong(2), instant(rs, 3)), known.toArray());
	}

	private static Row row(ResultSet rs, int rowNumber) throws SQLException {
		Instant due = instant(rs, 5);
		return new Row(rs.getObject(1, UUID.class), rs.getString(2), rs.getString(3), rs.getString(4),
				(due != null) ? due : Instant.EPOCH, rs.getInt(6), rs.getString(7));
	}

	private static @Nullable Instant instant(ResultSet rs, int column) throws SQLException {
		OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
		return (value != null) ? value.toInstant() : null;
	}

	private static OffsetDateTime timestamp(Instant instant) {
		return instant.atOffset(ZoneOffset.UTC);
	}

	/** A claimed call, as read by the claim. */
	record Row(UUID id, String methodId, @Nullable String key, String arguments, Instant due, int attempts,
			@Nullable String traceParent) {
	}

	/**
	 * Calls of one state (or of one method id), with the earliest due time among them.
	 * @param name the state or method id
	 * @param count how many calls
	 * @param earliestDue the earliest due time, {@code null} if none
	 */
	public record StateCount(String name, long count, @Nullable Instant earliestDue) {
	}

	/**
	 * A call whose method threw, or whose row could not be run.
	 * @param id the call's id
	 * @param methodId the method's id
	 * @param key its key, if it had one
	 * @param attempts how many times it started
	 * @param failedAt when it failed, by the database's clock
	 * @param error the reason
	 */
	public record FailedCall(UUID id, String methodId, @Nullable String key, int attempts, @Nullable Instant failedAt,
			@Nullable String error) {
	}

	/**
	 * What a re-queue of failed calls did.
	 * @param requeued how many calls are pending again
	 * @param keyHeld the failed calls left failed because a pending call holds their key
	 */
	public record Requeued(int requeued, List<FailedCall> keyHeld) {
	}

	/**
	 * An instance sharing the database.
	 * @param id its id, new at each start
	 * @param name its name ({@code wheel-timer.durable.instance-name})
	 * @param heartbeat its last heartbeat, by the database's clock
	 * @param alive whether that heartbeat is within the lease
	 * @param calls how many calls it holds, claimed or running
	 * @param methods the durable method ids it knows
	 */
	public record Instance(UUID id, String name, @Nullable Instant heartbeat, boolean alive, long calls,
			List<String> methods) {
	}

}
