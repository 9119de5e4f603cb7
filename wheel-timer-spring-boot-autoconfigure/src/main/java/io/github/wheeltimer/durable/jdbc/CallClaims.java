package io.github.wheeltimer.durable.jdbc;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.wheeltimer.durable.storage.CallRepository.MethodShape;
import io.github.wheeltimer.durable.storage.CallRepository.Share;
import io.github.wheeltimer.durable.storage.ClaimedCall;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowCallbackHandler;

/**
 * Which instance holds a call that has not run: the claim of pending calls, the share of them
 * that tells a poll how much to claim, the hand-backs of calls an instance will not run, and the
 * take-overs of the calls of instances that died. The claim and the take-overs run in
 * transactions of their own. Thread-safe.
 */
final class CallClaims {

	/** The most rows one take-over statement releases. */
	private static final int RELEASE_CHUNK = 1000;

	private final CallTable table;

	private final JdbcTemplate jdbc;

	private final DurableDialect dialect;

	private final String calls;

	private final CallRows rows;

	private final String release;

	/** Rows claimed or running by an instance whose heartbeat is older than the lease. */
	private final String ofDeadOwners;

	/**
	 * @param lease how long after its last heartbeat an instance counts as dead
	 */
	CallClaims(CallTable table, CallRows rows, Duration lease) {
		this.table = table;
		this.jdbc = table.jdbc();
		this.dialect = table.dialect();
		this.calls = table.name();
		this.rows = rows;
		this.release = "UPDATE " + this.calls + " SET state = '" + CallTable.PENDING + "', owner_id = NULL WHERE id = ?"
				+ " AND " + this.dialect.sameAs("owner_id");
		// "Not null" for the planner: NOT IN leaves out rows without an owner, but says nothing it reads, and
		// the owner index (on PostgreSQL, of owned rows only) then serves the poll however many calls wait.
		this.ofDeadOwners = " FROM " + this.calls + " WHERE owner_id IS NOT NULL AND state IN ('" + CallTable.CLAIMED
				+ "', '" + CallTable.RUNNING + "') AND owner_id NOT IN (SELECT id FROM " + table.tables().instances()
				+ " WHERE heartbeat_at > " + this.dialect.before(lease) + ")";
	}

	List<ClaimedCall> claim(UUID owner, Instant until, Collection<String> methodIds, Collection<MethodShape> skipped,
			int limit) {
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
		DurableTables tables = this.table.tables();
		String returning = ClaimAndGateStatements.claimReturning(this.dialect, tables, methodIds.size(),
				skipped.size());
		if (returning != null) {
			arguments.add(0, this.dialect.id(owner));
			List<ClaimedCall> claimed = new ArrayList<>(
					this.table.retried(() -> this.jdbc.query(returning, this.rows::claimed, arguments.toArray())));
			// Returned in no particular order: earliest first, as the select picked them.
			claimed.sort(Comparator.comparing(ClaimedCall::due));
			return claimed;
		}
		String select = ClaimAndGateStatements.claimSelect(this.dialect, tables, CallRows.CLAIMED_COLUMNS,
				methodIds.size(), skipped.size());
		List<ClaimedCall> rows = this.table.inOwnTransaction((status) -> {
			List<ClaimedCall> claimed = this.jdbc.query(select, this.rows::claimed, arguments.toArray());
			if (!claimed.isEmpty()) {
				List<Object> update = new ArrayList<>(claimed.size() + 1);
				update.add(this.dialect.id(owner));
				claimed.forEach((row) -> update.add(this.dialect.id(row.id())));
				this.table.update(ClaimAndGateStatements.claimLocked(tables, claimed.size()), update.toArray());
			}
			return claimed;
		});
		return (rows != null) ? rows : List.of();
	}

	/**
	 * Two counts in one round trip: pending rows through the due index; claimed ones, which
	 * PostgreSQL's partial due index leaves out, through the owner index. Both are within the
	 * horizon, a few thousand rows at most, and a poll asks only when several instances are alive.
	 */
	Share share(UUID owner, Instant after, Instant until, Collection<String> methodIds) {
		if (methodIds.isEmpty()) {
			return new Share(0, 0);
		}
		String window = " AND due_at > ? AND due_at <= ? AND method_id IN ("
				+ CallTable.placeholders(methodIds.size()) + ")";
		List<Object> arguments = new ArrayList<>();
		arguments.add(this.dialect.instant(after));
		arguments.add(this.dialect.instant(until));
		arguments.addAll(methodIds);
		// In the order of the text: the pending count's window, then the owner and the claimed count's.
		List<Object> all = new ArrayList<>(arguments);
		all.add(this.dialect.id(owner));
		all.addAll(arguments);
		String claimed = "SELECT COUNT(*) AS claimed, COUNT(CASE WHEN owner_id = ? THEN 1 END) AS mine FROM "
				+ this.calls + " WHERE owner_id IS NOT NULL AND state = '" + CallTable.CLAIMED + "'" + window;
		String pending = "SELECT COUNT(*) FROM " + this.calls + " WHERE " + this.dialect.pending() + window;
		Share share = this.jdbc.queryForObject("SELECT c.claimed + (" + pending + "), c.mine FROM (" + claimed + ") c",
				(rs, n) -> new Share(rs.getLong(1), rs.getLong(2)), all.toArray());
		return (share != null) ? share : new Share(0, 0);
	}

