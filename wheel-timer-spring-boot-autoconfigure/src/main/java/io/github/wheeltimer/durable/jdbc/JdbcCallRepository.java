package io.github.wheeltimer.durable.jdbc;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import javax.sql.DataSource;

import io.github.wheeltimer.durable.CallState;
import io.github.wheeltimer.durable.StoredCall;
import io.github.wheeltimer.durable.storage.CallCount;
import io.github.wheeltimer.durable.storage.CallRepository.MethodShape;
import io.github.wheeltimer.durable.storage.CallRepository;
import io.github.wheeltimer.durable.storage.ClaimedCall;
import io.github.wheeltimer.durable.storage.FailedCall;
import io.github.wheeltimer.durable.storage.Requeued;
import io.github.wheeltimer.durable.storage.StoredText;
import io.github.wheeltimer.durable.storage.UnreadableCalls;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowCallbackHandler;

/**
 * The calls' table on a JDBC database, in the SQL every supported database shares; what differs
 * is asked of the {@link DurableDialect}.
 * <p>
 * Statements that take part in the caller's work (the insert, the cancels, a finish inside a
 * delayed method's transaction, a re-queue) go through {@link JdbcTemplate}, which joins a Spring
 * transaction on the same {@code DataSource} and never commits, rolls back or closes a connection
 * it borrowed from one. The claim and the take-overs run in transactions of their own.
 * Thread-safe: every statement is built once, or from its arguments.
 */
public final class JdbcCallRepository implements CallRepository {

	private static final String PENDING = CallTable.PENDING;

	private static final String CLAIMED = CallTable.CLAIMED;

	private static final String RUNNING = CallTable.RUNNING;

	private static final String FAILED = CallTable.FAILED;

	private static final int ERROR_LENGTH = 4000;

	/** How a retry's row gets its key back: moved aside when its attempt started, or kept by a retry before. */
	private static final String KEY_BACK = "call_key = COALESCE(started_key, call_key), started_key = NULL, ";

	/** The most rows one take-over statement releases. */
	private static final int RELEASE_CHUNK = 1000;

	/** The columns a new call sets, in the order {@link #insert} binds them. */
	private static final String NEW_COLUMNS = "id, method_id, call_key, arguments, due_at, state, owner_id, attempts,"
			+ " trace_parent, shape, created_at, failures, retries, retrying_since, finished_at, last_error";

	private final CallTable table;

	private final JdbcTemplate jdbc;

	private final CallRows rows;

	private final DurableDialect dialect;

	private final DurableTables tables;

	private final String calls;

	private final String insert;

	private final String upsert;

	private final Duration lease;

	private final String release;

	/** Rows claimed or running by an instance whose heartbeat is older than the lease. */
	private final String ofDeadOwners;

	/**
	 * Creates the repository.
	 * @param dataSource the application's database
	 * @param dialect what differs on it
	 * @param tables the tables' names
	 * @param lease how long after its last heartbeat an instance counts as dead
	 */
	public JdbcCallRepository(DataSource dataSource, DurableDialect dialect, DurableTables tables, Duration lease) {
		this.table = new CallTable(dataSource, dialect, tables);
		this.jdbc = this.table.jdbc();
		this.rows = new CallRows(dialect, tables);
		this.dialect = dialect;
		this.tables = tables;
		this.calls = tables.calls();
		// A new call, or one that replaces a waiting call by its key: no history, whatever that one had.
		String values = "?, ?, ?, ?, ?, ?, ?, 0, ?, ?, " + dialect.now() + ", 0, 0, NULL, NULL, NULL";
		this.insert = "INSERT INTO " + this.calls + " (" + NEW_COLUMNS + ") VALUES (" + values + ")";
		this.upsert = dialect.upsertByKey(this.calls, NEW_COLUMNS, values);
		this.lease = lease;
		this.release = "UPDATE " + this.calls + " SET state = '" + PENDING + "', owner_id = NULL WHERE id = ? AND "
				+ dialect.sameAs("owner_id");
		this.ofDeadOwners = " FROM " + this.calls + " WHERE state IN ('" + CLAIMED + "', '" + RUNNING + "') AND owner_id"
				+ " NOT IN (SELECT id FROM " + tables.instances() + " WHERE heartbeat_at > " + dialect.before(lease)
				+ ")";
	}

