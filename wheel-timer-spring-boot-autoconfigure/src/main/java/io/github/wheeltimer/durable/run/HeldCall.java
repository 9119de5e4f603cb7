package io.github.wheeltimer.durable.run;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Instant;
import java.util.UUID;

import io.github.wheeltimer.HandOff;
import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.Timeout;
import io.github.wheeltimer.annotation.DelayedCallOutcome;
import io.github.wheeltimer.annotation.DelayedMethod;
import io.github.wheeltimer.annotation.DelayedTask;
import io.github.wheeltimer.durable.Tries;
import io.github.wheeltimer.durable.arguments.DurableMethod;
import io.github.wheeltimer.durable.storage.CallRepository;
import org.jspecify.annotations.Nullable;

/**
 * A durable call this instance holds: claimed in the database and waiting on a wheel, then
 * handed to its gate ({@link GateEntry}) when its timer fires it.
 * <p>
 * Threads: created by the caller (born claimed) or by a poll; {@link #run(Timeout)} runs on the
 * timer's worker (or, for a call due already, on the thread that holds it, through
 * {@link HashedWheelTimer#runDue}) and only hands the call to its gate's batch; the method
 * runs on an executor thread, once the gate passed. The fields are final, or confined to the
 * executor thread, or (the backlog flag) left once by compare-and-set; the hand-offs publish
 * them.
 * <p>
 * Its timer counts it as its run here ends, not when it goes to its gate: {@link #run(Timeout)}
 * hands the run off, and whichever thread ends it says how ({@link #ended}, {@link #withdrawn}):
 * the method returned or threw, or the call will not run here after all (fenced, handed back, or
 * back on the wheel to try its gate again, a new timeout then).
 */
public final class HeldCall implements DelayedTask {

	private static final VarHandle IN_BACKLOG;

	static {
		try {
			IN_BACKLOG = MethodHandles.lookup().findVarHandle(HeldCall.class, "inBacklog", boolean.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final DurableMethod method;

	private final UUID id;

	private final @Nullable String key;

	private final String arguments;

	private final Instant due;

	/** Its row's history before this run (the gate adds one start). */
	private final Tries before;

	/** The caller's span as a W3C {@code traceparent}, stored with the row; the run's span links to it. */
	private final @Nullable String traceParent;

	private final @Nullable DurableResult result;

	private final GateEntry gate;

	/**
	 * Where the end of the run of its last fire is counted on its timer. Written on the thread that
	 * fired it, before the batches' queue publishes the call to the gate thread; read by whichever
	 * thread ends the run. Volatile: a stop may hand back, on its own thread, a call whose last fire
	 * ended long ago, whose hand-off then counts nothing more.
	 */
	private volatile HandOff handOff = HandOff.NONE;

	/**
	 * Why it was not claimed in time, as the poll that claimed it late could tell, for its log line
	 * if it starts late; {@code null} if claimed in time. Written by the poll before the call is
	 * held, which publishes it.
	 */
	private @Nullable String lateBecause;

	/**
	 * The key its row kept aside when it was taken over during a run (it holds none now), for its
	 * log lines; written by the poll before the call is held, which publishes it.
	 */
	private @Nullable String startedKey;

	/**
	 * The retry its failed attempt waits for, written by the thread that ended the attempt before
	 * the batches' queue publishes the call to the batches' thread, which writes it.
	 */
	private CallRepository.@Nullable Retry retry;

	/** Executor thread only: the row was deleted inside the method's own transaction. */
	private boolean finishedInTransaction;

	/**
	 * Whether it counts in its instance's backlog: due already when it went on the wheel, and
	 * neither started nor gone since. Left once, by whichever thread gets there first.
	 */
	@SuppressWarnings("unused")
	private volatile boolean inBacklog;

	public HeldCall(DurableMethod method, UUID id, @Nullable String key, String arguments, Instant due, Tries before,
			@Nullable String traceParent, @Nullable DurableResult result, GateEntry gate) {
		this.method = method;
		this.id = id;
		this.key = key;
		this.arguments = arguments;
		this.due = due;
		this.before = before;
		this.traceParent = traceParent;
		this.result = result;
		this.gate = gate;
	}

	@Override
	public UUID id() {
		return this.id;
	}

	@Override
	public @Nullable String key() {
		return this.key;
	}

	/**
	 * @return how a log line about this call names it, such as
	 * {@code Durable call 0c1d... to orders.cancel (Orders.cancel(long)) [key 42]}: by its id, its
	 * method and its key, so that an operator finds it by whichever they know (the key, mostly)
	 */
	public String description() {
		return "Durable call " + this.id + " to " + this.method + keyed(namedKey());
	}

	/** @return the key it holds or, taken over during a run, the key it was made with */
	@Nullable String namedKey() {
		return (this.key != null) ? this.key : this.startedKey;
	}

	public void startedKey(@Nullable String key) {
		this.startedKey = key;
	}

	/** @return how log lines name a call's key: {@code " [key 42]"}, or nothing without a key */
	public static String keyed(@Nullable String key) {
		return (key != null) ? " [key " + key + "]" : "";
	}

	String arguments() {
		return this.arguments;
	}

	DurableMethod durableMethod() {
		return this.method;
	}

	@Override
	public DelayedMethod method() {
		return this.method.method();
	}

	@Override
	public boolean durable() {
		return true;
	}

	Instant due() {
		return this.due;
	}

	/** @return what its row said of its runs before this one */
	Tries before() {
		return this.before;
	}

	/** @return the attempt this run is, once it passed its gate: its row's starts, this one included */
	@Override
	public int attempt() {
		return this.before.attempts() + 1;
	}

	@Nullable String traceParent() {
		return this.traceParent;
	}

	public @Nullable DurableResult result() {
		return this.result;
	}

	public void lateBecause(@Nullable String reason) {
		this.lateBecause = reason;
	}

	/** @return why it was claimed late, or {@code null} if it was claimed in time */
	public @Nullable String lateBecause() {
		return this.lateBecause;
	}

	void enterBacklog() {
		this.inBacklog = true;
	}

	/** @return whether this call was in the backlog, and now is not: true once at most */
	boolean leaveBacklog() {
		return IN_BACKLOG.compareAndSet(this, true, false);
	}

	void retryWith(CallRepository.Retry retry) {
		this.retry = retry;
	}

	/** @return the retry its failed attempt waits for, or {@code null} if it ran */
	CallRepository.@Nullable Retry retry() {
		return this.retry;
	}

	void finishedInTransaction() {
		this.finishedInTransaction = true;
	}

	boolean isFinishedInTransaction() {
		return this.finishedInTransaction;
	}

	/**
	 * The run of this fire ended with the method's outcome ({@link DelayedCallOutcome#RAN} or
	 * {@link DelayedCallOutcome#FAILED}): counted by its method and its timer.
	 */
	void ended(DelayedCallOutcome outcome) {
		this.method.method().ended(outcome, this.handOff);
	}

	/** The call will not run here after this fire: its timer counts the fire withdrawn. */
	void withdrawn() {
		this.handOff.withdrawn();
	}

	/**
	 * On the worker, or on the thread that holds a call due already: the call waits for the batch
	 * that gates it, then for its executor. Its timer counts it running until then.
	 */
	@Override
	public void run(Timeout timeout) {
		this.handOff = HashedWheelTimer.handOff(timeout);
		this.gate.enter(this);
	}

	/** The timer stopped with this call on it: the row goes back to the database, not lost. */
	@Override
	public void unprocessed(Timeout timeout) {
		this.gate.timerStopped(this);
	}

	@Override
	public String toString() {
		return description() + " due at " + this.due;
	}

}
