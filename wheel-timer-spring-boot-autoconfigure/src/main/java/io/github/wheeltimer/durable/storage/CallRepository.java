package io.github.wheeltimer.durable.storage;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import io.github.wheeltimer.durable.CallState;
import io.github.wheeltimer.durable.StoredCall;
import io.github.wheeltimer.durable.Tries;
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

	/** The most ids one statement of a batch names: every database's limit of parameters allows it. */
	int BATCH_LENGTH = 1000;

	/**
	 * Writes a new call, in the caller's transaction if it has one; with a key, replaces the
	 * pending call of that method and key (the new id makes a wheel that still holds the old one
	 * find it gone at its gate).
	 * @param owner the instance that holds it from birth, or {@code null} to leave it pending
	 * @param traceParent the caller's span as a W3C {@code traceparent}, or {@code null}
	 * @param shape the argument shape of the writing version, which the row keeps
	 */
	void insert(UUID id, String methodId, @Nullable String key, String arguments, Instant due, @Nullable UUID owner,
			@Nullable String traceParent, String shape);

	/** @return whether a pending or claimed call of that method and key was deleted */
	boolean cancel(String methodId, String key);

	/** @return whether the call was pending or claimed, and is now gone */
	boolean cancel(UUID id);

	/**
	 * Claims pending calls due up to {@code until} of the given methods, earliest first, skipping
	 * rows another instance is claiming at the same moment.
	 * @param skipped calls of these methods written with these argument shapes stay pending: another
	 * live version wrote them, or this instance cannot read them
	 * @return the claimed calls, at most {@code limit}
	 */
	List<ClaimedCall> claim(UUID owner, Instant until, Collection<String> methodIds, Collection<MethodShape> skipped,
			int limit);

	/**
	 * A durable method's calls of one argument shape: those a version of the application wrote.
	 *
	 * @param methodId the method's id
	 * @param shape the shape of the version that wrote them, empty for calls written before the
	 * tables recorded shapes
	 */
	record MethodShape(String methodId, String shape) {
	}

	/**
	 * The start gates of the calls that fell due together on this instance, in as few round trips
	 * as the database allows: moves each claimed call to running, at its next attempt, only if
	 * {@code owner} still holds it and its heartbeat is within the lease by the store's clock. The
	 * fence against a falsely declared dead owner and the cross-instance cancel, for each row alone.
	 * A row another transaction holds locked (a caller replacing or cancelling that call, not
	 * committed yet) is skipped, not waited for: one open transaction never holds up the others'
	 * gates.
	 * @param ids distinct ids, at most {@link #BATCH_LENGTH}
	 * @return the calls that may run, and those still claimed by {@code owner} that did not pass:
	 * their row was locked, or the owner's lease has lapsed; a later gate may pass them
	 */
	Gates start(Collection<UUID> ids, UUID owner);

	/**
	 * What a batch of start gates decided; the ids in neither set are no longer the owner's.
	 *
	 * @param passed the calls that may run, now running at their next attempt
	 * @param waiting the calls still claimed by the owner that did not pass
	 */
	record Gates(Set<UUID> passed, Set<UUID> waiting) {
	}

	/**
	 * The start gate of one call: {@link #start(Collection, UUID)} for one id.
	 * @return whether the call may run
	 */
	default boolean start(UUID id, UUID owner) {
		return start(List.of(id), owner).passed().contains(id);
	}

	/**
	 * Hands back a call {@code owner} claimed and has not started: pending again, for any instance.
	 * @return whether the call was claimed by {@code owner} and is pending again
	 */
	boolean handBack(UUID id, UUID owner);

	/**
	 * Hands back a call that did not run here: claimed, or running at {@code attempt} if its gate
	 * passed (its answer was lost, or its executor refused it); that attempt is then taken back.
	 * @return whether the call was {@code owner}'s and is pending again
	 */
	default boolean handBackAfterGate(UUID id, UUID owner, int attempt) {
		return handBackAfterGate(id, owner, attempt, null);
	}

	/**
	 * Hands back a call as {@link #handBackAfterGate(UUID, UUID, int)} does, recording in its row the
	 * argument shape it is to be known by from now on: a call this instance could not read whose
	 * row named no shape (an older starter wrote it) is recorded as {@link #UNREAD}, so that
	 * instances leave it by that name rather than every call older starters wrote.
	 * @param shape the shape to record, or {@code null} to keep the row's
	 * @return whether the call was {@code owner}'s and is pending again
	 */
	boolean handBackAfterGate(UUID id, UUID owner, int attempt, @Nullable String shape);

	/**
	 * The shape recorded for a call that names no shape it can be read by: written by a starter
	 * that records none (or whose arguments it replaced without one), and found unreadable by an
	 * instance. Not hexadecimal, so no version's shape.
	 */
	String UNREAD = "unread";

	/**
	 * Hands back the calls {@code owner} claimed and has not started.
	 * @param after only those due after this, or {@code null} for all
	 * @param except calls to leave claimed: they fired, and start soon
	 * @return how many went back
	 */
	int handBackAll(UUID owner, @Nullable Instant after, Collection<UUID> except);

	/**
	 * The calls ran: their rows go, in one statement, whoever holds them now (a retried finish must
	 * stop a re-run).
	 * @param ids at most {@link #BATCH_LENGTH}
	 */
	void finish(Collection<UUID> ids);

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
	 * Ends a failed attempt that {@code @Retryable} tries again, in the statement that would have
	 * failed it, only if it is still {@code owner}'s running call at {@code attempt}: the row waits
	 * again for its next due time, its failure and retry counted, the error kept, and its key back
	 * (unless a new call took the key while it ran: then it waits without it, as a call that
	 * started before the new one was made).
	 * @param owner the instance whose attempt it was
	 * @param retry the retry
	 * @return whether it was (or the row is as this leaves it: the statement passed before, its
	 * answer lost), and whether the row holds its key again
	 */
	Retried retry(UUID owner, Retry retry);

	/**
	 * Ends failed attempts that {@code @Retryable} tries again, as {@link #retry} does, in one
	 * round trip: a batch of its statements, in a transaction of its own.
	 * @param owner the instance whose attempts they were
	 * @param retries at most {@link #BATCH_LENGTH}
	 * @return what each did, in their order: {@link Retried#LOST} only where the database said so
	 * (a driver that does not count a batch's rows says nothing, and a retry held for a row taken
	 * over is fenced by its gate)
	 */
	List<Retried> retryAll(UUID owner, List<Retry> retries);

	/**
	 * A failed attempt's retry, as {@link #retry} writes it.
	 *
	 * @param id the call's id
	 * @param attempt the attempt that failed
	 * @param due when the retry is due
	 * @param holder the instance that holds the retry on its wheel (claimed), or {@code null} to
	 * leave it pending for any instance
	 * @param after the row's history from now on: this attempt's start and failure counted, the
	 * retry counted, and when the round's first attempt started
	 * @param error why the attempt failed
	 */
	record Retry(UUID id, int attempt, Instant due, @Nullable UUID holder, Tries after, String error) {

		/** @return the same retry with another error, such as one the database accepts */
		public Retry withError(String error) {
			return new Retry(this.id, this.attempt, this.due, this.holder, this.after, error);
		}

	}

	/** What {@link #retry} did. */
	enum Retried {

		/** The row was no longer the attempt's: taken over while it ran. */
		LOST,

		/** The row waits for its retry, holding its key (or made without one). */
		WITH_KEY,

		/** The row waits for its retry without its key: a new call took the key while it ran. */
		WITHOUT_KEY

	}

	/**
	 * Counts the calls of {@code methodIds} due after {@code after} and up to {@code until} that
	 * are pending or claimed: what the live instances share.
	 * @return how many, and how many of them {@code owner} claimed
	 */
	Share share(UUID owner, Instant after, Instant until, Collection<String> methodIds);

	/**
	 * The calls due within a window that instances share.
	 *
	 * @param total the pending and claimed calls in the window
	 * @param mine those the asking instance claimed
	 */
	record Share(long total, long mine) {
	}

	/**
	 * Puts back to pending the claimed and running calls of instances whose heartbeat is older
	 * than the lease; running ones then run again (at least once). Rows locked by an open
	 * transaction are skipped, not waited for.
	 * @return the ids of the calls put back, each with the instance that held it: what a late
	 * call's log line says it waited for
	 */
	Map<UUID, UUID> takeOverDeadOwners();

	/**
	 * Puts back to pending every claimed and running call of one instance known to be gone.
	 * @return the ids of the calls put back
	 */
	List<UUID> takeOverCallsOf(UUID owner);

	/**
	 * The calls {@code owner} has claimed and not started, through the owner index: what a live
	 * instance compares with what it holds, after a failure that may have lost a claim's answer.
	 * @return their ids
	 */
	List<UUID> claimedBy(UUID owner);

	/** @return how many failed calls older than {@code retention} were deleted */
	int deleteFailedBefore(Duration retention);

	/** @return the calls per state, with the earliest due time of each */
	List<CallCount> countByState();

	/** @return the pending calls per method id that is not in {@code known} */
	List<CallCount> pendingOfUnknownMethods(Collection<String> known);

	/** @return the pending calls of each of these methods and shapes that has some */
	List<UnreadableCalls> pendingOfShapes(Collection<MethodShape> shapes);

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

	/** @return the call with that id, in any state, or {@code null} */
	@Nullable StoredCall find(UUID id);

	/** @return the waiting (pending or claimed) call of that method and key, or {@code null} */
	@Nullable StoredCall findWaiting(String methodId, String key);

	/**
	 * Reads a page of calls: waiting and running ones by due time, failed ones newest first.
	 * @param offset how many matching calls to skip
	 * @param limit how many to read at most
	 */
	List<StoredCall> list(Filter filter, int offset, int limit);

	/** @return how many calls {@link #list} could read */
	long count(Filter filter);

	/**
	 * Which calls to read; a {@code null} component matches every call.
	 *
	 * @param methodId only this method's
	 * @param key only those made with this key: the waiting call that holds it, and running or
	 * failed ones made with it; of every method when {@code methodId} is {@code null}
	 * @param state only those in this state
	 */
	record Filter(@Nullable String methodId, @Nullable String key, @Nullable CallState state) {
	}

	/** @return the calls per method id and state */
	List<MethodCount> countByMethod();

	/**
	 * Calls of one method in one state, for operators.
	 *
	 * @param methodId the method's durable id
	 * @param state the state
	 * @param count how many
	 */
	record MethodCount(String methodId, CallState state, long count) {
	}

	/**
	 * Reschedules a waiting call: a new due time, under a new id, in the caller's transaction if it has
	 * one: an instance whose wheel holds the old id finds it gone at its gate, as after a replace.
	 * Its key, arguments and trace stay.
	 * @param owner the instance that holds it from now on (claimed), or {@code null} to leave it
	 * pending for any instance
	 * @return whether the call was waiting, and is moved
	 */
	boolean reschedule(UUID id, UUID newId, Instant due, @Nullable UUID owner);

	/**
	 * Puts one failed call back to waiting, due at {@code due}, as if new, in the caller's
	 * transaction if it has one; it gets its key back, unless a waiting call holds it now.
	 * @param owner the instance that holds it from now on (claimed), or {@code null} to leave it
	 * pending for any instance
	 * @return what happened
	 */
	Requeue requeue(UUID id, Instant due, @Nullable UUID owner);

	/** What a re-queue of one failed call did. */
	enum Requeue {

		/** It waits again. */
		REQUEUED,

		/** It stays failed: a waiting call of its method holds its key. */
		KEY_HELD,

		/** It was not failed (or not there). */
		NOT_FAILED

	}

	/** @return whether the call was failed, and is now gone */
	boolean deleteFailed(UUID id);

	/**
	 * Deletes the waiting and failed calls of one method id, in the caller's transaction if it has
	 * one; running ones stay.
	 * @return how many
	 */
	int deleteCallsOf(String methodId);

	/**
	 * Whether the current thread runs in a Spring transaction, with synchronization active, that
	 * this repository's statements join: what decides whether a change in memory waits for its
	 * commit (the engine then registers a {@code TransactionSynchronization}).
	 * @return {@code true} inside such a transaction
	 */
	boolean inTransaction();

}