	@Override
	public void insert(UUID id, String methodId, @Nullable String key, String arguments, Instant due,
			@Nullable UUID owner, @Nullable String traceParent, String shape) {
		Object[] values = { this.dialect.id(id), methodId, key, arguments, this.dialect.instant(due),
				(owner != null) ? CLAIMED : PENDING, (owner != null) ? this.dialect.id(owner) : null, traceParent, shape };
		if (key == null) {
			this.table.update(this.insert, values);
			return;
		}
		try {
			this.table.update(this.upsert, values);
		}
		catch (DuplicateKeyException raced) {
			if (!this.dialect.upsertRetriesOnDuplicateKey()) {
				throw raced;
			}
			// The other caller's row is there now: this one replaces it.
			this.table.update(this.upsert, values);
		}
	}

	/**
	 * Where an absent key's delete would lock a gap of the key index until the caller's transaction
	 * ends, the key is first looked for in the transaction's snapshot: found, it is deleted as it is
	 * now (a call made since that holds it is deleted too); not found, nothing is locked, and a call
	 * committed since the snapshot was taken is left, as the caller's other reads would leave it.
	 */
	@Override
	public boolean cancel(String methodId, String key) {
		if (this.dialect.locksGapsOfAbsentRows() && inTransaction() && this.jdbc
			.queryForList(this.dialect.limit("SELECT 1 FROM " + this.calls + " WHERE method_id = ? AND call_key = ?"),
					Integer.class, methodId, key, 1)
			.isEmpty()) {
			return false;
		}
		return this.table.update("DELETE FROM " + this.calls + " WHERE method_id = ? AND call_key = ?", methodId, key) > 0;
	}

	@Override
	public boolean cancel(UUID id) {
		return this.table.update("DELETE FROM " + this.calls + " WHERE id = ? AND state IN ('" + PENDING + "', '"
				+ CLAIMED + "')", this.dialect.id(id)) == 1;
	}

	@Override
	public List<ClaimedCall> claim(UUID owner, Instant until, Collection<String> methodIds,
			Collection<MethodShape> skipped, int limit) {
		if (methodIds.isEmpty()) {
			return List.of();
		}
		List<Object> arguments = new ArrayList<>(methodIds.size() + 2 * skipped.size() + 3);
		arguments.add(this.dialect.instant(until));
		arguments.addAll(methodIds);
		for (MethodShape pair : skipped) {
			arguments.add(pair.methodId());
			arguments.add(pair.shape());
		}
		arguments.add(limit);
		String returning = ClaimAndGateStatements.claimReturning(this.dialect, this.tables, methodIds.size(), skipped.size());
		if (returning != null) {
			arguments.add(0, this.dialect.id(owner));
			List<ClaimedCall> claimed = new ArrayList<>(
					this.table.retried(() -> this.jdbc.query(returning, this.rows::claimed, arguments.toArray())));
			// Returned in no particular order: earliest first, as the select picked them.
			claimed.sort(Comparator.comparing(ClaimedCall::due));
			return claimed;
		}
		String select = ClaimAndGateStatements.claimSelect(this.dialect, this.tables, CallRows.CLAIMED_COLUMNS, methodIds.size(), skipped.size());
		List<ClaimedCall> rows = this.table.inOwnTransaction((status) -> {
			List<ClaimedCall> claimed = this.jdbc.query(select, this.rows::claimed, arguments.toArray());
			if (!claimed.isEmpty()) {
				List<Object> update = new ArrayList<>(claimed.size() + 1);
				update.add(this.dialect.id(owner));
				claimed.forEach((row) -> update.add(this.dialect.id(row.id())));
				this.table.update(ClaimAndGateStatements.claimLocked(this.tables, claimed.size()), update.toArray());
			}
			return claimed;
		});
		return (rows != null) ? rows : List.of();
	}

