package io.github.wheeltimer.durable.jdbc;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import io.github.wheeltimer.durable.storage.CallRepository.Gates;
import io.github.wheeltimer.durable.storage.CallRepository.Retried;
import io.github.wheeltimer.durable.storage.CallRepository.Retry;
import io.github.wheeltimer.durable.storage.StoredText;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A held call's run, as its row records it: the start gates that let calls run, and how each run
 * ended: finished, failed, or waiting for a retry. Each statement names the owner, and the lease
 * or the attempt, so that an instance declared dead cannot undo what another did since; only a
 * batch of finishes deletes its rows whoever holds them, so that a retried finish stops a re-run.
 * Thread-safe.
 */
final class CallRuns {

	private static final int ERROR_LENGTH = 4000;

	/**
	 * How a retry's row gets its key back: moved aside when its attempt started, or left in place by
	 * the gate or kept by a retry before.
	 */
	private static final String KEY_BACK = "call_key = COALESCE(started_key, call_key), started_key = NULL, ";

	private final CallTable table;

	private final JdbcTemplate jdbc;

	private final DurableDialect dialect;

	private final String calls;

	private final CallRows rows;

	private final Duration lease;

	/** Whether the gates leave the key in place, once read (by whichever thread gates first: each reads the same). */
	private volatile @Nullable Boolean inPlace;

	/**
	 * @param lease how long after its last heartbeat an instance counts as dead: a gate lets no call
	 * of an instance past it
	 */
	CallRuns(CallTable table, CallRows rows, Duration lease) {
		this.table = table;
		this.jdbc = table.jdbc();
		this.dialect = table.dialect();
		this.calls = table.name();
		this.rows = rows;
		this.lease = lease;
	}

