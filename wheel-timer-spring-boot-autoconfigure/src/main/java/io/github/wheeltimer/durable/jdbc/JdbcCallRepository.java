package io.github.wheeltimer.durable.jdbc;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import io.github.wheeltimer.durable.StoredCall;
import io.github.wheeltimer.durable.storage.CallCount;
import io.github.wheeltimer.durable.storage.CallRepository;
import io.github.wheeltimer.durable.storage.ClaimedCall;
import io.github.wheeltimer.durable.storage.FailedCall;
import io.github.wheeltimer.durable.storage.Requeued;
import io.github.wheeltimer.durable.storage.UnreadableCalls;
import org.jspecify.annotations.Nullable;

/**
 * The calls' table on a JDBC database, in the SQL every supported database shares; what differs
 * is asked of the {@link DurableDialect}.
 * <p>
 * The statements are written by concern, each in a part of this repository that is read alone:
 * {@link CallerWrites} for what application code and operators change (a new call, a cancel, a
 * reschedule, a re-queue, a delete), {@link CallClaims} for which instance holds a call (the claim,
 * the hand-backs, the take-overs), {@link CallRuns} for a held call's run (its start gate and its
 * outcome), and {@link CallQueries} for what operators and monitoring read;
 * {@link ClaimAndGateStatements} writes the claim's and the gates' texts, {@link CallRows} reads
 * rows, and {@link CallTable} runs every statement alike. This class only routes the
 * {@link CallRepository} seam to them.
 * <p>
 * Statements that take part in the caller's work (the insert, the cancels, a finish inside a
 * delayed method's transaction, a re-queue) join a Spring transaction on the same
 * {@code DataSource} and never commit, roll back or close a connection borrowed from one. The claim
 * and the take-overs run in transactions of their own. Thread-safe: every statement is built once,
 * or from its arguments.
 */
public final class JdbcCallRepository implements CallRepository {

	private final CallTable table;

	private final CallQueries queries;

	private final CallerWrites writes;

	private final CallClaims claims;

	private final CallRuns runs;

	/**
	 * Creates the repository.
	 * @param dataSource the application's database
	 * @param dialect what differs on it
	 * @param tables the tables' names
	 * @param lease how long after its last heartbeat an instance counts as dead
	 */
	public JdbcCallRepository(DataSource dataSource, DurableDialect dialect, DurableTables tables, Duration lease) {
		this.table = new CallTable(dataSource, dialect, tables);
		CallRows rows = new CallRows(dialect, tables);
		this.queries = new CallQueries(this.table, rows);
		this.writes = new CallerWrites(this.table, rows, this.queries);
		this.claims = new CallClaims(this.table, rows, lease);
		this.runs = new CallRuns(this.table, rows, lease);
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
		return this.claims.claim(owner, until, methodIds, skipped, limit);
	}

	@Override
	public Gates start(Collection<UUID> ids, UUID owner) {
		return this.runs.start(ids, owner);
	}

	@Override
	public boolean handBack(UUID id, UUID owner) {
		return this.claims.handBack(id, owner);
	}

	@Override
	public boolean handBackAfterGate(UUID id, UUID owner, int attempt, @Nullable String shape) {
		return this.claims.handBackAfterGate(id, owner, attempt, shape);
	}

	@Override
	public int handBackAll(UUID owner, @Nullable Instant after, Collection<UUID> except) {
		return this.claims.handBackAll(owner, after, except);
	}

	@Override
	public void finish(Collection<UUID> ids) {
		this.runs.finish(ids);
	}

	@Override
	public boolean finish(UUID id, UUID owner, int attempt) {
		return this.runs.finish(id, owner, attempt);
	}

	@Override
	public boolean fail(UUID id, UUID owner, int attempt, String error) {
		return this.runs.fail(id, owner, attempt, error);
	}

	@Override
	public Retried retry(UUID owner, Retry retry) {
		return this.runs.retry(owner, retry);
	}

	@Override
	public List<Retried> retryAll(UUID owner, List<Retry> retries) {
		return this.runs.retryAll(owner, retries);
	}

	@Override
	public Share share(UUID owner, Instant after, Instant until, Collection<String> methodIds) {
		return this.claims.share(owner, after, until, methodIds);
	}

	@Override
	public Map<UUID, UUID> takeOverDeadOwners() {
		return this.claims.takeOverDeadOwners();
	}

	@Override
	public List<UUID> takeOverCallsOf(UUID owner) {
		return this.claims.takeOverCallsOf(owner);
	}

	@Override
	public List<UUID> claimedBy(UUID owner) {
		return this.claims.claimedBy(owner);
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

}