	/**
	 * One statement where the dialect returns the rows it changed: the update of the rows its
	 * locking subquery picked. Elsewhere, in a transaction: the locking select, then the update of
	 * the rows it locked, which passes them all or (the lease lapsed) none. Exact either way: what
	 * passed is what this statement moved. The rows that did not pass are read once more, only
	 * when there are some, for those still claimed by the owner.
	 */
	@Override
	public Gates start(Collection<UUID> ids, UUID owner) {
		if (ids.isEmpty()) {
			return new Gates(Set.of(), Set.of());
		}
		List<Object> arguments = boundIds(ids);
		int placeholders = arguments.size();
		Object bound = this.dialect.id(owner);
		arguments.add(bound);
		String lock = ClaimAndGateStatements.gateLock(this.dialect, this.tables, placeholders);
		String returning = this.dialect.returning(ClaimAndGateStatements.gateStatement(this.dialect, this.tables, this.lease,
				this.dialect.inSubquery("id", lock)), "id");
		if (returning != null) {
			arguments.add(bound);
			Set<UUID> passed = Set.copyOf(this.table.retried(() -> this.jdbc.query(returning, this.rows::firstId, arguments.toArray())));
			return new Gates(passed, waiting(ids, passed, owner));
		}
		Set<UUID> passed = this.table.inOwnTransaction((status) -> {
			List<UUID> locked = this.jdbc.query(lock, this.rows::firstId, arguments.toArray());
			if (locked.isEmpty()) {
				return Set.<UUID>of();
			}
			List<Object> update = boundIds(locked);
			String gate = ClaimAndGateStatements.gateStatement(this.dialect, this.tables, this.lease,
					"id IN (" + CallTable.placeholders(update.size()) + ")");
			update.add(bound);
			if (this.jdbc.update(gate, update.toArray()) == locked.size()) {
				return Set.copyOf(locked);
			}
			// All or none: a row moved to running that this gate would not hand to its executor would
			// stay running under a live owner. Rolled back, every locked row waits for the gate's retry.
			status.setRollbackOnly();
			return Set.<UUID>of();
		});
		// Read once the transaction ended, so that rows it rolled back count as still waiting.
		Set<UUID> started = (passed != null) ? passed : Set.of();
		return new Gates(started, waiting(ids, started, owner));
	}

	/** @return the ids that did not pass and are still claimed by {@code owner}, read without a lock */
	private Set<UUID> waiting(Collection<UUID> ids, Set<UUID> passed, UUID owner) {
		List<UUID> rest = ids.stream().filter((id) -> !passed.contains(id)).toList();
		if (rest.isEmpty()) {
			return Set.of();
		}
		List<Object> arguments = boundIds(rest);
		String in = CallTable.placeholders(arguments.size());
		arguments.add(this.dialect.id(owner));
		return Set.copyOf(this.jdbc.query("SELECT id FROM " + this.calls + " WHERE id IN (" + in
				+ ") AND " + this.dialect.sameAs("owner_id") + " AND state = '" + CLAIMED + "'", this.rows::firstId,
				arguments.toArray()));
	}

	@Override
	public boolean handBack(UUID id, UUID owner) {
		return this.table.update(this.release + " AND state = '" + CLAIMED + "'", this.dialect.id(id),
				this.dialect.id(owner)) == 1;
	}

	/**
	 * The attempt the gate counted is taken back, and the key it moved aside is given back: the
	 * call did not run here. Unless a new call took that key meanwhile: then the row goes back
	 * without it, as a call that started before the new one was made. Assigned in this order, with
	 * the state last, for databases that read each assignment's left side as already set.
	 */
	@Override
	public boolean handBackAfterGate(UUID id, UUID owner, int attempt, @Nullable String shape) {
		String keyBack = "call_key = CASE WHEN state = '" + RUNNING + "' THEN started_key ELSE call_key END,"
				+ " started_key = CASE WHEN state = '" + RUNNING + "' THEN NULL ELSE started_key END, ";
		String shapeSet = (shape != null) ? "shape = ?, " : "";
		Object[] arguments = (shape != null) ? new Object[] { shape, this.dialect.id(id), this.dialect.id(owner), attempt }
				: new Object[] { this.dialect.id(id), this.dialect.id(owner), attempt };
		try {
			return this.table.update(handBackAfterGate(keyBack + shapeSet), arguments) == 1;
		}
		catch (DuplicateKeyException taken) {
			return this.table.update(handBackAfterGate(shapeSet), arguments) == 1;
		}
	}

