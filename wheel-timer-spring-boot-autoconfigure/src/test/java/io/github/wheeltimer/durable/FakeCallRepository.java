package io.github.wheeltimer.durable;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Predicate;

import io.github.wheeltimer.durable.storage.CallCount;
import io.github.wheeltimer.durable.storage.CallRepository;
import io.github.wheeltimer.durable.storage.ClaimedCall;
import io.github.wheeltimer.durable.storage.FailedCall;
import io.github.wheeltimer.durable.storage.Requeued;
import io.github.wheeltimer.durable.storage.StoredText;
import io.github.wheeltimer.durable.storage.UnreadableCalls;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;

/**
 * The calls' table in memory, with the semantics of {@code JdbcCallRepository}'s statements, one
 * method per statement, each atomic under the lock it shares with its
 * {@link FakeInstanceRepository} (whose clock is the database's: the gate's and the take-over's
 * lease checks read it). Rows are kept in insertion order, which breaks ties between equal due
 * times in claims. No transactions: {@link #inTransaction()} is {@code false}, and row locks are
 * never held, so nothing is skipped.
 * <p>
 * Tests see the rows ({@link #row}, {@link #rows}), change them as another instance would
 * ({@link #setOwner}), count the statements and inject failures ({@link #statements()}).
 */
public final class FakeCallRepository implements CallRepository {

	static final String PENDING = "PENDING";

	static final String CLAIMED = "CLAIMED";

	static final String RUNNING = "RUNNING";

	static final String FAILED = "FAILED";

	private static final int ERROR_LENGTH = 4000;

	/** The shared lock, and the database's clock. */
	private final FakeInstanceRepository db;

	private final Duration lease;

	private final FakeStatements statements = new FakeStatements();

	/** Guarded by {@link #db}. */
	private final Map<UUID, Row> rows = new LinkedHashMap<>();

	/**
	 * @param instances the instances' table, whose lock and clock this table shares
	 * @param lease how long after its last heartbeat an instance counts as dead
	 */
	public FakeCallRepository(FakeInstanceRepository instances, Duration lease) {
		this.db = instances;
		this.lease = lease;
		instances.attach(this);
	}

	/** A row of the calls' table, as the columns hold it. Guarded by the lock. */
	private static final class Row {

		final UUID id;

		final String methodId;

		@Nullable String callKey;

		String arguments;

		Instant due;

		String state;

		@Nullable UUID owner;

		int attempts;

		int failures;

		int retries;

		@Nullable Instant retryingSince;

		@Nullable Instant finishedAt;

		@Nullable String lastError;

		@Nullable String traceParent;

		@Nullable String startedKey;

		String shape = "";

		Row(UUID id, String methodId, @Nullable String callKey, String arguments, Instant due, String state,
				@Nullable UUID owner, @Nullable String traceParent) {
			this.id = id;
			this.methodId = methodId;
			this.callKey = callKey;
			this.arguments = arguments;
			this.due = due;
			this.state = state;
			this.owner = owner;
			this.traceParent = traceParent;
		}

		boolean in(String... states) {
			return Set.of(states).contains(this.state);
		}

		void toPending() {
			this.state = PENDING;
			this.owner = null;
		}

		CallRow snapshot() {
			return new CallRow(this.id, this.methodId, this.callKey, this.arguments, this.due, this.state, this.owner,
					this.attempts, this.finishedAt, this.lastError, this.traceParent, this.startedKey);
		}

	}

	/** A row as a test reads it. */
	record CallRow(UUID id, String methodId, @Nullable String callKey, String arguments, Instant due, String state,
			@Nullable UUID owner, int attempts, @Nullable Instant finishedAt, @Nullable String lastError,
			@Nullable String traceParent, @Nullable String startedKey) {
	}

	/** @return the statements sent to this table, and the failures to inject into them */
	FakeStatements statements() {
		return this.statements;
	}

	/** @return the row with that id, or {@code null} if there is none */
	@Nullable CallRow row(UUID id) {
		synchronized (this.db) {
			Row row = this.rows.get(id);
			return (row != null) ? row.snapshot() : null;
		}
	}

