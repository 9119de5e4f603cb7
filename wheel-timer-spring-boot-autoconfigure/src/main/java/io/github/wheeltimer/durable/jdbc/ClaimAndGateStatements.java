package io.github.wheeltimer.durable.jdbc;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * The texts of the claim and of the start gates, as {@link JdbcCallRepository} sends them: the
 * statements every poll and every batch of due calls run, whose locking and plans decide how
 * instances share a table. Public so that the tests of each database can explain them as they are
 * sent, not a copy.
 */
public final class ClaimAndGateStatements {

	/** What claims a row, binding its new owner. */
	private static final String CLAIM = "state = '" + CallTable.CLAIMED + "', owner_id = ?";

	private ClaimAndGateStatements() {
	}

	/**
	 * The start gates of a batch: one statement that is, for each row, both the fence against a
	 * falsely declared dead owner (another instance took the row over) and the cross-instance
	 * cancel (the row is gone). The owner is compared with the dialect's null-safe equality, which
	 * no index serves, so that the rows are found by their primary key: with {@code owner_id = ?},
	 * PostgreSQL's statistics (pending rows have no owner) make the owner index look as selective,
	 * and each gate then reads every row this instance claimed.
	 * <p>
	 * The key of a started call is free for a new call. A gate in place leaves it on the row, so
	 * that the gate changes no indexed column (PostgreSQL then writes the row's new version on its
	 * page, with no new index entry), and a new call of that key moves it aside as it is written
	 * ({@link DurableDialect#gateInPlace()}). Otherwise the gate moves it aside as the call starts:
	 * assigned before it is cleared, for databases that read each assignment's left side as
	 * already set. Either way, a failure keeps it.
	 * @param rows the condition that picks the rows, such as {@code id IN (?, ?)}
	 * @param inPlace whether the gate leaves the key on the row
	 * @return the gate, binding what {@code rows} binds, then the owner
	 */
	public static String gateStatement(DurableDialect dialect, DurableTables tables, Duration lease, String rows,
			boolean inPlace) {
		String key = inPlace ? "" : ", started_key = COALESCE(call_key, started_key), call_key = NULL";
		return "UPDATE " + tables.calls() + " SET state = '" + CallTable.RUNNING + "', attempts = attempts + 1" + key
				+ " WHERE " + rows + " AND EXISTS (SELECT 1 FROM " + tables.instances() + " WHERE id = ? AND heartbeat_at > "
				+ dialect.before(lease) + ")";
	}

	/**
	 * The rows of a batch that are still claimed by their owner, locked, skipping those another
	 * transaction holds.
	 * @param ids how many ids it names
	 * @return the select, binding the ids, then the owner
	 */
	public static String gateLock(DurableDialect dialect, DurableTables tables, int ids) {
		return dialect.skipLocked("SELECT id FROM " + tables.calls() + " WHERE id IN (" + CallTable.placeholders(ids)
				+ ") AND " + dialect.sameAs("owner_id") + " AND state = '" + CallTable.CLAIMED + "'");
	}

	/**
	 * The claim's locking select.
	 * @param columns the columns it reads
	 * @param skipped how many method and shape pairs it leaves pending (none while every instance
	 * runs one version)
	 * @return the select, binding the due time to claim up to, the method ids, each skipped pair's
	 * method id and shape, then the limit
	 */
	public static String claimSelect(DurableDialect dialect, DurableTables tables, String columns, int methodIds,
			int skipped) {
		StringBuilder select = new StringBuilder("SELECT " + columns + " FROM " + tables.calls() + " WHERE "
				+ dialect.pending() + " AND due_at <= ? AND method_id IN (" + CallTable.placeholders(methodIds) + ")");
		for (int i = 0; i < skipped; i++) {
			select.append(" AND NOT (method_id = ? AND shape = ?)");
		}
		return dialect.skipLocked(dialect.limit(select.append(" ORDER BY due_at").toString()));
	}

	/**
	 * The claim as the repository sends it: one statement where the dialect has one, else the
	 * select of the portable pair.
	 * @return the statement; the one-statement claim binds the owner first
	 */
	public static String claimStatement(DurableDialect dialect, DurableTables tables, int methodIds, int skipped) {
		String returning = claimReturning(dialect, tables, methodIds, skipped);
		return (returning != null) ? returning
				: claimSelect(dialect, tables, CallRows.CLAIMED_COLUMNS, methodIds, skipped);
	}

	/** @return the dialect's one-statement claim, binding the owner first, or {@code null} */
	static @Nullable String claimReturning(DurableDialect dialect, DurableTables tables, int methodIds, int skipped) {
		return dialect.returning("UPDATE " + tables.calls() + " SET " + CLAIM + " WHERE "
				+ dialect.inSubquery("id", claimSelect(dialect, tables, "id", methodIds, skipped)),
				CallRows.CLAIMED_COLUMNS);
	}

	/**
	 * The second statement of the portable claim: the rows its select locked, claimed.
	 * @param rows how many rows the select locked
	 * @return the update, binding the owner, then the rows' ids
	 */
	static String claimLocked(DurableTables tables, int rows) {
		return "UPDATE " + tables.calls() + " SET " + CLAIM + " WHERE id IN (" + CallTable.placeholders(rows) + ")";
	}

}
