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
 * <h2>Where things are</h2>
 * Each package uses only the packages listed after it; each class has one owner and says in its
 * own comment which threads touch it and why the order is right.
 * <ul>
 * <li>{@code durable.engine}: {@code DurableEngine}, the lifecycle and the scheduler the
 * annotation package hands durable calls to; {@code Stopping}, the stop's drain and hand-back;
 * {@code CallWriter}, the callers' writes, applied in memory once the caller's transaction
 * commits; {@code DurableCallsAdmin}, the {@link io.github.wheeltimer.durable.DurableCalls} of
 * application code and what operators read and change.</li>
 * <li>{@code durable.cooperation}: sharing with the other instances: {@code ClaimPoller} (the poll
 * thread: deferred writes, claims within the horizon), {@code TakeOvers} (dead instances' calls,
 * and what a late call waited for), {@code CleanUp}, {@code Lease} (the heartbeat thread),
 * {@code DurableThreads}, the versions' argument shapes, the instances' view.</li>
 * <li>{@code durable.run}: a held call's run, one way ({@code RunPipeline} builds it):
 * {@code Hold} (on its wheel), {@code GateBatch} (the gates of the calls that fell due together,
 * one statement), {@code CallRunner} (decode and invoke on the method's executor, through the
 * bean's own advice), {@code RunEnd} (one outcome), {@code FinishBatch} (the rows that ran go, the
 * retries' wait); {@code HandBack} for a call any stage will not run here; {@code HeldCalls},
 * memory only.</li>
 * <li>{@code durable.arguments}: a durable method as stored: id, key, the argument codec and
 * its startup proof.</li>
 * <li>{@code durable.storage}: the repository seam and life with the database: failures
 * classified, each problem said once, writes that wait, the stop's budget.</li>
 * <li>{@code durable.jdbc}: the repositories on JDBC and the dialects.</li>
 * <li>this package: what application code uses: {@code DurableCalls}, {@code StoredCall},
 * {@code CallState}, {@code CallPage}, {@code Tries}.</li>
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
 * Storage is behind {@link io.github.wheeltimer.durable.storage.CallRepository} and
 * {@link io.github.wheeltimer.durable.storage.InstanceRepository}; their JDBC implementations in
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
