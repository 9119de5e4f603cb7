/**
 * Durable delayed calls: {@code @DelayedExecution(durable = true)} calls kept in the
 * application's database, shared by the instances on it, precise to the tick.
 * {@link io.github.wheeltimer.durable.DurableCalls} is what application code uses.
 *
 * <h2>Words</h2>
 * The code uses these words for these acts, and no others.
 * <ul>
 * <li><b>call</b>: one invocation of a durable method, kept as one row; <b>key</b>: the text its
 * method's key expression gave, which one waiting call holds at a time.</li>
 * <li><b>claim</b>: an instance takes a pending row ({@code PENDING} to {@code CLAIMED}, its
 * own); <b>hold</b>: keep a claimed call in memory, on its method's wheel.</li>
 * <li><b>gate</b>: the conditional update that starts a call ({@code CLAIMED} to
 * {@code RUNNING}), passed only while the row is this instance's and its lease fresh; a call it
 * stops is <b>fenced</b>. <b>Attempt</b>: one start of a call, counted in its row.</li>
 * <li><b>finish</b>: delete the row of a call that ran; <b>fail</b>: keep it {@code FAILED} with
 * its error; <b>retry</b>: only {@code @Retryable}: a failed attempt's row waits for the next.</li>
 * <li><b>hand back</b>: this instance gives a call it claimed back to {@code PENDING}, for any
 * instance; <b>take over</b>: put a dead instance's claimed and running calls back to
 * {@code PENDING}; <b>reschedule</b>: give a waiting call a new due time.</li>
 * <li><b>requeue</b>: an operator puts a failed call back to waiting; <b>cancel</b>: delete a
 * waiting call; <b>defer</b>: leave a row write the database failed, in a way that may pass, to
 * the next poll.</li>
 * </ul>
 *
 * <h2>How it works</h2>
 * Each class has one owner and says in its own comment which threads touch it and why the
 * order is right.
 * <ul>
 * <li>{@link io.github.wheeltimer.durable.DurableEngine}: the lifecycle (start, stop with its
 * drain and hand-back, destroy) and the scheduler the annotation package hands durable calls to;
 * it builds and wires the parts below and answers monitoring.</li>
 * <li>{@code CallWriter}, callers' threads: writes a call's row (replacing the pending call of
 * its key), cancels, re-queues, and waits for the caller's transaction to commit before it
 * changes anything in memory.</li>
 * <li>{@code HeldCalls}, memory only: the calls on this instance's wheels, by id and by key, the
 * backlog of calls already due, the futures of calls not held yet, the drain of a stop.</li>
 * <li>{@code ClaimPoller}, the poll thread: retries deferred writes, takes over dead instances'
 * calls, cleans up, and claims the calls coming within the horizon.</li>
 * <li>{@code CallRunner}: gate (on the gate thread), decode, invoke (on executors' threads),
 * finish, one outcome per run; {@code CallBatches}, the gate thread, puts the gates of the calls
 * that fell due together in one statement, and the deletes of the calls that ran in another, at
 * least once a tick. A run reaches its method through {@code RunPath}: the bean's own advice
 * ({@code @Transactional} and the rest) without the advice that delays calls, and the finish as
 * the innermost step, inside the method's transaction.</li>
 * <li>{@code Lease}, the heartbeat thread: the instance's heartbeat and what it knows of its
 * own connection; {@code DurableThreads} arms the polls on the application's clock and the beats
 * on real time, each on a thread of its own.</li>
 * <li>{@code RowWrites} (writes that wait for the database, the stop's time budget),
 * {@code DatabaseProblems} (each problem said once), {@code CallCounters},
 * {@code DurableClock}, {@code DurableMethods} (ids, keys, argument codecs).</li>
 * </ul>
 *
 * <h2>How a call travels</h2>
 * A caller's thread evaluates the key, writes the arguments as JSON and inserts the row
 * ({@code PENDING}, or {@code CLAIMED} by this instance when it falls due within the horizon);
 * after the caller's transaction commits, a near call goes on its method's wheel. Otherwise a poll
 * of some instance claims it within the horizon and puts it on that instance's wheel. When it
 * fires, the wheel's worker puts it in the batch of its start gate (one conditional update for
 * the calls that fell due together: still this instance's, lease fresh by the database's clock),
 * which moves it to {@code RUNNING} and hands it to the method's executor; there the arguments are
 * read back, the method runs, and the row joins the next batch of deletes (or is kept
 * {@code FAILED} with its error). A call that will not run here (a stop, a refusal) goes back to
 * {@code PENDING}; the calls of an instance whose heartbeat stopped are taken over by the others.
 *
 * <h2>Adding a database</h2>
 * Storage is behind {@link io.github.wheeltimer.durable.CallRepository} and
 * {@link io.github.wheeltimer.durable.InstanceRepository}; their JDBC implementations in
 * {@link io.github.wheeltimer.durable.jdbc} write the SQL every supported database shares and ask a
 * {@link io.github.wheeltimer.durable.jdbc.DurableDialect} for the rest. A database is added with:
 * <ol>
 * <li>one dialect class, a subclass of {@code DurableDialect} that overrides what differs (the
 * clock expression, the upsert by key, limit, skip-locked, an update that returns its rows if the
 * database has one (the claim and the gates are then one statement each), id and instant
 * binding, the schema lock), named in
 * {@code DurableDialects.forPlatform};</li>
 * <li>one script per step of the tables' versions, {@code io/github/wheeltimer/durable/schema/<platform>/V1__tables.sql},
 * {@code V2__argument_shapes.sql} and so on ({@code jdbc.DurableSchema} lists the steps), the
 * folder named by the dialect's {@code schemaFolder()};</li>
 * <li>one subclass of the contract tests, {@code DurableCallsContractTests}, on a real server.</li>
 * </ol>
 */
@NullMarked
package io.github.wheeltimer.durable;

import org.jspecify.annotations.NullMarked;
