package io.github.wheeltimer.durable;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * Where durable calls are kept: one row per call, which moves {@code PENDING -> CLAIMED ->
 * RUNNING -> gone}, or to {@code FAILED}. The engine decides nothing between instances itself:
 * every race (two claims, a gate against a cancel or a take-over) is decided by one statement
 * here. Due times are the application's clock; lease decisions are the store's own clock, so
 * that instances' clocks never have to agree.
 * <p>
 * {@link io.github.wheeltimer.durable.jdbc.JdbcCallRepository} is the implementation; a database
 * is added with a {@link io.github.wheeltimer.durable.jdbc.DurableDialect}, not here. Thread-safe.
 */
public interface CallRepository {

	/** The longest method id every implementation stores, in UTF-16 units. */
	int METHOD_ID_LENGTH = 200;

	/** The longest key every implementation stores, in UTF-16 units, without NUL. */
	int KEY_LENGTH = 500;

	/** The longest instance name every implementation stores, in UTF-16 units. */
	int NAME_LENGTH = 200;

	/**
	 * Writes a new call, in the caller's transaction if it has one; with a key, replaces the
	 * pending call of that method and key (the new id makes a wheel that still holds the old one
	 * find it gone at its gate).
	 * @param owner the instance that holds it from birth, or {@code null} to leave it pending
	 * @param traceParent the caller's span as a W3C {@code traceparent}, or {@code null}
	 */
	void insert(UUID id, String methodId, @Nullable String key, String arguments, Instant due, @Nullable UUID owner,
			@Nullable String traceParent);

	/** @return whether a pending or claimed call of that method and key was deleted */
	boolean cancel(String methodId, String key);

	/** @return whether the call was pending or claimed, and is now gone */
	boolean cancel(UUID id);

	/**
	 * Claims pending calls due up to {@code until} of the given methods, earliest first, skipping
	 * rows another instance is claiming at the same moment.
	 * @return the claimed calls, at most {@code limit}
	 */
	List<ClaimedCall> claim(UUID owner, Instant until, Collection<String> methodIds, int limit);

	/**
	 * The start gate: moves a claimed call to running only if {@code owner} still holds it and its
	 * heartbeat is within the lease by the store's clock. The fence against a falsely declared dead
	 * owner and the cross-instance cancel in one statement.
	 * @return whether the call may run
	 */
	boolean start(UUID id, UUID owner);

	/** @return whether the call was claimed by {@code owner} and is pending again */
	boolean release(UUID id, UUID owner);

	/**
	 * Hands back a call whose start gate failed: claimed, or running at {@code attempt} if the
	 * gate passed and its answer was lost.
	 * @return whether the call was {@code owner}'s and is pending again
	 */
	boolean releaseAfterGate(UUID id, UUID owner, int attempt);

	/**
	 * Hands back the calls {@code owner} claimed and has not started.
	 * @param after only those due after this, or {@code null} for all
	 * @param except calls to leave claimed: they fired, and start soon
	 * @return how many went back
	 */
	int releaseAll(UUID owner, @Nullable Instant after, Collection<UUID> except);

	/** The call ran: its row goes, whoever holds it now (a retried finish must stop a re-run). */
	void finish(UUID id);

	/**
	 * The call ran inside its method's own transaction, which this joins: its row goes only if it
	 * is still {@code owner}'s running call at {@code attempt}.
	 * @return whether it was; if not, that transaction must roll back
	 */
	boolean finish(UUID id, UUID owner, int attempt);

	/**
	 * Keeps the call as failed, with why, only if it is still {@code owner}'s running call at
	 * {@code attempt}. Its key stays aside, for a re-queue to give back.
	 * @return whether it was
	 */
	boolean fail(UUID id, UUID owner, int attempt, String error);

	/**
	 * Puts back to pending the claimed and running calls of instances whose heartbeat is older
	 * than the lease; running ones then run again (at least once). Rows locked by an open
	 * transaction are skipped, not waited for.
	 * @return how many
	 */
	int releaseDeadOwners();

	/**
	 * Puts back to pending every claimed and running call of one instance known to be gone.
	 * @return how many
	 */
	int releaseCallsOf(UUID owner);

	/** @return how many failed calls older than {@code retention} were deleted */
	int deleteFailedBefore(Duration retention);

	/** @return the calls per state, with the earliest due time of each */
	List<CallCount> countByState();

	/** @return the pending calls per method id that is not in {@code known} */
	List<CallCount> pendingOfUnknownMethods(Collection<String> known);

	/** @return the newest failed calls, of one method id or of all ({@code null}) */
	List<FailedCall> failed(@Nullable String methodId, int limit);

	/** @return how many failed calls there are, of one method id or of all ({@code null}) */
	long countFailed(@Nullable String methodId);

	/**
	 * Puts failed calls back to pending, due at {@code due}, as if new; a call gets its key back
	 * unless a pending call holds it now, and then stays failed.
	 * @return what was re-queued
	 */
	Requeued requeueFailed(@Nullable String methodId, Instant due);

	/**
	 * Whether the current thread runs in a Spring transaction, with synchronization active, that
	 * this repository's statements join: what decides whether a change in memory waits for its
	 * commit (the engine then registers a {@code TransactionSynchronization}).
	 * @return {@code true} inside such a transaction
	 */
	boolean inTransaction();

}
