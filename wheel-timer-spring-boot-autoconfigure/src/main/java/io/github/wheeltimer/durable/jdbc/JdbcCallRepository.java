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

	private final CallTable table;

	private final JdbcTemplate jdbc;

	private final CallRows rows;

	private final CallQueries queries;

	private final CallerWrites writes;

	private final DurableDialect dialect;

	private final DurableTables tables;

	private final String calls;

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
		this.queries = new CallQueries(this.table, this.rows);
		this.writes = new CallerWrites(this.table, this.rows, this.queries);
		this.dialect = dialect;
		this.tables = tables;
		this.calls = tables.calls();
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
		this.writes.insert(id, methodId, key, arguments, due, owner, traceParent, shape);
	}

	@Override
	public boolean cancel(String methodId, String key) {
		return this.writes.cancel(methodId, key);
	}

	@Override
	public boolean cancel(UUID id) {
		return this.writes.cancel(id);
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
		return this.writes.deleteFailedBefore(retention);
	}

	@Override
	public List<CallCount> countByState() {
		return this.queries.countByState();
	}

	@Override
	public List<CallCount> pendingOfUnknownMethods(Collection<String> known) {
		return this.queries.pendingOfUnknownMethods(known);
	}

	@Override
	public List<UnreadableCalls> pendingOfShapes(Collection<MethodShape> shapes) {
		return this.queries.pendingOfShapes(shapes);
	}

	@Override
	public List<FailedCall> failed(@Nullable String methodId, int limit) {
		return this.queries.failed(methodId, limit);
	}

	@Override
	public long countFailed(@Nullable String methodId) {
		return this.queries.countFailed(methodId);
	}

	@Override
	public Requeued requeueFailed(@Nullable String methodId, Instant due) {
		return this.writes.requeueFailed(methodId, due);
	}

	@Override
	public @Nullable StoredCall find(UUID id) {
		return this.queries.find(id);
	}

	@Override
	public @Nullable StoredCall findWaiting(String methodId, String key) {
		return this.queries.findWaiting(methodId, key);
	}

	@Override
	public List<StoredCall> list(Filter filter, int offset, int limit) {
		return this.queries.list(filter, offset, limit);
	}

	@Override
	public long count(Filter filter) {
		return this.queries.count(filter);
	}

	@Override
	public List<MethodCount> countByMethod() {
		return this.queries.countByMethod();
	}

	@Override
	public boolean reschedule(UUID id, UUID newId, Instant due, @Nullable UUID owner) {
		return this.writes.reschedule(id, newId, due, owner);
	}

	@Override
	public Requeue requeue(UUID id, Instant due, @Nullable UUID owner) {
		return this.writes.requeue(id, due, owner);
	}

	@Override
	public boolean deleteFailed(UUID id) {
		return this.writes.deleteFailed(id);
	}

	@Override
	public int deleteCallsOf(String methodId) {
		return this.writes.deleteCallsOf(methodId);
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