	private String handBackAfterGate(String keyBack) {
		return "UPDATE " + this.calls + " SET attempts = CASE WHEN state = '" + RUNNING
				+ "' THEN attempts - 1 ELSE attempts END, " + keyBack + "state = '" + PENDING + "', owner_id = NULL"
				+ " WHERE id = ? AND " + this.dialect.sameAs("owner_id") + " AND (state = '" + CLAIMED
				+ "' OR (state = '" + RUNNING + "' AND attempts = ?))";
	}

	@Override
	public int handBackAll(UUID owner, @Nullable Instant after, Collection<UUID> except) {
		StringBuilder release = new StringBuilder("UPDATE " + this.calls + " SET state = '" + PENDING
				+ "', owner_id = NULL WHERE owner_id = ? AND state = '" + CLAIMED + "'");
		List<Object> arguments = new ArrayList<>();
		arguments.add(this.dialect.id(owner));
		if (after != null) {
			release.append(" AND due_at > ?");
			arguments.add(this.dialect.instant(after));
		}
		if (!except.isEmpty()) {
			release.append(" AND id NOT IN (").append(CallTable.placeholders(except.size())).append(')');
			except.forEach((id) -> arguments.add(this.dialect.id(id)));
		}
		return this.table.update(release.toString(), arguments.toArray());
	}

	@Override
	public void finish(Collection<UUID> ids) {
		if (!ids.isEmpty()) {
			List<Object> arguments = boundIds(ids);
			this.table.inBatchTransaction(() -> this.jdbc.update("DELETE FROM " + this.calls + " WHERE id IN ("
					+ CallTable.placeholders(arguments.size()) + ")", arguments.toArray()));
		}
	}

	/**
	 * The delete locks the row until the method's transaction ends: a take-over skips it
	 * meanwhile, and then finds it gone (or, rolled back, takes it over at a later poll).
	 */
	@Override
	public boolean finish(UUID id, UUID owner, int attempt) {
		return this.table.update("DELETE FROM " + this.calls + " WHERE id = ? AND " + this.dialect.sameAs("owner_id")
				+ " AND state = '" + RUNNING + "' AND attempts = ?", this.dialect.id(id), this.dialect.id(owner),
				attempt) == 1;
	}

	@Override
	public boolean fail(UUID id, UUID owner, int attempt, String error) {
		return this.table.update("UPDATE " + this.calls + " SET state = '" + FAILED + "', owner_id = NULL, failures = failures + 1,"
				+ " finished_at = " + this.dialect.now() + ", last_error = ? WHERE id = ? AND " + this.dialect.sameAs("owner_id")
				+ " AND state = '" + RUNNING + "' AND attempts = ?", StoredText.of(error, ERROR_LENGTH),
				this.dialect.id(id), this.dialect.id(owner), attempt) == 1;
	}

	/**
	 * Sets absolute values, not increments, and also matches the row as this statement leaves it:
	 * tried again after its answer was lost (the database went away as it committed), it finds the
	 * row it wrote, says so, and the retry is held, not left claimed by no wheel.
	 */
	@Override
	public Retried retry(UUID owner, Retry retry) {
		try {
			return (this.table.update(retryStatement(KEY_BACK), retryArguments(owner, retry)) == 1) ? Retried.WITH_KEY
					: Retried.LOST;
		}
		catch (DuplicateKeyException taken) {
			return (this.table.update(retryStatement(""), retryArguments(owner, retry)) == 1) ? Retried.WITHOUT_KEY : Retried.LOST;
		}
	}

