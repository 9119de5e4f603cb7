package io.github.wheeltimer.durable.run;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.annotation.DelayedCallObserver;
import io.github.wheeltimer.annotation.DelayedCallOutcome;
import io.github.wheeltimer.annotation.DelayedRetry;
import io.github.wheeltimer.durable.CurrentAttempt;
import io.github.wheeltimer.durable.Tries;
import io.github.wheeltimer.durable.arguments.DurableMethods;
import io.github.wheeltimer.durable.storage.CallRepository;
import io.github.wheeltimer.durable.storage.DatabaseFailure;
import io.github.wheeltimer.durable.storage.DatabaseProblems.Source;
import io.github.wheeltimer.durable.storage.RowWrites;
import io.github.wheeltimer.durable.storage.Transactions;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The run of a held call: gate, decode, invoke, finish, each once, and one {@link Outcome} at the
 * end, which the counts and the row's last write follow. Its method and its timer count the run
 * by that outcome too (completed, failed; withdrawn for a run lost to a take-over), and count a
 * call that fired but will not run here (fenced, handed back, back on its wheel to try its gate
 * again) as withdrawn, wherever that is decided.
 * <p>
 * Threads: the calls that fall due together pass their gates in one statement on the
 * {@link CallBatches batches' thread} ({@link #gate}), which then hands each to its method's
 * executor; {@link #run} runs on an executor thread; a method's returned future may end the run
 * later, on the thread that completes it. The rows of calls that ran go in batches, on the
 * batches' thread again. A {@code @Transactional} method finishes its row inside its own
 * transaction, through the last step of its invocation path; the row is then counted finished
 * once that transaction commits.
 */
public final class CallRunner implements GateEntry {

	private static final Log logger = LogFactory.getLog(CallRunner.class);

	/**
	 * How long a call whose gate neither passed nor fenced it waits before it tries again: a
	 * caller's transaction that holds its row is usually short; a lapsed lease takes a heartbeat.
	 */
	private static final Duration RETRY_DELAY = Duration.ofMillis(100);

	private static final String STOPPED = "it fell due as this instance stopped";

	/** What a row keeps instead of an error whose text the database refused. */
	private static final String ERROR_REFUSED = "the database refused the error's text; it is in the log of the"
			+ " instance that ran the call";

	/** How a run ended. */
	enum Outcome {

		/** The method returned: the row goes. */
		RAN,

		/** The method threw, or its future failed: the row is kept as failed. */
		FAILED,

		/** The arguments could not be read back: the row is kept as failed. */
		UNREADABLE,

		/** Its own transaction found the row taken over while it ran, and rolled back. */
		LOST,

		/**
		 * The database failed in a way that may pass, where nothing of the method can have stayed:
		 * before the method started (its transaction could not begin), or in the end of the
		 * transaction that also ends the call (the statement that deletes the row, the commit).
		 * The row goes back to run again; not an attempt.
		 */
		UNFINISHED

	}

	private final CallRepository calls;

	private final DurableMethods methods;

	private final HeldCalls held;

	private final RowWrites writes;

	private final CallCounters counters;

	private final DurableClock clock;

	private final UUID instance;

	private final Duration lease;

	/** A retry due within it waits on this instance's wheel; a later one waits in the database for any. */
	private final Duration horizon;

	private final CallBatches batches;

	public CallRunner(CallRepository calls, DurableMethods methods, HeldCalls held, RowWrites writes,
			CallCounters counters, DurableClock clock, UUID instance, Duration lease, Duration horizon) {
		this.calls = calls;
		this.methods = methods;
		this.held = held;
		this.writes = writes;
		this.counters = counters;
		this.clock = clock;
		this.instance = instance;
		this.lease = lease;
		this.horizon = horizon;
		this.batches = new CallBatches(this::gate, this::finish, CallRepository.BATCH_LENGTH);
	}

	/** Starts the batches' thread, on the starting thread. */
	public void start() {
		// At least once a tick the rows of the calls that ran go; at once on a virtual clock, where
		// a test reads the table when the clock stands still.
		this.batches.start(this.clock.system() ? this.methods.shortestTick() : Duration.ZERO);
	}

	/**
	 * Ends the batches, writing the finishes still waiting, on the closing thread.
	 * @param wait the most to wait for a statement in progress
	 */
	public void stop(Duration wait) {
		for (HeldCall call : this.batches.stop(wait)) {
			handBack(call, STOPPED);
		}
	}

	@Override
	public void enter(HeldCall call) {
		if (!this.batches.fired(call)) {
			handBack(call, STOPPED);
		}
	}

	public @Nullable String busy() {
		return this.batches.busy();
	}

	/** @return the ids of the calls that wait for their gate */
	public Set<UUID> atGate() {
		return this.batches.atGate();
	}

	/** @return how many calls fell due and wait for their gate, or ran and wait for their finish */
	int waiting() {
		return this.batches.waiting();
	}

	/**
	 * Puts a claimed call on its wheel; one its timer refuses goes back at once. A call due
	 * already (a backlog, calls taken over, a run now, a re-queued failed call) has no tick to wait
	 * for: it joins the next batch of gates, in the backlog until it starts, run at once by its
	 * timer, which counts it with its timeouts.
	 */
	public void hold(HeldCall call) {
		Instant now = this.clock.now();
		if (!call.due().isAfter(now)) {
			this.held.enterBacklog(call);
			if (!(call.method().timer() instanceof HashedWheelTimer timer)) {
				enter(call);
				return;
			}
			try {
				// On this thread, at once: the call's run(Timeout) hands it to enter().
				timer.runDue(call);
			}
			catch (RuntimeException refused) {
				handBack(call, "its timer refused it: " + refused.getMessage());
			}
			return;
		}
		RuntimeException refused = this.held.hold(call, now);
		if (refused != null) {
			handBack(call, "its timer refused it: " + refused.getMessage());
		}
	}

	/** The executor's thread, once the call passed its gate. */
	void run(HeldCall call) {
		this.held.leftBacklog(call);
		DelayedCallObserver.CallerContext observer = call.method().observer().none();
		@Nullable Object[] values;
		try {
			values = call.durableMethod().arguments().read(call.arguments());
		}
		catch (RuntimeException unreadable) {
			// IllegalArgumentException from the codec; anything else from a deserializer of the application's.
			logger.error(call.description() + " cannot run and is marked failed: " + unreadable.getMessage());
			observer.ended(call.method(), DelayedCallOutcome.FAILED, unreadable);
			end(call, Outcome.UNREADABLE, "unreadable: " + unreadable.getMessage(), unreadable);
			return;
		}
		Instant started = this.clock.now();
		Duration lateness = Duration.between(call.due(), started);
		this.counters.started(call, lateness);
		// Its span links to the caller's trace, wherever and whenever the call was made.
		DelayedCallObserver.Run run = observer.start(call.method(), lateness.toNanos(), call.attempt(), call.id().toString(),
				call.traceParent());
		try {
			Object value;
			LastStep last = new LastStep(call);
			CurrentAttempt.set(call.attempt());
			try {
				value = this.methods.invoker(call.durableMethod()).invoke(call.method().method(), values, last);
			}
			catch (LeaseLostException lost) {
				run.stop(lost);
				end(call, Outcome.LOST, lost.getMessage(), lost);
				return;
			}
			catch (FinishRefusedException refused) {
				run.stop(refused);
				end(call, Outcome.UNFINISHED, refused.getMessage(), refused);
				return;
			}
			catch (Throwable ex) {
				String notTheMethod = last.beforeOrAroundTheMethod(ex);
				if (notTheMethod != null) {
					// Not an attempt: the database's moment, which left nothing of the method.
					run.stop(ex);
					end(call, Outcome.UNFINISHED, call.description() + " is handed back to run again: " + notTheMethod
							+ ", the database failed (" + ex + ")", ex);
					return;
				}
				ended(call, null, ex, values, started, run);
				return;
			}
			finally {
				CurrentAttempt.clear();
			}
			// Outside the method's own failures: what the ending throws is not the method's.
			if (value instanceof CompletionStage<?> stage) {
				stage.whenComplete((outcome, failure) -> ended(call, outcome, unwrap(failure), values, started, run));
			}
			else if (value instanceof Future<?> future) {
				awaitFuture(call, future, values, started, run);
			}
			else {
				ended(call, value, null, values, started, run);
			}
		}
		finally {
			run.leave();
		}
	}

	private void awaitFuture(HeldCall call, Future<?> future, @Nullable Object[] values, Instant started,
			DelayedCallObserver.Run run) {
		try {
			ended(call, future.get(), null, values, started, run);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			ended(call, null, ex, values, started, run);
		}
		catch (ExecutionException ex) {
			ended(call, null, unwrap(ex), values, started, run);
		}
	}

	/**
	 * The batches' thread: the gates of the calls that fell due together, in one statement, then
	 * each call that passed goes to its executor. Runs before anything of the calls' own. A call
	 * whose row another transaction holds (or whose gate found this instance's lease lapsed) waits
	 * a retry's delay on its wheel and comes back; one no longer ours is fenced. A stopping instance
	 * waits for its kept calls to have been here.
	 */
	private void gate(List<HeldCall> batch) {
		Map<UUID, HeldCall> gating = new LinkedHashMap<>();
		List<HeldCall> fenced = new ArrayList<>();
		for (HeldCall call : batch) {
			// Off its wheel, and off the backlog once it starts on its executor's thread.
			this.held.gated(call);
			if (gating.putIfAbsent(call.id(), call) != null) {
				// Claimed twice (this instance took itself over): the row has one gate.
				fenced.add(call);
			}
		}
		try {
			CallRepository.Gates gates = startAll(gating);
			for (HeldCall call : gating.values()) {
				if (gates == null) {
					// Its row goes back (or, stopping with the database gone, is left to the lease).
					call.withdrawn();
					this.held.leftBacklog(call);
				}
				else if (gates.waiting().contains(call.id())) {
					retry(call);
				}
				else if (!gates.passed().contains(call.id())) {
					// Not ours any more: cancelled, replaced, or taken over elsewhere.
					fenced.add(call);
				}
			}
			this.counters.fenced.add(fenced.size());
			for (HeldCall call : fenced) {
				call.withdrawn();
				this.held.leftBacklog(call);
			}
			if (gates != null) {
				for (HeldCall call : gating.values()) {
					if (gates.passed().contains(call.id())) {
						this.held.forgetFuture(call.id());
						execute(call);
					}
				}
			}
		}
		finally {
			batch.forEach((call) -> this.held.drained(call.id()));
		}
	}

	/**
	 * The gate statement of a batch.
	 * @return what the gates decided; {@code null} if none may start: the rows are handed back
	 * later or, while stopping with the database not answering, left to the lease
	 */
	private CallRepository.@Nullable Gates startAll(Map<UUID, HeldCall> gating) {
		try {
			AtomicReference<CallRepository.Gates> answer = new AtomicReference<>();
			if (!this.writes.run(() -> answer.set(this.calls.start(gating.keySet(), this.instance)))) {
				return null;
			}
			this.writes.succeeded(Source.CALLS);
			return answer.get();
		}
		catch (RuntimeException ex) {
			// One warning for an outage, not one per call due during it; a refusal is these rows' alone.
			this.writes.failed(Source.CALLS, ex);
			String failure = gating.size() + " durable calls (" + gating.values().iterator().next() + "...) cannot"
					+ " start, their database failed; they are handed back: " + ex.getMessage();
			if (DatabaseFailure.of(ex) == DatabaseFailure.REFUSED) {
				logger.error(failure);
			}
			else {
				logger.debug(failure);
			}
			// The gate's update may have passed with its answer lost: a row is then running at its
			// call's attempt, and goes back too.
			gating.values().forEach((call) -> this.writes.defer(handBackWrite(call, true)));
			return null;
		}
	}

	/**
	 * A call whose gate neither passed nor fenced it goes back on its wheel for a retry's delay,
	 * still in the backlog; one its timer refuses (stopped) goes back to the database.
	 */
	private void retry(HeldCall call) {
		// This fire ends here; the retry is a new timeout of its wheel.
		call.withdrawn();
		RuntimeException refused = this.held.hold(call, this.clock.now(), RETRY_DELAY);
		if (refused != null) {
			handBack(call, "its timer refused it: " + refused.getMessage());
		}
	}

	/** Hands a call that passed its gate to its method's executor; one it refuses goes back. */
	private void execute(HeldCall call) {
		try {
			call.method().execute(() -> run(call));
			this.counters.started.increment();
		}
		catch (RuntimeException | Error refused) {
			// Not a failure of the call: it goes back, to run later or elsewhere.
			call.withdrawn();
			this.held.leftBacklog(call);
			logger.debug(call.description() + " handed back to the database: its executor refused it: " + refused);
			this.writes.write(handBackWrite(call, true));
		}
	}

	/**
	 * The batches' thread: the rows of calls that ran go, in one statement, and those of failed
	 * attempts go back to wait for their retries, in another.
	 */
	private void finish(List<HeldCall> ended) {
		List<HeldCall> ran = new ArrayList<>(ended.size());
		List<HeldCall> failed = new ArrayList<>();
		for (HeldCall call : ended) {
			((call.retry() != null) ? failed : ran).add(call);
		}
		if (!ran.isEmpty()) {
			List<UUID> ids = ran.stream().map(HeldCall::id).toList();
			this.writes.write(new RowWrites.Write(ran.size() + " durable calls (" + ran.get(0) + "...)", "finished",
					() -> this.calls.finish(ids), null));
			this.counters.ran.add(ran.size());
		}
		if (!failed.isEmpty()) {
			retryAll(failed);
		}
	}

	/**
	 * The last step before the method, inside any transaction its advice began: a method that
	 * runs in a transaction on the durable calls' database deletes its row there, so that its
	 * effects and the end of the call commit, or roll back, together. One per run, confined to the
	 * executor's thread; what it saw tells a failure of the method from one around it.
	 */
	private final class LastStep implements MethodInterceptor {

		private final HeldCall call;

		/** The advice before it let the method start. */
		private boolean entered;

		/** The row was deleted in the method's transaction, whose end now decides the call's. */
		private boolean finishedInItsTransaction;

		LastStep(HeldCall call) {
			this.call = call;
		}

		@Override
		public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
			this.entered = true;
			if (this.call.method().returnsFuture() || !CallRunner.this.calls.inTransaction()
					|| TransactionSynchronizationManager.isCurrentTransactionReadOnly()) {
				return invocation.proceed();
			}
			Object value = invocation.proceed();
			boolean finished;
			try {
				finished = CallRunner.this.calls.finish(this.call.id(), CallRunner.this.instance, this.call.attempt());
			}
			catch (RuntimeException ex) {
				// Refused for its data, the statement would be refused again: the call fails, seen.
				if (!DatabaseFailure.of(ex).retryLater()) {
					throw ex;
				}
				throw new FinishRefusedException(this.call.description(), ex);
			}
			if (!finished) {
				throw new LeaseLostException(this.call.description());
			}
			this.finishedInItsTransaction = true;
			Transactions.afterCommit(this.call::finishedInTransaction);
			return value;
		}

		/**
		 * Says why a failure of the database that may pass left nothing of the method: it came
		 * before the method started (its transaction could not begin, say), or from the end of the
		 * transaction that also ends the call, which keeps both or neither.
		 * @return why, or {@code null} if the failure may have come from the method
		 */
		@Nullable String beforeOrAroundTheMethod(Throwable failure) {
			if ((this.entered && !this.finishedInItsTransaction) || !DatabaseFailure.of(failure).retryLater()) {
				return null;
			}
			return this.entered ? "the end of its method's transaction failed" : "its method did not start";
		}

	}

	/**
	 * The method's outcome is known: its observation stops, then the run ends, or, for a failure
	 * its {@code @Retryable} retries, the attempt ends and the call waits for the next one.
	 * @param started when this attempt started
	 */
	private void ended(HeldCall call, @Nullable Object value, @Nullable Throwable failure,
			@Nullable Object[] values, Instant started, DelayedCallObserver.Run run) {
		run.stop(failure);
		if (failure == null) {
			end(call, Outcome.RAN, null, null);
			DurableResult result = call.result();
			if (result != null) {
				result.complete(value);
			}
			return;
		}
		String error = failure.getClass().getName() + ": " + failure.getMessage();
		DelayedRetry retry = call.method().retry();
		if (retry != null) {
			Tries before = call.before();
			Instant since = (before.retryingSince() != null) ? before.retryingSince() : started;
			Instant now = this.clock.now();
			// This attempt's failure and retry counted, as the row will keep them if it is retried.
			Tries after = new Tries(call.attempt(), before.failures() + 1, before.retries() + 1, since);
			DelayedRetry.Next next = retry.next(failure, after.retries(), Duration.between(since, now));
			retry.publish(new RetriedInvocation(call.method().method(), values), failure, next.stop());
			Duration delay = next.delay();
			call.method().retryDecided(delay != null, after.retries());
			if (delay != null) {
				retryLater(call, error, now, now.plus(delay), after);
				return;
			}
			if (before.retries() > 0) {
				error = error + " (attempt " + call.attempt() + "; not retried: " + next.stop() + ")";
			}
		}
		end(call, Outcome.FAILED, error, failure);
		DurableResult result = call.result();
		if (result != null) {
			result.completeExceptionally(failure);
		}
		else {
			call.method().failed(failure, values, call.namedKey());
		}
	}

	/**
	 * The one end of a run: its method's and its timer's count of how the run ended, then its
	 * row's last write, then its durable count, so that a reader who sees the durable count finds
	 * the row written (unless the write waits for the database) and the run counted.
	 */
	private void end(HeldCall call, Outcome outcome, @Nullable String error, @Nullable Throwable failure) {
		switch (outcome) {
			case RAN -> {
				call.ended(DelayedCallOutcome.RAN);
				if (!call.isFinishedInTransaction()) {
					// Counted once its batch is written.
					this.batches.ran(call);
					return;
				}
				this.counters.ran.increment();
			}
			case LOST -> {
				// Its effects rolled back: it runs again where it was taken over to.
				call.withdrawn();
				this.counters.fenced.increment();
				logger.warn(error + " (a pause longer than wheel-timer.durable.lease: " + this.lease
						+ "), so that its effects happen once, where it runs now");
			}
			case UNFINISHED -> {
				// Its effects rolled back with its end: not an attempt, it goes back to run again.
				call.withdrawn();
				logger.warn(error);
				this.writes.write(handBackWrite(call, true));
			}
			case FAILED, UNREADABLE -> {
				call.ended(DelayedCallOutcome.FAILED);
				int attempt = call.attempt();
				String because = (failure != null) ? failure.getClass().getName() : "unknown";
				this.writes.write(call.description(), "marked failed",
						() -> this.calls.fail(call.id(), this.instance, attempt, String.valueOf(error)),
						() -> this.calls.fail(call.id(), this.instance, attempt, ERROR_REFUSED + " (" + because + ")"));
				this.counters.failed.increment();
			}
		}
	}

	/**
	 * A failed attempt that its {@code @Retryable} tries again: counted as a failed run, and its
	 * row waits for the next attempt, written in the statement that would have failed it. A retry
	 * due within the horizon waits on this instance's wheel (a new timeout, no thread), once that
	 * statement passed; a later one waits in the database for whichever instance claims it.
	 * @param now when the attempt ended
	 * @param after the row's history once it waits for the retry
	 */
	private void retryLater(HeldCall call, String error, Instant now, Instant due, Tries after) {
		call.ended(DelayedCallOutcome.FAILED);
		this.counters.retried.increment();
		Instant at = DurableClock.wholeMicros(due);
		UUID holder = at.isAfter(now.plus(this.horizon)) ? null : this.instance;
		logger.warn(call.description() + " failed on attempt " + after.attempts() + " (retry " + after.retries()
				+ " of " + call.method().retry().maxRetries() + " follows at " + at + "): " + error);
		// Written with the finishes of its batch, which then holds it.
		call.retryWith(new CallRepository.Retry(call.id(), after.attempts(), at, holder, after, error));
		this.batches.ran(call);
	}

	/**
	 * The batches' thread: the rows of failed attempts go back to wait for their retries, in one
	 * round trip; then each retry due within the horizon goes on this instance's wheel.
	 */
	private void retryAll(List<HeldCall> failed) {
		List<CallRepository.Retry> retries = failed.stream().map(HeldCall::retry).toList();
		this.writes.write(new RowWrites.Write(failed.size() + " durable calls (" + failed.get(0) + "...)", "set to retry",
				() -> waited(failed, this.calls.retryAll(this.instance, retries)), () -> {
					// The database refused an error's text: each one alone, the refused one without it.
					for (HeldCall call : failed) {
						CallRepository.Retry retry = call.retry();
						this.writes.write(call.description(), "set to retry",
								() -> waited(List.of(call), List.of(this.calls.retry(this.instance, retry))),
								() -> waited(List.of(call), List.of(this.calls.retry(this.instance,
										retry.withError(ERROR_REFUSED)))));
					}
				}));
	}

	/**
	 * Holds each retry whose row waits for it on this instance's wheel: known by its key only if
	 * its row holds the key again, so that a cancel or a new call by that key never takes another
	 * call's place. A retry left pending keeps its caller's future for the poll that claims it here.
	 */
	private void waited(List<HeldCall> failed, List<CallRepository.Retried> retried) {
		for (int i = 0; i < failed.size(); i++) {
			HeldCall call = failed.get(i);
			CallRepository.Retry retry = call.retry();
			if (retried.get(i) == CallRepository.Retried.LOST) {
				// Taken over while it ran (a pause longer than the lease): no longer this attempt's to retry.
				continue;
			}
			String key = (retried.get(i) == CallRepository.Retried.WITH_KEY) ? call.namedKey() : null;
			HeldCall next = new HeldCall(call.durableMethod(), call.id(), key, call.arguments(), retry.due(),
					retry.after(), call.traceParent(), call.result(), this);
			next.startedKey(call.namedKey());
			DurableResult result = next.result();
			if (retry.holder() != null) {
				hold(next);
			}
			else if (result != null) {
				this.held.awaitHolding(next.id(), result);
			}
		}
	}

	/** The call will not run here after all: its row goes back to pending for any instance. */
	@Override
	public void timerStopped(HeldCall call) {
		handBack(call, "its timer stopped");
	}

	void handBack(HeldCall call, String why) {
		call.withdrawn();
		this.held.release(call);
		logger.debug(call.description() + " handed back to the database: " + why);
		this.writes.write(handBackWrite(call, false));
	}

	/**
	 * The write that hands a held call's row back, counted when the row goes back, not when asked:
	 * a stop's bulk hand-back may release the same row first, and counts it then.
	 * @param afterGate whether its gate ran (and failed, or passed for an executor that refused the
	 * call): the row may be running at this attempt
	 */
	private RowWrites.Write handBackWrite(HeldCall call, boolean afterGate) {
		return new RowWrites.Write(call.description(), "handed back", () -> {
			boolean back = afterGate ? this.calls.handBackAfterGate(call.id(), this.instance, call.attempt())
					: this.calls.handBack(call.id(), this.instance);
			if (back) {
				this.counters.handedBack.increment();
			}
		}, null);
	}

	/** A durable {@code last_error} names the method's own exception, not the future's wrapper. */
	private static @Nullable Throwable unwrap(@Nullable Throwable failure) {
		Throwable cause = (failure != null) ? failure.getCause() : null;
		return ((failure instanceof CompletionException || failure instanceof ExecutionException) && cause != null)
				? cause : failure;
	}

}