	/** @return every row, in insertion order */
	List<CallRow> rows() {
		synchronized (this.db) {
			return this.rows.values().stream().map(Row::snapshot).toList();
		}
	}

	/** @return the rows in that state */
	List<CallRow> rows(String state) {
		return rows().stream().filter((row) -> row.state().equals(state)).toList();
	}

	/** Gives a claimed or running row to another owner, as a take-over and a claim elsewhere would. */
	void setOwner(UUID id, UUID owner) {
		synchronized (this.db) {
			Row row = Objects.requireNonNull(this.rows.get(id), () -> "no row " + id);
			row.owner = owner;
		}
	}

	/** The instances' view: how many rows an instance owns. Lock held by the caller. */
	long ownedByLocked(UUID owner) {
		return this.rows.values().stream().filter((row) -> owner.equals(row.owner)).count();
	}

	@Override
	public void insert(UUID id, String methodId, @Nullable String key, String arguments, Instant due,
			@Nullable UUID owner, @Nullable String traceParent, String shape) {
		this.statements.sent("insert");
		String state = (owner != null) ? CLAIMED : PENDING;
		synchronized (this.db) {
			Row replaced = (key != null) ? find((row) -> row.methodId.equals(methodId) && key.equals(row.callKey))
					: null;
			if (this.rows.containsKey(id) && this.rows.get(id) != replaced) {
				throw new DuplicateKeyException("A call with id " + id + " exists (fake)");
			}
			Row row = new Row(id, methodId, key, arguments, due, state, owner, traceParent);
			row.shape = shape;
			if (replaced != null) {
				// The upsert updates the row that holds the key: the columns a new call sets, and only those.
				this.rows.remove(replaced.id);
				row.startedKey = replaced.startedKey;
			}
			this.rows.put(id, row);
		}
	}

	@Override
	public boolean cancel(String methodId, String key) {
		this.statements.sent("cancelByKey");
		synchronized (this.db) {
			// Only pending and claimed rows have a call_key: a start moves it aside.
			return this.rows.values()
				.removeIf((row) -> row.in(PENDING, CLAIMED) && row.methodId.equals(methodId) && key.equals(row.callKey));
		}
	}

	@Override
	public boolean cancel(UUID id) {
		this.statements.sent("cancelById");
		synchronized (this.db) {
			Row row = this.rows.get(id);
			if (row != null && row.in(PENDING, CLAIMED)) {
				this.rows.remove(id);
				return true;
			}
			return false;
		}
	}

	@Override
	public List<ClaimedCall> claim(UUID owner, Instant until, Collection<String> methodIds,
			Collection<MethodShape> skipped, int limit) {
		this.statements.sent("claim");
		if (methodIds.isEmpty()) {
			return List.of();
		}
		synchronized (this.db) {
			// A stable sort: rows due at the same time go in insertion order.
			List<Row> due = this.rows.values()
				.stream()
				.filter((row) -> row.in(PENDING) && !row.due.isAfter(until) && methodIds.contains(row.methodId)
						&& !skipped.contains(new MethodShape(row.methodId, row.shape)))
				.sorted(Comparator.comparing((Row row) -> row.due))
				.limit(limit)
				.toList();
			List<ClaimedCall> claimed = new ArrayList<>(due.size());
			for (Row row : due) {
				row.state = CLAIMED;
				row.owner = owner;
				claimed.add(new ClaimedCall(row.id, row.methodId, row.callKey, row.startedKey, row.arguments, row.due, tries(row),
						row.traceParent, row.shape));
			}
			return claimed;
		}
	}