	boolean handBack(UUID id, UUID owner) {
		return this.table.update(this.release + " AND state = '" + CallTable.CLAIMED + "'", this.dialect.id(id),
				this.dialect.id(owner)) == 1;
	}

	/**
	 * The attempt the gate counted is taken back, and the key it moved aside is given back: the
	 * call did not run here. Unless a new call took that key meanwhile: then the row goes back
	 * without it, as a call that started before the new one was made. Assigned in this order, with
	 * the state last, for databases that read each assignment's left side as already set.
	 */
	boolean handBackAfterGate(UUID id, UUID owner, int attempt, @Nullable String shape) {
		String keyBack = "call_key = CASE WHEN state = '" + CallTable.RUNNING
				+ "' THEN COALESCE(started_key, call_key) ELSE call_key END,"
				+ " started_key = CASE WHEN state = '" + CallTable.RUNNING + "' THEN NULL ELSE started_key END, ";
		String shapeSet = (shape != null) ? "shape = ?, " : "";
		Object[] arguments = (shape != null)
				? new Object[] { shape, this.dialect.id(id), this.dialect.id(owner), attempt }
				: new Object[] { this.dialect.id(id), this.dialect.id(owner), attempt };
		try {
			return this.table.update(handBackAfterGate(keyBack + shapeSet), arguments) == 1;
		}
		catch (DuplicateKeyException taken) {
			return this.table.update(handBackAfterGate(shapeSet), arguments) == 1;
		}
	}

	private String handBackAfterGate(String keyBack) {
		return "UPDATE " + this.calls + " SET attempts = CASE WHEN state = '" + CallTable.RUNNING
				+ "' THEN attempts - 1 ELSE attempts END, " + keyBack + "state = '" + CallTable.PENDING
				+ "', owner_id = NULL WHERE id = ? AND " + this.dialect.sameAs("owner_id") + " AND (state = '"
				+ CallTable.CLAIMED + "' OR (state = '" + CallTable.RUNNING + "' AND attempts = ?))";
	}

	int handBackAll(UUID owner, @Nullable Instant after, Collection<UUID> except) {
		StringBuilder release = new StringBuilder("UPDATE " + this.calls + " SET state = '" + CallTable.PENDING
				+ "', owner_id = NULL WHERE owner_id = ? AND state = '" + CallTable.CLAIMED + "'");
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

	Map<UUID, UUID> takeOverDeadOwners() {
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
			putBack(List.copyOf(owners.keySet()));
			return owners;
		});
		return (released != null) ? released : Map.of();
	}

	List<UUID> takeOverCallsOf(UUID owner) {
		List<UUID> released = this.table.inOwnTransaction((status) -> {
			List<UUID> ids = this.jdbc.query(this.dialect.skipLocked("SELECT id FROM " + this.calls + " WHERE state IN ('"
					+ CallTable.CLAIMED + "', '" + CallTable.RUNNING + "') AND owner_id = ?"), this.rows::firstId,
					this.dialect.id(owner));
			putBack(ids);
			return ids;
		});
		return (released != null) ? released : List.of();
	}

	List<UUID> claimedBy(UUID owner) {
		return this.jdbc.query("SELECT id FROM " + this.calls + " WHERE owner_id = ? AND state = '" + CallTable.CLAIMED
				+ "'", this.rows::firstId, this.dialect.id(owner));
	}

	/** Puts the locked rows back to pending, a chunk per statement: they are ours, so each goes back. */
	private void putBack(List<UUID> ids) {
		for (int from = 0; from < ids.size(); from += RELEASE_CHUNK) {
			List<UUID> chunk = ids.subList(from, Math.min(ids.size(), from + RELEASE_CHUNK));
			this.table.update("UPDATE " + this.calls + " SET state = '" + CallTable.PENDING + "', owner_id = NULL"
					+ " WHERE id IN (" + CallTable.placeholders(chunk.size()) + ")",
					chunk.stream().map(this.dialect::id).toArray());
		}
	}

}