	/**
	 * A batch in a transaction of its own, so that it passes or fails whole: one whose key move a
	 * new call's key refuses is written again one by one, each finding its row as it was.
	 */
	@Override
	public List<Retried> retryAll(UUID owner, List<Retry> retries) {
		if (retries.isEmpty()) {
			return List.of();
		}
		List<Object[]> arguments = retries.stream().map((retry) -> retryArguments(owner, retry)).toList();
		int[] counts;
		try {
			counts = this.table.inOwnTransaction((status) -> this.jdbc.batchUpdate(retryStatement(KEY_BACK), arguments));
		}
		catch (DuplicateKeyException taken) {
			counts = null;
		}
		List<Retried> retried = new ArrayList<>(retries.size());
		for (int i = 0; i < retries.size(); i++) {
			Retry retry = retries.get(i);
			if (counts == null || i >= counts.length) {
				retried.add(retry(owner, retry));
			}
			else {
				retried.add((counts[i] == 0) ? Retried.LOST : Retried.WITH_KEY);
			}
		}
		return retried;
	}

	/**
	 * The statement that puts a row back to wait for its retry, binding {@link #retryArguments}.
	 * The state last, for databases that read each assignment's left side as already set.
	 */
	private String retryStatement(String keyBack) {
		return "UPDATE " + this.calls + " SET due_at = ?, failures = ?, retries = ?, retrying_since = ?,"
				+ " finished_at = " + this.dialect.now() + ", last_error = ?, " + keyBack + "owner_id = ?, state = ?"
				+ " WHERE id = ? AND attempts = ? AND ((" + this.dialect.sameAs("owner_id") + " AND state = '" + RUNNING
				+ "') OR (" + this.dialect.sameAs("owner_id") + " AND state = ? AND retries = ?))";
	}

	private Object[] retryArguments(UUID owner, Retry retry) {
		Object waiting = (retry.holder() != null) ? CLAIMED : PENDING;
		Object holderId = (retry.holder() != null) ? this.dialect.id(retry.holder()) : null;
		Instant since = retry.after().retryingSince();
		return new Object[] { this.dialect.instant(retry.due()), retry.after().failures(), retry.after().retries(),
				(since != null) ? this.dialect.instant(since) : null, StoredText.of(retry.error(), ERROR_LENGTH),
				holderId, waiting, this.dialect.id(retry.id()), retry.attempt(), this.dialect.id(owner), holderId,
				waiting, retry.after().retries() };
	}

	/**
	 * Two counts in one round trip: pending rows through the due index; claimed ones, which
	 * PostgreSQL's partial due index leaves out, through the owner index. Both are within the
	 * horizon, a few thousand rows at most, and a poll asks only when several instances are alive.
	 */
	@Override
	public Share share(UUID owner, Instant after, Instant until, Collection<String> methodIds) {
		if (methodIds.isEmpty()) {
			return new Share(0, 0);
		}
		String window = " AND due_at > ? AND due_at <= ? AND method_id IN (" + CallTable.placeholders(methodIds.size()) + ")";
		List<Object> arguments = new ArrayList<>();
		arguments.add(this.dialect.instant(after));
		arguments.add(this.dialect.instant(until));
		arguments.addAll(methodIds);
		// In the order of the text: the pending count's window, then the owner and the claimed count's.
		List<Object> all = new ArrayList<>(arguments);
		all.add(this.dialect.id(owner));
		all.addAll(arguments);
		String claimed = "SELECT COUNT(*) AS claimed, COUNT(CASE WHEN owner_id = ? THEN 1 END) AS mine FROM "
				+ this.calls + " WHERE owner_id IS NOT NULL AND state = '" + CLAIMED + "'" + window;
		String pending = "SELECT COUNT(*) FROM " + this.calls + " WHERE state = '" + PENDING + "'" + window;
		Share share = this.jdbc.queryForObject("SELECT c.claimed + (" + pending + "), c.mine FROM (" + claimed + ") c",
				(rs, n) -> new Share(rs.getLong(1), rs.getLong(2)), all.toArray());
		return (share != null) ? share : new Share(0, 0);
	}