	/** No row is ever locked here: a call that does not pass is still claimed only if the lease lapsed. */
	@Override
	public Gates start(Collection<UUID> ids, UUID owner) {
		this.statements.sent("start");
		synchronized (this.db) {
			Set<UUID> passed = new LinkedHashSet<>();
			Set<UUID> waiting = new LinkedHashSet<>();
			boolean alive = this.db.isAliveLocked(owner, this.lease);
			for (UUID id : ids) {
				Row row = this.rows.get(id);
				if (row == null || !owner.equals(row.owner) || !row.in(CLAIMED)) {
					continue;
				}
				if (!alive) {
					waiting.add(id);
					continue;
				}
				row.state = RUNNING;
				row.attempts++;
				row.startedKey = (row.callKey != null) ? row.callKey : row.startedKey;
				row.callKey = null;
				passed.add(id);
			}
			return new Gates(passed, waiting);
		}
	}

	@Override
	public Share share(UUID owner, Instant after, Instant until, Collection<String> methodIds) {
		this.statements.sent("share");
		synchronized (this.db) {
			List<Row> window = this.rows.values()
				.stream()
				.filter((row) -> row.in(PENDING, CLAIMED) && row.due.isAfter(after) && !row.due.isAfter(until)
						&& methodIds.contains(row.methodId))
				.toList();
			return new Share(window.size(), window.stream().filter((row) -> owner.equals(row.owner)).count());
		}
	}

	@Override
	public boolean handBack(UUID id, UUID owner) {
		this.statements.sent("handBack");
		synchronized (this.db) {
			Row row = this.rows.get(id);
			if (row == null || !owner.equals(row.owner) || !row.in(CLAIMED)) {
				return false;
			}
			row.toPending();
			return true;
		}
	}

	@Override
	public boolean handBackAfterGate(UUID id, UUID owner, int attempt, @Nullable String shape) {
		this.statements.sent("handBackAfterGate");
		synchronized (this.db) {
			Row row = this.rows.get(id);
			if (row == null || !owner.equals(row.owner)
					|| !(row.in(CLAIMED) || (row.in(RUNNING) && row.attempts == attempt))) {
				return false;
			}
			if (row.in(RUNNING)) {
				row.attempts--;
				String key = row.startedKey;
				boolean taken = key != null && this.rows.values()
					.stream()
					.anyMatch((other) -> other != row && other.methodId.equals(row.methodId) && key.equals(other.callKey));
				if (!taken) {
					row.callKey = key;
					row.startedKey = null;
				}
			}
			if (shape != null) {
				row.shape = shape;
			}
			row.toPending();
			return true;
		}
	}

	@Override
	public int handBackAll(UUID owner, @Nullable Instant after, Collection<UUID> except) {
		this.statements.sent("handBackAll");
		synchronized (this.db) {
			int count = 0;
			for (Row row : this.rows.values()) {
				if (owner.equals(row.owner) && row.in(CLAIMED) && (after == null || row.due.isAfter(after))
						&& !except.contains(row.id)) {
					row.toPending();
					count++;
				}
			}
			return count;
		}
	}

	@Override
	public void finish(Collection<UUID> ids) {
		this.statements.sent("finish");
		synchronized (this.db) {
			ids.forEach(this.rows::remove);
		}
	}

	@Override
	public boolean finish(UUID id, UUID owner, int attempt) {
		this.statements.sent("finishOwned");
		synchronized (this.db) {
			Row row = this.rows.get(id);
			if (row == null || !owner.equals(row.owner) || !row.in(RUNNING) || row.attempts != attempt) {
				return false;
			}
			this.rows.remove(id);
			return true;
		}
	}

	@Override
	public boolean fail(UUID id, UUID owner, int attempt, String error) {
		this.statements.sent("fail");
		synchronized (this.db) {
			Row row = this.rows.get(id);
			if (row == null || !owner.equals(row.owner) || !row.in(RUNNING) || row.attempts != attempt) {
				return false;
			}
			row.state = FAILED;
			row.owner = null;
			row.failures++;
			row.finishedAt = this.db.now();
			row.lastError = StoredText.of(error, ERROR_LENGTH);
			return true;
		}
	}

	@Override
	public List<Retried> retryAll(UUID owner, List<Retry> retries) {
		this.statements.sent("retryAll");
		synchronized (this.db) {
			return retries.stream()
				.map((retry) -> retryLocked(owner, retry))
				.toList();
		}
	}

