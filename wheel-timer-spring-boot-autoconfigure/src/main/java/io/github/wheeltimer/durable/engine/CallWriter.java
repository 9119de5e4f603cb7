package io.github.wheeltimer.durable.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

import io.github.wheeltimer.annotation.DelayedCallOutcome;
import io.github.wheeltimer.durable.CallState;
import io.github.wheeltimer.durable.StoredCall;
import io.github.wheeltimer.durable.Tries;
import io.github.wheeltimer.durable.arguments.DurableMethod;
import io.github.wheeltimer.durable.arguments.DurableMethods;
import io.github.wheeltimer.durable.cooperation.ArgumentShapes;
import io.github.wheeltimer.durable.run.CallCounters;
import io.github.wheeltimer.durable.run.DurableClock;
import io.github.wheeltimer.durable.run.DurableResult;
import io.github.wheeltimer.durable.run.HeldCall;
import io.github.wheeltimer.durable.run.HeldCalls;
import io.github.wheeltimer.durable.run.RunPipeline;
import io.github.wheeltimer.durable.storage.CallIds;
import io.github.wheeltimer.durable.storage.CallRepository;
import io.github.wheeltimer.durable.storage.DatabaseFailure;
import io.github.wheeltimer.durable.storage.InstanceStatus;
import io.github.wheeltimer.durable.storage.Requeued;
import io.github.wheeltimer.durable.storage.RowWrites;
import io.github.wheeltimer.durable.storage.Transactions;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.transaction.support.TransactionSynchronization;

/**
 * The callers' side of durable calls: writes a call (replacing the pending call of its key),
 * cancels by key or through a caller's future, re-queues failed calls, and keeps this instance's
 * wheels in step with the caller's transaction.
 * <p>
 * Threads: callers' threads only. The row is written first, in the caller's transaction if it
 * has one on the same database; what changes in memory (a call held here, a replaced or
 * cancelled one taken off its wheel, the cancel's count) waits for that transaction's commit, so
 * that a rollback leaves memory as it was. A call is counted scheduled once its statement passed. A key's held call is read before the statement: only the
 * call that statement replaced or cancelled leaves the wheel, never one made after it.
 */
public final class CallWriter {

	private static final Log logger = LogFactory.getLog(CallWriter.class);

	private final CallRepository calls;

	private final DurableMethods methods;

	private final ArgumentShapes shapes;

	private final HeldCalls held;

	private final RunPipeline pipeline;

	private final RowWrites writes;

	private final CallCounters counters;

	private final DurableClock clock;

	private final UUID instance;

	/** This instance's name, which a call it claims for a caller shows. */
	private final String instanceName;

	private final Duration horizon;

	/** Whether this instance takes calls on its wheels: after its start, until its stop. */
	private final BooleanSupplier running;

	/**
	 * Told when a write that claims a call for this instance failed as the connection dropped: the
	 * database may have committed it, and then owns a row that no wheel here holds and no other
	 * instance takes over while this one lives.
	 */
	private final Runnable claimsInDoubt;

	CallWriter(CallRepository calls, DurableMethods methods, ArgumentShapes shapes, HeldCalls held,
			RunPipeline pipeline, RowWrites writes, CallCounters counters, DurableClock clock, UUID instance,
			String instanceName, Duration horizon, BooleanSupplier running, Runnable claimsInDoubt) {
		this.calls = calls;
		this.methods = methods;
		this.shapes = shapes;
		this.held = held;
		this.pipeline = pipeline;
		this.writes = writes;
		this.counters = counters;
		this.clock = clock;
		this.instance = instance;
		this.instanceName = instanceName;
		this.horizon = horizon;
		this.running = running;
		this.claimsInDoubt = claimsInDoubt;
	}