	/**
	 * One statement where the dialect returns the rows it changed: the update of the rows its
	 * locking subquery picked. Elsewhere, in a transaction: the locking select, then the update of
	 * the rows it locked, which passes them all or (the lease lapsed) none. Exact either way: what
	 * passed is what this statement moved. The rows that did not pass are read once more, only
	 * when there are some, for those still claimed by the owner.
	 */
	Gates start(Collection<UUID> ids, UUID owner) {
		if (ids.isEmpty()) {
			return new Gates(Set.of(), Set.of());
		}
		List<Object> arguments = boundIds(ids);
		int placeholders = arguments.size();
		Object bound = this.dialect.id(owner);
		arguments.add(bound);
		DurableTables tables = this.table.tables();
		String lock = ClaimAndGateStatements.gateLock(this.dialect, tables, placeholders);
		boolean inPlace = gateInPlace();
		String returning = this.dialect.returning(ClaimAndGateStatements.gateStatement(this.dialect, tables,
				this.lease, this.dialect.inSubquery("id", lock), inPlace), "id");
		if (returning != null) {
			arguments.add(bound);
			Set<UUID> passed = Set.copyOf(
					this.table.retried(() -> this.jdbc.query(returning, this.rows::firstId, arguments.toArray())));
			return new Gates(passed, waiting(ids, passed, owner));
		}
		Set<UUID> passed = this.table.inOwnTransaction((status) -> {
			List<UUID> locked = this.jdbc.query(lock, this.rows::firstId, arguments.toArray());
			if (locked.isEmpty()) {
				return Set.<UUID>of();
			}
			List<Object> update = boundIds(locked);
			String gate = ClaimAndGateStatements.gateStatement(this.dialect, tables, this.lease,
					"id IN (" + CallTable.placeholders(update.size()) + ")", inPlace);
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

	/**
	 * Whether this instance's gates leave the key in place: where the dialect allows it, once the
	 * index that the starters before version 3 claim by is gone, which happens only when none of
	 * them runs (such a starter's replace and cancel by key would take a started call's row for a
	 * waiting one). Read at the first gate, and kept: an instance that started beside older ones
	 * moves keys aside until it restarts.
	 */
	private boolean gateInPlace() {
		Boolean inPlace = this.inPlace;
		if (inPlace == null) {
			inPlace = this.dialect.gateInPlace() && !this.dialect.retiredIndexExists(this.jdbc, this.table.tables().prefix());
			this.inPlace = inPlace;
		}
		return inPlace;
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
		return Set.copyOf(this.jdbc.query("SELECT id FROM " + this.calls + " WHERE id IN (" + in + ") AND "
				+ this.dialect.sameAs("owner_id") + " AND state = '" + CallTable.CLAIMED + "'", this.rows::firstId,
				arguments.toArray()));
	}

	void finish(Collection<UUID> ids) {
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
	boolean finish(UUID id, UUID owner, int attempt) {
		return this.table.update("DELETE FROM " + this.calls + " WHERE id = ? AND " + this.dialect.sameAs("owner_id")
				+ " AND state = '" + CallTable.RUNNING + "' AND attempts = ?", this.dialect.id(id),
				this.dialect.id(owner), attempt) == 1;
	}

	boolean fail(UUID id, UUID owner, int attempt, String error) {
		// The key aside, where a gate in place left it; assigned before it is cleared, as the gate does.
		return this.table.update("UPDATE " + this.calls + " SET state = '" + CallTable.FAILED + "', owner_id = NULL,"
				+ " started_key = COALESCE(started_key, call_key), call_key = NULL, failures = failures + 1,"
				+ " finished_at = " + this.dialect.now() + ", last_error = ? WHERE id = ? AND "
				+ this.dialect.sameAs("owner_id") + " AND state = '" + CallTable.RUNNING + "' AND attempts = ?",
				StoredText.of(error, ERROR_LENGTH), this.dialect.id(id), this.dialect.id(owner), attempt) == 1;
	}

	/**
	 * Sets absolute values, not increments, and also matches the row as this statement leaves it:
	 * tried again after its answer was lost (the database went away as it committed), it finds the
	 * row it wrote, says so, and the retry is held, not left claimed by no wheel.
	 */
	Retried retry(UUID owner, Retry retry) {
		try {
			return (this.table.update(retryStatement(KEY_BACK), retryArguments(owner, retry)) == 1) ? Retried.WITH_KEY
					: Retried.LOST;
		}
		catch (DuplicateKeyException taken) {
			return (this.table.update(retryStatement(""), retryArguments(owner, retry)) == 1) ? Retried.WITHOUT_KEY
					: Retried.LOST;
		}
	}

	/**
	 * A batch in a transaction of its own, so that it passes or fails whole: one whose key move a
	 * new call's key refuses is written again one by one, each finding its row as it was.
	 */
	List<Retried> retryAll(UUID owner, List<Retry> retries) {
		if (retries.isEmpty()) {
			return List.of();
		}
		List<Object[]> arguments = retries.stream().map((retry) -> retryArguments(owner, retry)).toList();
		int[] counts;
		try {
			counts = this.table
				.inOwnTransaction((status) -> this.jdbc.batchUpdate(retryStatement(KEY_BACK), arguments));
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
				+ " WHERE id = ? AND attempts = ? AND ((" + this.dialect.sameAs("owner_id") + " AND state = '"
				+ CallTable.RUNNING + "') OR (" + this.dialect.sameAs("owner_id") + " AND state = ? AND retries = ?))";
	}

	private Object[] retryArguments(UUID owner, Retry retry) {
		Object waiting = (retry.holder() != null) ? CallTable.CLAIMED : CallTable.PENDING;
		Object holderId = (retry.holder() != null) ? this.dialect.id(retry.holder()) : null;
		Instant since = retry.after().retryingSince();
		return new Object[] { this.dialect.instant(retry.due()), retry.after().failures(), retry.after().retries(),
				(since != null) ? this.dialect.instant(since) : null, StoredText.of(retry.error(), ERROR_LENGTH),
				holderId, waiting, this.dialect.id(retry.id()), retry.attempt(), this.dialect.id(owner), holderId,
				waiting, retry.after().retries() };
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