	@Override
	public Retried retry(UUID owner, Retry retry) {
		this.statements.sent("retry");
		synchronized (this.db) {
			return retryLocked(owner, retry);
		}
	}

	/** Lock held. */
	private Retried retryLocked(UUID owner, Retry retry) {
		UUID holder = retry.holder();
		int attempt = retry.attempt();
		Tries after = retry.after();
		Row row = this.rows.get(retry.id());
		String waiting = (holder != null) ? CLAIMED : PENDING;
		boolean running = row != null && owner.equals(row.owner) && row.in(RUNNING) && row.attempts == attempt;
		boolean written = row != null && Objects.equals(holder, row.owner) && row.in(waiting)
				&& row.attempts == attempt && row.retries == after.retries();
		if (!running && !written) {
			return Retried.LOST;
		}
		String key = (row.startedKey != null) ? row.startedKey : row.callKey;
		boolean keyBack = key == null || find((other) -> other != row && other.methodId.equals(row.methodId)
				&& key.equals(other.callKey)) == null;
		if (keyBack) {
			row.callKey = key;
			row.startedKey = null;
		}
		row.due = retry.due();
		row.failures = after.failures();
		row.retries = after.retries();
		row.retryingSince = after.retryingSince();
		row.finishedAt = this.db.now();
		row.lastError = StoredText.of(retry.error(), ERROR_LENGTH);
		row.owner = holder;
		row.state = waiting;
		return keyBack ? Retried.WITH_KEY : Retried.WITHOUT_KEY;
	}

	@Override
	public Map<UUID, UUID> takeOverDeadOwners() {
		this.statements.sent("takeOverDeadOwners");
		synchronized (this.db) {
			Map<UUID, UUID> released = new LinkedHashMap<>();
			for (Row row : this.rows.values()) {
				// owner_id NOT IN (the live instances): a claimed or running row always has an owner.
				if (row.in(CLAIMED, RUNNING) && row.owner != null && !this.db.isAliveLocked(row.owner, this.lease)) {
					released.put(row.id, row.owner);
					row.toPending();
				}
			}
			return released;
		}
	}

	@Override
	public List<UUID> takeOverCallsOf(UUID owner) {
		this.statements.sent("takeOverCallsOf");
		synchronized (this.db) {
			List<UUID> released = new ArrayList<>();
			for (Row row : this.rows.values()) {
				if (row.in(CLAIMED, RUNNING) && owner.equals(row.owner)) {
					row.toPending();
					released.add(row.id);
				}
			}
			return released;
		}
	}

	@Override
	public List<UUID> claimedBy(UUID owner) {
		this.statements.sent("claimedBy");
		synchronized (this.db) {
			return this.rows.values().stream().filter((row) -> row.in(CLAIMED) && owner.equals(row.owner))
				.map((row) -> row.id).toList();
		}
	}

	@Override
	public int deleteFailedBefore(Duration retention) {
		this.statements.sent("deleteFailedBefore");
		synchronized (this.db) {
			Instant before = this.db.now().minus(retention);
			int count = this.rows.size();
			this.rows.values()
				.removeIf((row) -> row.in(FAILED) && row.finishedAt != null && row.finishedAt.isBefore(before));
			return count - this.rows.size();
		}
	}

	@Override
	public List<CallCount> countByState() {
		this.statements.sent("countByState");
		synchronized (this.db) {
			return count(this.rows.values(), (row) -> row.state);
		}
	}

	@Override
	public List<CallCount> pendingOfUnknownMethods(Collection<String> known) {
		this.statements.sent("pendingOfUnknownMethods");
		synchronized (this.db) {
			return count(this.rows.values()
				.stream()
				.filter((row) -> row.in(PENDING) && !known.contains(row.methodId))
				.toList(), (row) -> row.methodId);
		}
	}