	/**
	 * Writes a call. Once this instance has stopped, a call (made by a delayed method still
	 * running, say) is written pending, for another instance or the next start: accepted as long
	 * as the database accepts it.
	 * @return {@code null} for a {@code void} method, else the caller's future
	 */
	@Nullable Object schedule(DurableMethod method, @Nullable Object[] values) {
		String key = method.keyOf(values);
		String arguments = method.arguments().write(values);
		UUID id = CallIds.next();
		UUID replaced = (key != null) ? this.held.heldWith(method.id(), key) : null;
		Duration delay = method.method().delay();
		Instant due = DurableClock.wholeMicros(this.clock.now().plus(delay));
		boolean near = this.running.getAsBoolean() && delay.compareTo(this.horizon) <= 0;
		String traceParent = method.method().observer().traceParent();
		try {
			this.calls.insert(id, method.id(), key, arguments, due, near ? this.instance : null, traceParent,
					this.shapes.written(method));
		}
		catch (DataAccessException ex) {
			doubtIfClaimed(near, ex);
			if (DatabaseFailure.of(ex) != DatabaseFailure.UNREACHABLE) {
				throw ex;
			}
			// One type for every driver: MySQL's lost connection, say, is a RecoverableDataAccessException.
			throw new DataAccessResourceFailureException("Durable call to " + method.method().description()
					+ " was not accepted: its database cannot be reached (" + ex.getMessage() + ")", ex);
		}
		this.counters.countScheduled();
		DurableResult result = method.method().returnsFuture() ? new DurableResult(() -> cancel(method, id)) : null;
		if (key != null && replaced != null) {
			afterCommit(() -> drop(method.id(), key, replaced));
		}
		if (!near) {
			if (result != null) {
				this.held.awaitHolding(id, result);
				afterRollback(() -> {
					this.held.dropFuture(id);
					result.rolledBack();
				});
			}
			return result;
		}
		HeldCall call = new HeldCall(method, id, key, arguments, due, Tries.NONE, traceParent, result,
				this.pipeline.gate());
		holdAfterCommit(call, () -> {
		});
		return result;
	}

	/**
	 * After a write that failed: one that claimed a call here as the database became unreachable
	 * may have committed with its answer lost, leaving a row this instance owns and no wheel holds,
	 * so the poller is told. Even in a caller's transaction, where the broken connection took the
	 * write with it, unless the transaction is another data source's and the write committed on
	 * its own: a doubt costs two small queries, a row left over strands its call until this
	 * instance stops.
	 */
	private void doubtIfClaimed(boolean claimedHere, DataAccessException failure) {
		if (claimedHere && DatabaseFailure.of(failure) == DatabaseFailure.UNREACHABLE) {
			this.claimsInDoubt.run();
		}
	}

	/**
	 * Holds a call claimed for this instance once the caller's transaction commits, or now if there
	 * is none, then runs {@code held}.
	 */
	private void holdAfterCommit(HeldCall call, Runnable held) {
		if (this.calls.inTransaction()) {
			Transactions.afterCompletion((status) -> {
				// Unknown (the connection broke during the commit): the row may be there, claimed by us;
				// held, its gate finds out. Only a rollback certainly removed it.
				if (status != TransactionSynchronization.STATUS_ROLLED_BACK) {
					this.pipeline.hold(call);
					held.run();
				}
				else if (call.result() != null) {
					call.result().rolledBack();
				}
			});
		}
		else {
			this.pipeline.hold(call);
			held.run();
		}
	}

	/**
	 * Finds the waiting call of a method by key.
	 * @return the call, or {@code null} if none waits with that key
	 */
	@Nullable StoredCall find(String methodId, Object key) {
		this.methods.require(methodId);
		String text = key.toString();
		return DurableMethod.storable(text) ? this.calls.findWaiting(methodId, text) : null;
	}

