package io.github.wheeltimer.durable.jdbc;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

import io.github.wheeltimer.durable.CallState;
import io.github.wheeltimer.durable.StoredCall;
import io.github.wheeltimer.durable.storage.CallCount;
import io.github.wheeltimer.durable.storage.CallRepository.Filter;
import io.github.wheeltimer.durable.storage.CallRepository.MethodCount;
import io.github.wheeltimer.durable.storage.CallRepository.MethodShape;
import io.github.wheeltimer.durable.storage.FailedCall;
import io.github.wheeltimer.durable.storage.UnreadableCalls;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * What operators and monitoring read of the calls' table: a call by its id or key, pages of calls,
 * counts, failed calls, the calls no live version can run. Plain reads, one statement each, in the
 * caller's transaction if it has one; none changes or locks a row. Thread-safe.
 */
final class CallQueries {

	/**
	 * The failed calls, found by their end: every failed call has one, and PostgreSQL's index of
	 * ended calls holds them, however many calls wait.
	 */
	static final String FAILED = "finished_at IS NOT NULL AND state = '" + CallTable.FAILED + "'";

	private final JdbcTemplate jdbc;

	private final DurableDialect dialect;

	private final String calls;

	private final CallRows rows;

	CallQueries(CallTable table, CallRows rows) {
		this.jdbc = table.jdbc();
		this.dialect = table.dialect();
		this.calls = table.name();
		this.rows = rows;
	}

	@Nullable StoredCall find(UUID id) {
		List<StoredCall> found = this.jdbc.query(this.rows.storedCalls("c.id = ?"), this.rows::stored,
				this.dialect.id(id));
		return found.isEmpty() ? null : found.get(0);
	}

	@Nullable StoredCall findWaiting(String methodId, String key) {
		// The key index finds it. A key names waiting calls, and a started call whose gate left it in place.
		List<StoredCall> found = this.jdbc.query(this.rows.storedCalls("c.method_id = ? AND c.call_key = ? AND c."
				+ CallTable.WAITING),
				this.rows::stored, methodId, key);
		return found.isEmpty() ? null : found.get(0);
	}

	/**
	 * Pages by offset: an operator reads the first pages of a state or a method, and each is one
	 * statement. The order ends with the id, so that calls due at one instant keep their places
	 * from page to page.
	 */
	List<StoredCall> list(Filter filter, int offset, int limit) {
		List<Object> arguments = new ArrayList<>();
		String where = where(filter, arguments);
		String order = (filter.state() == CallState.FAILED) ? " ORDER BY c.finished_at DESC, c.id"
				: " ORDER BY c.due_at, c.id";
		arguments.add(limit);
		arguments.add(offset);
		return this.jdbc.query(this.dialect.page(this.rows.storedCalls(where) + order), this.rows::stored,
				arguments.toArray());
	}

	long count(Filter filter) {
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

	List<CallCount> countByState() {
		return this.jdbc.query("SELECT state, COUNT(*), MIN(due_at) FROM " + this.calls + " GROUP BY state ORDER BY state",
				(rs, n) -> new CallCount(rs.getString(1), rs.getLong(2), this.dialect.instant(rs, 3)));
	}

	List<MethodCount> countByMethod() {
		return this.jdbc.query("SELECT method_id, state, COUNT(*) FROM " + this.calls
				+ " GROUP BY method_id, state ORDER BY method_id, state",
				(rs, n) -> new MethodCount(rs.getString(1), CallState.valueOf(rs.getString(2)), rs.getLong(3)));
	}

	List<FailedCall> failed(@Nullable String methodId, int limit) {
		String select = this.dialect.limit("SELECT id, method_id, started_key, attempts, finished_at, last_error FROM "
				+ this.calls + " WHERE " + FAILED + ((methodId != null) ? " AND method_id = ?" : "")
				+ " ORDER BY finished_at DESC");
		Object[] arguments = (methodId != null) ? new Object[] { methodId, limit } : new Object[] { limit };
		return this.jdbc.query(select, (rs, n) -> new FailedCall(this.rows.id(rs, 1), rs.getString(2), rs.getString(3),
				rs.getInt(4), this.dialect.instant(rs, 5), rs.getString(6)), arguments);
	}

	long countFailed(@Nullable String methodId) {
		String count = "SELECT COUNT(*) FROM " + this.calls + " WHERE " + FAILED;
		Long failed = (methodId != null) ? this.jdbc.queryForObject(count + " AND method_id = ?", Long.class, methodId)
				: this.jdbc.queryForObject(count, Long.class);
		return (failed != null) ? failed : 0;
	}

	/**
	 * Where the key index leads with the method id, the methods that have calls are read through
	 * it first, one probe per method, and only the calls of unknown ones are counted: usually
	 * none, so that the clean-up reads no waiting call, however many wait. Elsewhere, one statement.
	 */
	List<CallCount> pendingOfUnknownMethods(Collection<String> known) {
		if (this.dialect.keyIndexLeadsWithMethod()) {
			List<String> unknown = methodIds().stream().filter((id) -> !known.contains(id)).toList();
			return unknown.isEmpty() ? List.of() : pendingOf(" AND method_id IN (", unknown);
		}
		return pendingOf(" AND method_id NOT IN (", known);
	}

	private List<CallCount> pendingOf(String methods, Collection<String> ids) {
		String in = ids.isEmpty() ? "" : methods + CallTable.placeholders(ids.size()) + ")";
		return this.jdbc.query("SELECT method_id, COUNT(*), MIN(due_at) FROM " + this.calls + " WHERE state = '"
				+ CallTable.PENDING + "'" + in + " GROUP BY method_id ORDER BY method_id",
				(rs, n) -> new CallCount(rs.getString(1), rs.getLong(2), this.dialect.instant(rs, 3)), ids.toArray());
	}

	/** @return the method ids of every call, in any state: each the next one after the last, from the key index */
	private List<String> methodIds() {
		return this.jdbc.queryForList("WITH RECURSIVE m (method_id) AS (SELECT MIN(method_id) FROM " + this.calls
				+ " UNION ALL SELECT (SELECT MIN(c.method_id) FROM " + this.calls + " c WHERE c.method_id > m.method_id)"
				+ " FROM m WHERE m.method_id IS NOT NULL) SELECT method_id FROM m WHERE method_id IS NOT NULL",
				String.class);
	}

	List<UnreadableCalls> pendingOfShapes(Collection<MethodShape> shapes) {
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
				+ CallTable.PENDING + "' AND (" + pairs + ") GROUP BY method_id, shape ORDER BY method_id, shape",
				(rs, n) -> new UnreadableCalls(rs.getString(1), rs.getString(2), rs.getLong(3),
						this.dialect.instant(rs, 4)),
				arguments.toArray());
	}

}