	@Override
	public List<UnreadableCalls> pendingOfShapes(Collection<MethodShape> shapes) {
		this.statements.sent("pendingOfShapes");
		synchronized (this.db) {
			return shapes.stream().map((pair) -> {
				List<Row> rows = this.rows.values()
					.stream()
					.filter((row) -> row.in(PENDING) && row.methodId.equals(pair.methodId())
							&& row.shape.equals(pair.shape()))
					.toList();
				return new UnreadableCalls(pair.methodId(), pair.shape(), rows.size(),
						rows.stream().map((row) -> row.due).min(Comparator.naturalOrder()).orElse(null));
			}).filter((calls) -> calls.count() > 0).toList();
		}
	}

	@Override
	public List<FailedCall> failed(@Nullable String methodId, int limit) {
		this.statements.sent("failed");
		synchronized (this.db) {
			return failedRows(methodId).stream()
				.limit(limit)
				.map((row) -> new FailedCall(row.id, row.methodId, row.startedKey, row.attempts, row.finishedAt,
						row.lastError))
				.toList();
		}
	}

	@Override
	public long countFailed(@Nullable String methodId) {
		this.statements.sent("countFailed");
		synchronized (this.db) {
			return failedRows(methodId).size();
		}
	}

	@Override
	public Requeued requeueFailed(@Nullable String methodId, Instant due) {
		this.statements.sent("requeueFailed");
		synchronized (this.db) {
			int requeued = 0;
			List<FailedCall> keyHeld = new ArrayList<>();
			for (Row row : failedRows(methodId)) {
				if (row.startedKey == null) {
					requeue(row, due);
					requeued++;
				}
			}
			// Newest first, so that of several failed calls with one key the newest gets it back.
			for (Row row : failedRows(methodId)) {
				String key = row.startedKey;
				if (key == null) {
					continue;
				}
				if (find((held) -> held.methodId.equals(row.methodId) && key.equals(held.callKey)) == null) {
					requeue(row, due);
					row.callKey = key;
					row.startedKey = null;
					requeued++;
				}
				else {
					keyHeld.add(new FailedCall(row.id, row.methodId, key, 0, null, null));
				}
			}
			return new Requeued(requeued, keyHeld);
		}
	}

	@Override
	public @Nullable StoredCall find(UUID id) {
		this.statements.sent("find");
		synchronized (this.db) {
			Row row = this.rows.get(id);
			return (row != null) ? stored(row) : null;
		}
	}

	@Override
	public @Nullable StoredCall findWaiting(String methodId, String key) {
		this.statements.sent("findWaiting");
		synchronized (this.db) {
			Row row = find((held) -> held.methodId.equals(methodId) && key.equals(held.callKey));
			return (row != null) ? stored(row) : null;
		}
	}

	@Override
	public List<StoredCall> list(Filter filter, int offset, int limit) {
		this.statements.sent("list");
		synchronized (this.db) {
			Comparator<Row> order = (filter.state() == CallState.FAILED)
					? Comparator.comparing((Row row) -> row.finishedAt, Comparator.nullsLast(Comparator.reverseOrder()))
					: Comparator.comparing((Row row) -> row.due);
			return matching(filter).stream()
				.sorted(order.thenComparing((row) -> row.id))
				.skip(offset)
				.limit(limit)
				.map(this::stored)
				.toList();
		}
	}

	@Override
	public long count(Filter filter) {
		this.statements.sent("count");
		synchronized (this.db) {
			return matching(filter).size();
		}
	}

	private List<Row> matching(Filter filter) {
		return this.rows.values()
			.stream()
			.filter((row) -> filter.methodId() == null || filter.methodId().equals(row.methodId))
			.filter((row) -> filter.key() == null || filter.key().equals(row.callKey)
					|| filter.key().equals(row.startedKey))
			.filter((row) -> filter.state() == null || filter.state().name().equals(row.state))
			.toList();
	}

	private static Tries tries(Row row) {
		return new Tries(row.attempts, row.failures, row.retries, row.retryingSince);
	}

	private StoredCall stored(Row row) {
		return new StoredCall(row.id, row.methodId, (row.callKey != null) ? row.callKey : row.startedKey,
				CallState.valueOf(row.state), row.due, tries(row), row.owner, null, row.traceParent, null,
				row.finishedAt, row.lastError, row.arguments, row.shape);
	}