	@Override
	public Map<UUID, UUID> takeOverDeadOwners() {
		// Usually none: one cheap statement per poll, and a transaction only when there is work.
		if (this.jdbc.query(this.dialect.limit("SELECT id" + this.ofDeadOwners), this.rows::firstId, 1).isEmpty()) {
			return Map.of();
		}
		// Skipped, not waited for: a plain UPDATE would block every instance's poll for as long as a
		// transaction holding one of the rows stays open (a frozen instance's finish, a caller's cancel).
		Map<UUID, UUID> released = this.table.inOwnTransaction((status) -> {
			Map<UUID, UUID> owners = new LinkedHashMap<>();
			this.jdbc.query(this.dialect.skipLocked("SELECT id, owner_id" + this.ofDeadOwners),
					(RowCallbackHandler) (rs) -> owners.put(this.rows.id(rs, 1), this.rows.id(rs, 2)));
			release(List.copyOf(owners.keySet()));
			return owners;
		});
		return (released != null) ? released : Map.of();
	}

	@Override
	public List<UUID> takeOverCallsOf(UUID owner) {
		List<UUID> released = this.table.inOwnTransaction((status) -> {
			List<UUID> ids = this.jdbc.query(this.dialect.skipLocked("SELECT id FROM " + this.calls + " WHERE state IN ('"
					+ CLAIMED + "', '" + RUNNING + "') AND owner_id = ?"), this.rows::firstId, this.dialect.id(owner));
			release(ids);
			return ids;
		});
		return (released != null) ? released : List.of();
	}

	/** Puts the locked rows back to pending, a chunk per statement: they are ours, so each goes back. */
	private void release(List<UUID> ids) {
		for (int from = 0; from < ids.size(); from += RELEASE_CHUNK) {
			List<UUID> chunk = ids.subList(from, Math.min(ids.size(), from + RELEASE_CHUNK));
			this.table.update("UPDATE " + this.calls + " SET state = '" + PENDING + "', owner_id = NULL"
					+ " WHERE id IN (" + CallTable.placeholders(chunk.size()) + ")", chunk.stream().map(this.dialect::id).toArray());
		}
	}

	@Override
	public int deleteFailedBefore(Duration retention) {
		return this.table.update("DELETE FROM " + this.calls + " WHERE state = '" + FAILED + "' AND finished_at < "
				+ this.dialect.before(retention));
	}

	@Override
	public List<CallCount> countByState() {
		return this.jdbc.query("SELECT state, COUNT(*), MIN(due_at) FROM " + this.calls + " GROUP BY state ORDER BY state",
				(rs, n) -> new CallCount(rs.getString(1), rs.getLong(2), this.dialect.instant(rs, 3)));
	}

	@Override
	public List<CallCount> pendingOfUnknownMethods(Collection<String> known) {
		String notIn = known.isEmpty() ? "" : " AND method_id NOT IN (" + CallTable.placeholders(known.size()) + ")";
		return this.jdbc.query("SELECT method_id, COUNT(*), MIN(due_at) FROM " + this.calls + " WHERE state = '"
				+ PENDING + "'" + notIn + " GROUP BY method_id ORDER BY method_id",
				(rs, n) -> new CallCount(rs.getString(1), rs.getLong(2), this.dialect.instant(rs, 3)), known.toArray());
	}

	@Override
	public List<UnreadableCalls> pendingOfShapes(Collection<MethodShape> shapes) {
		if (shapes.isEmpty()) {
			return List.of();
		}
		List<Object> arguments = new ArrayList<>(2 * shapes.size());
		StringBuilder pairs = new StringBuilder();
		for (MethodShape pair : shapes) {
			pairs.append(pairs.isEmpty() ? "" : " OR ").append("(method_id = ? AND shape = ?)");
			arguments.add(pair.methodId());
			arguments.add(pair.shape());
		}
		return this.jdbc.query("SELECT method_id, shape, COUNT(*), MIN(due_at) FROM " + this.calls + " WHERE state = '"
				+ PENDING + "' AND (" + pairs + ") GROUP BY method_id, shape ORDER BY method_id, shape",
				(rs, n) -> new UnreadableCalls(rs.getString(1), rs.getString(2), rs.getLong(3),
						this.dialect.instant(rs, 4)),
				arguments.toArray());
	}