	/**
	 * Moves a waiting call to a new due time, or puts a failed one back to wait for it, in the
	 * caller's transaction if it has one. A call due within the horizon is claimed by this
	 * instance, as a new call is, if it knows the method: run now, it starts at once.
	 * @return the call as this change left it; {@code null} if it is
	 * neither waiting nor failed (it started, or is gone)
	 * @throws IllegalStateException if it failed and a waiting call of its method holds its key
	 */
	@Nullable StoredCall reschedule(StoredCall call, Instant due) {
		Instant now = this.clock.now();
		try {
			Duration.between(now, due).toNanos();
		}
		catch (ArithmeticException tooFar) {
			throw new IllegalArgumentException("A durable call cannot be due at " + due + ": at most about 292 years"
					+ " from now (" + now + ")", tooFar);
		}
		Instant at = DurableClock.wholeMicros(due);
		DurableMethod method = this.methods.find(call.methodId());
		// One this instance cannot read (another version wrote it) waits for the poll of an instance
		// that reads it: held here, it would run into its failure.
		boolean near = method != null && this.running.getAsBoolean() && !at.isAfter(now.plus(this.horizon))
				&& this.shapes.mayHold(method, call.shape(), call.arguments());
		UUID owner = near ? this.instance : null;
		UUID id;
		// Whether this instance held the call before: then a claim here only moves it on its wheel,
		// else it counts as claimed, so that the counts still add up.
		AtomicBoolean heldBefore = new AtomicBoolean();
		if (call.state() == CallState.FAILED) {
			CallRepository.Requeue requeued;
			try {
				requeued = this.calls.requeue(call.id(), at, owner);
			}
			catch (DataAccessException ex) {
				doubtIfClaimed(near, ex);
				throw ex;
			}
			if (requeued == CallRepository.Requeue.KEY_HELD) {
				StoredCall holder = this.calls.findWaiting(call.methodId(), String.valueOf(call.key()));
				throw new IllegalStateException("The failed call " + call.id() + " of " + call.methodId()
						+ " cannot wait again: a waiting call" + ((holder != null) ? " (" + holder.id() + ")" : "")
						+ " holds its key '" + call.key() + "'; cancel that call first");
			}
			if (requeued == CallRepository.Requeue.NOT_FAILED) {
				return null;
			}
			id = call.id();
			logger.info("Failed durable call " + id + " of " + call.methodId() + HeldCall.keyed(call.key())
					+ " re-queued, due at " + at);
		}
		else {
			id = CallIds.next();
			boolean moved;
			try {
				moved = call.state().waiting() && this.calls.reschedule(call.id(), id, at, owner);
			}
			catch (DataAccessException ex) {
				doubtIfClaimed(near, ex);
				throw ex;
			}
			if (!moved) {
				return null;
			}
			// Off this instance's wheel at once when it held the old id; elsewhere the gate finds it gone.
			afterCommit(() -> heldBefore.set(dropHeld(call) != null));
		}
		// A re-queued failed call starts a new round of retries; its runs before stay its history.
		Tries tries = (call.state() == CallState.FAILED)
				? new Tries(call.tries().attempts(), call.tries().failures(), 0, null) : call.tries();
		if (near) {
			HeldCall moved = new HeldCall(method, id, call.key(), call.arguments(), at, tries,
					call.traceParent(), null, this.pipeline.gate());
			if (Duration.between(at, now).compareTo(this.horizon) > 0) {
				moved.lateBecause("it was rescheduled to a due time already past");
			}
			holdAfterCommit(moved, () -> {
						if (!heldBefore.get()) {
							this.counters.countClaimed();
						}
					});
		}
		// As the change left it, not as read back: held here and due now, it may be running already.
		return new StoredCall(id, call.methodId(), call.key(), near ? CallState.CLAIMED : CallState.PENDING, at,
				tries, owner, near ? this.instanceName : null, call.traceParent(), call.created(), null, null,
				call.arguments(), call.shape());
	}

	/**
	 * Cancels a waiting call, or deletes a failed one, by id, in the caller's transaction if it has
	 * one.
	 * @return whether there was such a call
	 */
	boolean cancel(StoredCall call) {
		if (call.state() == CallState.FAILED) {
			return this.calls.deleteFailed(call.id());
		}
		if (!call.state().waiting()) {
			return false;
		}
		DurableMethod method = this.methods.find(call.methodId());
		boolean cancelled = this.calls.cancel(call.id());
		if (cancelled) {
			afterCommit(() -> {
				this.counters.countCancelled();
				if (method != null) {
					observeCancel(method);
				}
				dropHeld(call);
			});
		}
		return cancelled;
	}

	/**
	 * Takes a call moved or cancelled by id off this instance's wheel, if it holds it: only that
	 * call, never a newer one made with the same key in between.
	 * @return the call, if this took it off
	 */
	private @Nullable HeldCall dropHeld(StoredCall call) {
		String key = call.key();
		return (key != null) ? this.held.drop(call.methodId(), key, call.id()) : this.held.drop(call.id());
	}