	@Override
	public List<MethodCount> countByMethod() {
		this.statements.sent("countByMethod");
		synchronized (this.db) {
			Map<String, Map<String, Long>> counts = new TreeMap<>();
			this.rows.values()
				.forEach((row) -> counts.computeIfAbsent(row.methodId, (id) -> new TreeMap<>())
					.merge(row.state, 1L, Long::sum));
			List<MethodCount> all = new ArrayList<>();
			counts.forEach((method, states) -> states
				.forEach((state, count) -> all.add(new MethodCount(method, CallState.valueOf(state), count))));
			return all;
		}
	}

	@Override
	public boolean reschedule(UUID id, UUID newId, Instant due, @Nullable UUID owner) {
		this.statements.sent("reschedule");
		synchronized (this.db) {
			Row row = this.rows.get(id);
			if (row == null || !row.in(PENDING, CLAIMED)) {
				return false;
			}
			Row moved = new Row(newId, row.methodId, row.callKey, row.arguments, due, (owner != null) ? CLAIMED : PENDING,
					owner, row.traceParent);
			moved.attempts = row.attempts;
			this.rows.remove(id);
			this.rows.put(newId, moved);
			return true;
		}
	}

	@Override
	public Requeue requeue(UUID id, Instant due, @Nullable UUID owner) {
		this.statements.sent("requeue");
		synchronized (this.db) {
			Row row = this.rows.get(id);
			if (row == null || !row.in(FAILED)) {
				return Requeue.NOT_FAILED;
			}
			String key = row.startedKey;
			if (key != null && find((held) -> held.methodId.equals(row.methodId) && key.equals(held.callKey)) != null) {
				return Requeue.KEY_HELD;
			}
			requeue(row, due);
			row.callKey = key;
			row.startedKey = null;
			if (owner != null) {
				row.state = CLAIMED;
				row.owner = owner;
			}
			return Requeue.REQUEUED;
		}
	}

	@Override
	public boolean deleteFailed(UUID id) {
		this.statements.sent("deleteFailed");
		synchronized (this.db) {
			Row row = this.rows.get(id);
			return row != null && row.in(FAILED) && this.rows.remove(id) != null;
		}
	}

	@Override
	public int deleteCallsOf(String methodId) {
		this.statements.sent("deleteCallsOf");
		synchronized (this.db) {
			int count = this.rows.size();
			this.rows.values().removeIf((row) -> row.methodId.equals(methodId) && row.in(PENDING, CLAIMED, FAILED));
			return count - this.rows.size();
		}
	}

	@Override
	public boolean inTransaction() {
		return false;
	}

	private static void requeue(Row row, Instant due) {
		row.state = PENDING;
		row.due = due;
		row.retries = 0;
		row.retryingSince = null;
		row.finishedAt = null;
		row.lastError = null;
	}

	/** Lock held. */
	private @Nullable Row find(Predicate<Row> which) {
		return this.rows.values().stream().filter(which).findFirst().orElse(null);
	}

	/** Failed rows, newest first. Lock held. */
	private List<Row> failedRows(@Nullable String methodId) {
		return this.rows.values()
			.stream()
			.filter((row) -> row.in(FAILED) && (methodId == null || methodId.equals(row.methodId)))
			.sorted(Comparator.comparing((Row row) -> row.finishedAt,
					Comparator.nullsLast(Comparator.<Instant>naturalOrder()))
				.reversed())
			.toList();
	}

	/** {@code SELECT name, COUNT(*), MIN(due_at) ... GROUP BY name ORDER BY name}. */
	private static List<CallCount> count(Collection<Row> rows, Function<Row, String> name) {
		Map<String, List<Row>> groups = new TreeMap<>();
		rows.forEach((row) -> groups.computeIfAbsent(name.apply(row), (group) -> new ArrayList<>()).add(row));
		List<CallCount> counts = new ArrayList<>();
		groups.forEach((group, members) -> counts.add(new CallCount(group, members.size(),
				members.stream().map((row) -> row.due).min(Comparator.naturalOrder()).orElse(null))));
		return counts;
	}

}