	@Override
	public List<FailedCall> failed(@Nullable String methodId, int limit) {
		String select = this.dialect.limit("SELECT id, method_id, started_key, attempts, finished_at, last_error FROM "
				+ this.calls + " WHERE state = '" + FAILED + "'" + ((methodId != null) ? " AND method_id = ?" : "")
				+ " ORDER BY finished_at DESC");
		Object[] arguments = (methodId != null) ? new Object[] { methodId, limit } : new Object[] { limit };
		return this.jdbc.query(select, (rs, n) -> new FailedCall(this.rows.id(rs, 1), rs.getString(2), rs.getString(3),
				rs.getInt(4), this.dialect.instant(rs, 5), rs.getString(6)), arguments);
	}

	@Override
	public long countFailed(@Nullable String methodId) {
		String count = "SELECT COUNT(*) FROM " + this.calls + " WHERE state = '" + FAILED + "'";
		Long failed = (methodId != null) ? this.jdbc.queryForObject(count + " AND method_id = ?", Long.class, methodId)
				: this.jdbc.queryForObject(count, Long.class);
		return (failed != null) ? failed : 0;
	}

	/**
	 * A new round of retries, with no error; the runs before stay the call's history. Of several failed calls with one key, the newest gets it back; one statement each,
	 * a key given back only if no pending call holds it (rare: an operator's action).
	 */
	@Override
	public Requeued requeueFailed(@Nullable String methodId, Instant due) {
		String requeue = "UPDATE " + this.calls + " SET state = '" + PENDING + "', due_at = ?, retries = 0,"
				+ " retrying_since = NULL, finished_at = NULL, last_error = NULL";
		String ofMethod = (methodId != null) ? " AND method_id = ?" : "";
		Object at = this.dialect.instant(due);
		Object[] keyless = (methodId != null) ? new Object[] { at, methodId } : new Object[] { at };
		int requeued = this.table.update(requeue + " WHERE state = '" + FAILED + "' AND started_key IS NULL" + ofMethod,
				keyless);
		List<FailedCall> keyed = this.jdbc.query("SELECT id, method_id, started_key FROM " + this.calls
				+ " WHERE state = '" + FAILED + "' AND started_key IS NOT NULL" + ofMethod + " ORDER BY finished_at DESC",
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

	@Override
	public @Nullable StoredCall find(UUID id) {
		List<StoredCall> found = this.jdbc.query(this.rows.storedCalls("c.id = ?"), this.rows::stored, this.dialect.id(id));
		return found.isEmpty() ? null : found.get(0);
	}

	@Override
	public @Nullable StoredCall findWaiting(String methodId, String key) {
		// The key index finds it: a key names waiting calls only.
		List<StoredCall> found = this.jdbc.query(this.rows.storedCalls("c.method_id = ? AND c.call_key = ?"), this.rows::stored,
				methodId, key);
		return found.isEmpty() ? null : found.get(0);
	}

	/**
	 * Pages by offset: an operator reads the first pages of a state or a method, and each is one
	 * statement. The order ends with the id, so that calls due at one instant keep their places
	 * from page to page.
	 */
	@Override
	public List<StoredCall> list(Filter filter, int offset, int limit) {
		List<Object> arguments = new ArrayList<>();
		String where = where(filter, arguments);
		String order = (filter.state() == CallState.FAILED) ? " ORDER BY c.finished_at DESC, c.id"
				: " ORDER BY c.due_at, c.id";
		arguments.add(limit);
		arguments.add(offset);
		return this.jdbc.query(this.dialect.page(this.rows.storedCalls(where) + order), this.rows::stored, arguments.toArray());
	}

	@Override
	public long count(Filter filter) {
		List<Object> arguments = new ArrayList<>();
		String where = where(filter, arguments);
		Long count = this.jdbc.queryForObject("SELECT COUNT(*) FROM " + this.calls + " c WHERE " + where, Long.class,
				arguments.toArray());
		return (count != null) ? count : 0;
	}

	/**
	 * A key names the waiting call that holds it now, and running or failed calls made with it:
	 * those keep it aside until a re-queue gives it back.
	 */
	private String where(Filter filter, List<Object> arguments) {
		List<String> conditions = new ArrayList<>();
		if (filter.methodId() != null) {
			conditions.add("c.method_id = ?");
			arguments.add(filter.methodId());
		}
		if (filter.key() != null) {
			conditions.add("(c.call_key = ? OR c.started_key = ?)");
			arguments.add(filter.key());
			arguments.add(filter.key());
		}
		if (filter.state() != null) {
			conditions.add("c.state = ?");
			arguments.add(filter.state().name());
		}
		return conditions.isEmpty() ? "1 = 1" : String.join(" AND ", conditions);
	}

	@Override
	public List<MethodCount> countByMethod() {
		return this.jdbc.query("SELECT method_id, state, COUNT(*) FROM " + this.calls
				+ " GROUP BY method_id, state ORDER BY method_id, state",
				(rs, n) -> new MethodCount(rs.getString(1), CallState.valueOf(rs.getString(2)), rs.getLong(3)));
	}

	/**
	 * A new id, as a replace gives one: an instance whose wheel holds the call at its old time
	 * finds the old id gone at its gate, even if it claims the row again meanwhile. The row is
	 * locked by the update until the caller's transaction ends: a gate skips it meanwhile.
	 */
	@Override
	public boolean reschedule(UUID id, UUID newId, Instant due, @Nullable UUID owner) {
		return this.table.update("UPDATE " + this.calls + " SET id = ?, due_at = ?, state = ?, owner_id = ? WHERE id = ? AND state IN ('"
				+ PENDING + "', '" + CLAIMED + "')", this.dialect.id(newId), this.dialect.instant(due),
				(owner != null) ? CLAIMED : PENDING, (owner != null) ? this.dialect.id(owner) : null,
				this.dialect.id(id)) == 1;
	}

	@Override
	public Requeue requeue(UUID id, Instant due, @Nullable UUID owner) {
		StoredCall call = find(id);
		if (call == null || call.state() != CallState.FAILED) {
			return Requeue.NOT_FAILED;
		}
		if (requeueOne(id, call.methodId(), call.key(), due, owner)) {
			return Requeue.REQUEUED;
		}
		StoredCall now = find(id);
		return (now != null && now.state() == CallState.FAILED && call.key() != null) ? Requeue.KEY_HELD
				: Requeue.NOT_FAILED;
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
				+ " retrying_since = NULL, finished_at = NULL, last_error = NULL, call_key = started_key, started_key = NULL WHERE id = ? AND state = '"
				+ FAILED + "'";
		List<Object> arguments = new ArrayList<>(List.of((owner != null) ? CLAIMED : PENDING));
		arguments.add((owner != null) ? this.dialect.id(owner) : null);
		arguments.add(this.dialect.instant(due));
		arguments.add(this.dialect.id(id));
		if (key != null) {
			requeue += " AND " + this.dialect.notExists("SELECT 1 FROM " + this.calls + " h WHERE h.method_id = ? AND h.call_key = ?");
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

	@Override
	public boolean deleteFailed(UUID id) {
		return this.table.update("DELETE FROM " + this.calls + " WHERE id = ? AND state = '" + FAILED + "'",
				this.dialect.id(id)) == 1;
	}

	@Override
	public int deleteCallsOf(String methodId) {
		return this.table.update("DELETE FROM " + this.calls + " WHERE method_id = ? AND state IN ('" + PENDING + "', '" + CLAIMED
				+ "', '" + FAILED + "')", methodId);
	}

	@Override
	public boolean inTransaction() {
		return this.table.inTransaction();
	}

	/**
	 * The ids of a batch as bound, their count rounded up to a power of two by naming the last one
	 * again: a batch's statements then take a dozen texts, not one per size, so that the driver's
	 * statement cache and the server's prepared plans serve them (PostgreSQL's driver prepares a
	 * text on the server from its fifth use). A repeated id changes nothing in an {@code IN} list.
	 */
	private List<Object> boundIds(Collection<UUID> ids) {
		int padded = (ids.size() <= 1) ? 1 : Integer.highestOneBit(ids.size() - 1) << 1;
		List<Object> bound = new ArrayList<>(padded + 2);
		ids.forEach((id) -> bound.add(this.dialect.id(id)));
		Object last = bound.get(bound.size() - 1);
		while (bound.size() < padded) {
			bound.add(last);
		}
		return bound;
	}

}