	/**
	 * Deletes the waiting and failed calls of a method that neither this instance nor a live one
	 * knows.
	 * @return how many
	 * @throws IllegalStateException if one knows it
	 */
	int deleteCallsOf(String methodId, List<InstanceStatus> instances) {
		if (this.methods.find(methodId) != null) {
			throw new IllegalStateException("This instance knows the durable method '" + methodId
					+ "': cancel its calls one by one instead");
		}
		for (InstanceStatus instance : instances) {
			if (instance.alive() && instance.methods().contains(methodId)) {
				throw new IllegalStateException("The live instance '" + instance.name() + "' (" + instance.id()
						+ ") knows the durable method '" + methodId + "': cancel its calls one by one instead");
			}
		}
		int deleted = this.calls.deleteCallsOf(methodId);
		if (deleted > 0) {
			logger.info(deleted + ((deleted == 1) ? " durable call" : " durable calls") + " of '" + methodId
					+ "', a method no live instance knows, deleted");
		}
		return deleted;
	}

	/**
	 * Cancels the pending call of a method by key, wherever it waits: in the database, or claimed
	 * by any instance (its gate then finds the row gone).
	 * @return whether a pending call was cancelled
	 */
	boolean cancel(String methodId, Object key) {
		DurableMethod method = this.methods.require(methodId);
		String text = key.toString();
		if (!DurableMethod.storable(text)) {
			// No call could have been made with it.
			return false;
		}
		UUID before = this.held.heldWith(methodId, text);
		boolean cancelled = this.calls.cancel(methodId, text);
		if (cancelled) {
			afterCommit(() -> {
				this.counters.countCancelled();
				observeCancel(method);
				if (before != null) {
					drop(methodId, text, before);
				}
			});
		}
		return cancelled;
	}

	/** Cancels one call by id: its caller cancelled its future. */
	boolean cancel(DurableMethod method, UUID id) {
		boolean cancelled = this.calls.cancel(id);
		if (cancelled) {
			afterCommit(() -> {
				this.counters.countCancelled();
				observeCancel(method);
				this.held.drop(id);
			});
		}
		this.held.dropFuture(id);
		return cancelled;
	}

	/**
	 * Puts failed calls back to pending, due now, in the caller's transaction if it has one.
	 * @return what was re-queued
	 */
	Requeued requeueFailed(@Nullable String methodId) {
		Requeued requeued = this.calls.requeueFailed(methodId, DurableClock.wholeMicros(this.clock.now()));
		if (requeued.requeued() > 0) {
			logger.info(requeued.requeued() + ((requeued.requeued() == 1) ? " failed durable call" : " failed durable calls")
					+ ((methodId != null) ? " of " + methodId : "") + " re-queued, to run again now");
		}
		if (!requeued.keyHeld().isEmpty()) {
			logger.info(requeued.keyHeld().size() + " failed durable calls left failed: a pending call holds their key");
		}
		return requeued;
	}

	/**
	 * Observes a cancel once it is committed, on the canceller's thread: a child of the canceller's
	 * observation, as the call's own caller's trace stays in the row that is now gone.
	 */
	private static void observeCancel(DurableMethod method) {
		method.method().observer().none().ended(method.method(), DelayedCallOutcome.CANCELLED, null);
	}

	/**
	 * Takes a cancelled or replaced call off this instance's wheel, if it still holds it. Frees
	 * memory early (its gate would find the row gone anyway); the release only hands the row back
	 * if it is somehow still there.
	 */
	private void drop(String methodId, String key, UUID id) {
		HeldCall call = this.held.drop(methodId, key, id);
		if (call != null) {
			this.writes.write(call.description(), "handed back", () -> this.calls.handBack(id, this.instance), null);
		}
	}

	/** Runs after the current thread's transaction on the database commits, or now if there is none. */
	private void afterCommit(Runnable action) {
		if (this.calls.inTransaction()) {
			Transactions.afterCommit(action);
		}
		else {
			action.run();
		}
	}

	/** Runs if the current thread's transaction on the database rolls back; never without one. */
	private void afterRollback(Runnable action) {
		if (this.calls.inTransaction()) {
			Transactions.afterRollback(action);
		}
	}

}
