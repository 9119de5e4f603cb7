package io.github.wheeltimer.durable;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.wheeltimer.VirtualTime;
import io.github.wheeltimer.actuate.WheelTimerEndpoint;
import io.github.wheeltimer.actuate.WheelTimersDescriptor;
import io.github.wheeltimer.durable.DurableApp.Order;
import io.github.wheeltimer.durable.DurableApp.Orders;
import io.github.wheeltimer.durable.engine.DurableEngine;
import io.github.wheeltimer.durable.jdbc.DurableDialect;
import io.github.wheeltimer.durable.jdbc.DurableDialects;
import io.github.wheeltimer.durable.jdbc.DurableSchemaInitializer;
import io.github.wheeltimer.durable.jdbc.JdbcCallRepository;
import io.github.wheeltimer.durable.run.CallCounts;
import io.github.wheeltimer.durable.storage.CallRepository;
import io.github.wheeltimer.durable.storage.Requeued;
import io.github.wheeltimer.durable.storage.UnreadableCalls;
import io.micrometer.core.instrument.MeterRegistry;
import javax.sql.DataSource;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * What durable calls promise, on a real database: each subclass runs it on one (H2, PostgreSQL,
 * MariaDB through each of its two drivers).
 * Every test starts the application itself, once or several times on one database (several
 * instances, or a restart), and reads the database to see what ran.
 */
@ExtendWith(OutputCaptureExtension.class)
abstract class DurableCallsContractTests {

	/** {@link DurableApp}'s tick. */
	private static final Duration TICK = Duration.ofMillis(10);

	/** {@link Orders#cancelIfUnpaid}'s delay. */
	private static final Duration CANCEL_DELAY = Duration.ofMillis(400);

	/** The delay of {@link Orders#flaky}, {@link Orders#explode} and {@link Orders#changeItsMind}. */
	private static final Duration SHORT_DELAY = Duration.ofMillis(200);

	private final ConcurrentLinkedQueue<ConfigurableApplicationContext> started = new ConcurrentLinkedQueue<>();

	/** @return the JDBC URL of a new, empty database */
	abstract String newDatabase();

	@AfterEach
	void closeInstances() {
		this.started.forEach(ConfigurableApplicationContext::close);
	}

	ConfigurableApplicationContext start(String url, String... extra) {
		return start(new Class<?>[0], url, extra);
	}

	ConfigurableApplicationContext start(Class<?>[] hooks, String url, String... extra) {
		ConfigurableApplicationContext context = DurableApp.start(hooks, url, extra);
		this.started.add(context);
		return context;
	}

	/**
	 * Starts an instance on {@link VirtualTime}: for the tests of when a call runs, which advance
	 * its clock and assert at once. Those of how instances share calls (leases, take-overs,
	 * restarts, locks held by another transaction) run on real time, as production does.
	 */
	ConfigurableApplicationContext startOnVirtualTime(String url, String... extra) {
		return start(new Class<?>[] { VirtualTime.class }, url, extra);
	}

	@Test
	void runsOnceAfterItsDelayAndItsRowIsGone() {
		ConfigurableApplicationContext app = startOnVirtualTime(newDatabase());
		Instant calledAt = VirtualTime.now(app);
		app.getBean(Orders.class).cancelIfUnpaid("o-1", calledAt);
		assertThat(calls(app)).isEqualTo(1);
		VirtualTime.advance(app, CANCEL_DELAY.minus(TICK));
		assertThat(runs(app)).as("never before its delay").isEmpty();
		VirtualTime.advance(app, TICK);
		assertThat(runs(app)).singleElement().satisfies((run) -> {
			assertThat(instant(run.get("ran_at"))).as("on its tick").isEqualTo(calledAt.plus(CANCEL_DELAY));
			assertThat(run.get("attempt")).isEqualTo(1);
		});
		assertThat(calls(app)).isZero();
	}

	@Test
	void aRolledBackCallNeverRuns() {
		ConfigurableApplicationContext app = startOnVirtualTime(newDatabase());
		transactions(app).executeWithoutResult((status) -> {
			app.getBean(Orders.class).cancelIfUnpaid("o-1", VirtualTime.now(app));
			status.setRollbackOnly();
		});
		assertThat(calls(app)).isZero();
		VirtualTime.advance(app, Duration.ofSeconds(2));
		assertThat(runs(app)).isEmpty();
	}

	@Test
	void aCallMadeInATransactionRunsAfterTheCommitNotBefore() {
		ConfigurableApplicationContext app = startOnVirtualTime(newDatabase());
		Instant[] committing = new Instant[1];
		transactions(app).executeWithoutResult((status) -> {
			app.getBean(Orders.class).cancelIfUnpaid("o-1", VirtualTime.now(app));
			// The transaction stays open past the call's delay, and several polls.
			VirtualTime.advance(app, Duration.ofSeconds(1));
			assertThat(runs(app)).isEmpty();
			committing[0] = VirtualTime.now(app);
		});
		VirtualTime.advance(app, TICK);
		assertThat(runs(app)).singleElement()
			.satisfies((run) -> assertThat(instant(run.get("ran_at"))).isAfterOrEqualTo(committing[0]));
	}

	@Test
	void callingAgainWithTheSameKeyReplacesThePendingCall() {
		ConfigurableApplicationContext app = start(newDatabase());
		Orders orders = app.getBean(Orders.class);
		orders.remind(new Order("o-1", 100));
		orders.remind(new Order("o-1", 250));
		orders.remind(new Order("o-2", 300));
		assertThat(jdbc(app).queryForList("SELECT arguments FROM WHEEL_TIMER_CALL ORDER BY arguments", String.class))
			.containsExactly("[{\"id\":\"o-1\",\"cents\":250}]", "[{\"id\":\"o-2\",\"cents\":300}]");
	}

	@Test
	void aCallReplacedByKeyRunsOnceAtItsNewDueTime() {
		ConfigurableApplicationContext app = startOnVirtualTime(newDatabase());
		Orders orders = app.getBean(Orders.class);
		orders.cancelIfUnpaid("o-1", VirtualTime.now(app));
		VirtualTime.advance(app, Duration.ofMillis(200));
		Instant replacedAt = VirtualTime.now(app);
		orders.cancelIfUnpaid("o-1", replacedAt);
		VirtualTime.advance(app, CANCEL_DELAY.minus(TICK));
		assertThat(runs(app)).as("not at the replaced call's due time, nor before the new one").isEmpty();
		VirtualTime.advance(app, TICK);
		assertThat(runs(app)).singleElement().satisfies((run) -> {
			assertThat(instant(run.get("called_at"))).isEqualTo(replacedAt);
			assertThat(instant(run.get("ran_at"))).isEqualTo(replacedAt.plus(CANCEL_DELAY));
		});
		VirtualTime.advance(app, Duration.ofSeconds(2));
		assertThat(runs(app)).hasSize(1);
		assertThat(calls(app)).isZero();
	}

	@Test
	void anotherInstanceCancelsByKeyAndTheCallNeverRuns() {
		String url = newDatabase();
		// The instance that holds the calls on virtual time; the one that cancels them needs no clock.
		ConfigurableApplicationContext a = startOnVirtualTime(url);
		ConfigurableApplicationContext b = start(url);
		a.getBean(Orders.class).cancelIfUnpaid("near", VirtualTime.now(a));
		a.getBean(Orders.class).remind(new Order("far", 1));
		DurableCalls fromB = b.getBean(DurableCalls.class);
		assertThat(fromB.cancel("Orders.cancelIfUnpaid", "near")).isTrue();
		assertThat(fromB.cancel("orders.remind", "far")).isTrue();
		assertThat(fromB.cancel("orders.remind", "far")).isFalse();
		assertThat(calls(a)).isZero();
		VirtualTime.advance(a, Duration.ofSeconds(2));
		assertThat(runs(a)).isEmpty();
		assertThatIllegalArgumentException().isThrownBy(() -> fromB.cancel("Orders.nothing", "x"))
			.withMessageContaining("no durable delayed method with id 'Orders.nothing'")
			.withMessageContaining("orders.remind");
	}

	@Test
	void callsHandedBackAtShutdownThatFellDueWhileNoInstanceRanRunAtTheNextStart() {
		String url = newDatabase();
		// Held from birth: within a 5 s horizon.
		Duration farDelay = Duration.ofSeconds(4);
		ConfigurableApplicationContext first = start(url, "wheel-timer.durable.horizon=5s",
				DurableApp.farDelay(farDelay));
		Instant calledAt = Instant.now();
		for (int i = 0; i < 5; i++) {
			first.getBean(Orders.class).far("o-" + i, calledAt);
		}
		DurableEngine firstCalls = first.getBean(DurableEngine.class);
		// The stop keeps and runs what falls due within a poll interval (200 ms) of it: calls due
		// 4 s after they were made go back, however loaded the machine that starts the close.
		first.close();
		assertThat(firstCalls.counts().handedBack()).isEqualTo(5);
		// No instance runs while the calls fall due.
		await().atMost(Duration.ofSeconds(10))
			.until(() -> Instant.now().isAfter(calledAt.plus(farDelay).plusMillis(200)));
		ConfigurableApplicationContext second = start(url);
		awaitRuns(second, 5);
		assertThat(runs(second)).allSatisfy((run) -> assertThat(instant(run.get("ran_at")))
			.isAfterOrEqualTo(calledAt.plus(farDelay)));
		CallCounts counts = second.getBean(DurableEngine.class).counts();
		assertThat(counts.started()).isEqualTo(5);
		// Each claimed once, unless a heartbeat starved past the 1 s lease on a loaded machine: then
		// the gate refused the call (fenced), handed it back, and a later poll claimed it again.
		assertThat(counts.claimed()).isEqualTo(5 + counts.fenced());
	}

	/**
	 * A claim that commits as the connection drops: the instance never hears which rows it
	 * claimed, the database says it owns them, and no other instance takes them over while it
	 * lives. Its next polls find them held nowhere and put them back, to be claimed and run once.
	 */
	@Test
	void callsClaimedAsTheConnectionDroppedGoBackAndRunOnce() {
		Duration farDelay = Duration.ofSeconds(3);
		// Due beyond the horizon (1 s): pending rows, which a poll claims.
		ConfigurableApplicationContext app = start(new Class<?>[] { AnswerLost.class }, newDatabase(),
				DurableApp.farDelay(farDelay));
		AnswerLost answers = app.getBean(AnswerLost.class);
		answers.armClaim();
		Instant calledAt = Instant.now();
		for (int i = 0; i < 5; i++) {
			app.getBean(Orders.class).far("o-" + i, calledAt);
		}
		awaitRuns(app, 5);
		await().atMost(Duration.ofSeconds(5)).until(() -> calls(app) == 0);
		assertThat(answers.lost()).as("rows claimed by the claim whose answer was lost").isPositive();
		assertThat(runs(app)).extracting((run) -> run.get("call_id"))
			.containsExactlyInAnyOrder("o-0", "o-1", "o-2", "o-3", "o-4");
		assertThat(runs(app)).allSatisfy((run) -> assertThat(instant(run.get("ran_at")))
			.isAfterOrEqualTo(calledAt.plus(farDelay)));
		CallCounts counts = app.getBean(DurableEngine.class).counts();
		assertThat(counts.started()).isEqualTo(5);
		// The lost claim is not counted: each call counts the claim it ran after.
		assertThat(counts.claimed()).isEqualTo(5 + counts.fenced());
	}

	/**
	 * A caller's write of a call due within the horizon, so claimed here from birth, that commits
	 * as the connection drops: the caller hears that its call was not accepted, and the database
	 * says this live instance owns a row that none of its wheels holds. The next polls find it held
	 * nowhere and put it back: it runs once, at its time or a few polls after, not only when this
	 * instance stops and hands back what it owns.
	 */
	@Test
	void aCallWrittenAsTheConnectionDroppedRunsOnceWithoutWaitingForTheInstancesStop(CapturedOutput output) {
		ConfigurableApplicationContext app = start(new Class<?>[] { AnswerLost.class }, newDatabase());
		app.getBean(AnswerLost.class).armInsert();
		Instant calledAt = Instant.now();
		assertThatExceptionOfType(DataAccessResourceFailureException.class)
			.isThrownBy(() -> app.getBean(Orders.class).cancelIfUnpaid("answer-lost", calledAt))
			.withMessageContaining("was not accepted: its database cannot be reached");
		// Claimed here from birth, then put back: not a pending row that any poll would have claimed.
		await().atMost(Duration.ofSeconds(10)).until(() -> output.getOut().contains("Put back 1 durable call claimed"));
		awaitRuns(app, 1);
		await().atMost(Duration.ofSeconds(5)).until(() -> calls(app) == 0);
		assertThat(runs(app)).singleElement().satisfies((run) -> {
			assertThat(run.get("call_id")).isEqualTo("answer-lost");
			assertThat(instant(run.get("ran_at"))).isAfterOrEqualTo(calledAt.plusMillis(400));
		});
		CallCounts counts = app.getBean(DurableEngine.class).counts();
		// Counted as its caller was told: not scheduled; then claimed by the poll that took it back.
		assertThat(counts.scheduled()).isZero();
		assertThat(counts.started()).isEqualTo(1);
		assertThat(counts.claimed()).isEqualTo(1 + counts.fenced());
	}

	/**
	 * The close comes while a poll waits at its claim statement. Were that claim to run after the
	 * stop's bulk release, it would take the released rows back (pending, within the horizon) onto
	 * a stopping instance, whose second release would hand them back, and count them, once more:
	 * CI once saw 7 hand-backs for 5 calls.
	 */
	@Test
	void aPollInProgressAtTheCloseClaimsNothingTheStopHandsBackSoEachCallGoesBackOnce() throws Exception {
		String url = newDatabase();
		// Due in 8 s, within a 10 s horizon: held from birth, and far from the stop's poll interval.
		ConfigurableApplicationContext first = start(new Class<?>[] { PollClaimingAtTheStop.class }, url,
				"wheel-timer.durable.horizon=10s");
		for (int i = 0; i < 5; i++) {
			first.getBean(Orders.class).expire("o-" + i);
		}
		DurableEngine firstCalls = first.getBean(DurableEngine.class);
		assertThat(firstCalls.held()).isEqualTo(5);
		PollClaimingAtTheStop race = first.getBean(PollClaimingAtTheStop.class);
		race.arm();
		race.awaitClaiming();
		first.close();
		CallCounts counts = firstCalls.counts();
		assertThat(counts.handedBack()).isEqualTo(5);
		assertThat(counts.claimed()).isZero();
		assertThat(jdbc(new JdbcTemplate(TestDatabases.dataSource(url)))).hasSize(5).allSatisfy((row) -> {
			assertThat(row.get("state")).isEqualTo("PENDING");
			assertThat(row.get("owner_id")).isNull();
		});
	}

	@Test
	void aCallMadeBeforeARestartIsCancelledByKeyAfterIt() {
		String url = newDatabase();
		ConfigurableApplicationContext first = start(url);
		first.getBean(Orders.class).remind(new Order("o-1", 100));
		first.close();
		ConfigurableApplicationContext second = start(url);
		assertThat(second.getBean(DurableCalls.class).cancel("orders.remind", "o-1")).isTrue();
		assertThat(calls(second)).isZero();
	}

	@Test
	void afterACrashTheCallsOfTheDeadInstanceAreTakenOverOnceItsLeaseRunsOut() {
		String url = newDatabase();
		ConfigurableApplicationContext app = start(url);
		JdbcTemplate jdbc = jdbc(app);
		// A dead instance: it claimed one call and was running another when it died.
		UUID dead = UUID.randomUUID();
		insertInstance(jdbc, dead, "dead", Instant.now(), "orders.far");
		insertRow(jdbc, "orders.far", "[\"claimed\",null]", "CLAIMED", dead, 0);
		insertRow(jdbc, "orders.far", "[\"running\",null]", "RUNNING", dead, 1);
		awaitRuns(app, 2);
		assertThat(runs(app)).extracting((run) -> run.get("call_id") + "#" + run.get("attempt"))
			.containsExactlyInAnyOrder("claimed#1", "running#2");
		assertThat(app.getBean(DurableEngine.class).counts().takenOver()).isEqualTo(2);
	}

	@Test
	void aTakeOverSkipsARowLockedByAnOpenTransactionInsteadOfWaitingForIt() throws Exception {
		String url = newDatabase();
		ConfigurableApplicationContext app = start(url);
		JdbcTemplate jdbc = jdbc(app);
		UUID dead = UUID.randomUUID();
		insertInstance(jdbc, dead, "dead", Instant.now(), "orders.far");
		insertRow(jdbc, "orders.far", "[\"free\",null]", "CLAIMED", dead, 0);
		insertRow(jdbc, "orders.far", "[\"locked\",null]", "RUNNING", dead, 1);
		// A transaction that stays open on the second row: the dead instance's own finish, frozen
		// before its commit, say.
		// By its id, as that finish would: an update that scans the table locks every row it reads
		// on InnoDB (REPEATABLE READ), not only those it changes.
		String lockedId = jdbc.queryForObject("SELECT id FROM WHEEL_TIMER_CALL WHERE arguments LIKE '%locked%'",
				String.class);
		try (Connection locking = app.getBean(DataSource.class).getConnection()) {
			locking.setAutoCommit(false);
			try (PreparedStatement statement = locking
				.prepareStatement("UPDATE WHEEL_TIMER_CALL SET last_error = 'locked' WHERE id = ?")) {
				statement.setObject(1, dialect(jdbc).id(UUID.fromString(lockedId)));
				statement.executeUpdate();
			}
			awaitRuns(app, 1);
			assertThat(runs(app)).extracting((run) -> run.get("call_id")).containsExactly("free");
			locking.rollback();
		}
		awaitRuns(app, 2);
		assertThat(runs(app)).extracting((run) -> run.get("call_id") + "#" + run.get("attempt"))
			.containsExactlyInAnyOrder("free#1", "locked#2");
	}

	@Test
	void aBacklogOfDueCallsIsSharedWithAnInstanceThatJoinsInsteadOfHoardedByTheFirstToPoll() {
		String url = newDatabase();
		// A 5 s lease: the first instance's executor threads wait on the latch while the second starts,
		// and a heartbeat starved past the suite's 1 s would let their running calls be taken over.
		ConfigurableApplicationContext first = start(url, "wheel-timer.durable.batch-size=50",
				"wheel-timer.durable.lease=5s");
		JdbcTemplate jdbc = jdbc(first);
		Orders.queueMayMove = new CountDownLatch(1);
		try {
			// Calls that fell due while no instance ran, say: a backlog of eight batches.
			for (int i = 0; i < 400; i++) {
				insertRow(jdbc, "orders.queued", "[\"q-" + i + "\"]", "PENDING", null, 0);
			}
			DurableEngine firstCalls = first.getBean(DurableEngine.class);
			await().atMost(Duration.ofSeconds(10)).until(() -> firstCalls.counts().claimed() >= 50);
			ConfigurableApplicationContext second = start(url, "wheel-timer.durable.batch-size=50",
				"wheel-timer.durable.lease=5s");
			DurableEngine secondCalls = second.getBean(DurableEngine.class);
			await().atMost(Duration.ofSeconds(10)).until(() -> secondCalls.counts().claimed() >= 50);
			// The first instance's executor (8 threads) is stuck on its first calls: it stopped claiming
			// once a batch waited, so it holds at most two batches less one, plus the 8 started.
			assertThat(firstCalls.counts().claimed()).isLessThanOrEqualTo(2 * 50 - 1 + 8);
			Orders.queueMayMove.countDown();
			awaitRuns(first, 400);
			assertThat(runs(first)).extracting((run) -> run.get("call_id")).doesNotHaveDuplicates().hasSize(400);
			// Counted as their rows go, in batches.
			await().atMost(Duration.ofSeconds(5))
				.until(() -> firstCalls.counts().ran() + secondCalls.counts().ran() == 400);
			assertThat(secondCalls.counts().ran()).isPositive();
		}
		finally {
			Orders.queueMayMove.countDown();
		}
	}

	/**
	 * Written a few polls ahead (the horizon is 3 s, polls every 200 ms): the first instance to see
	 * the burst claims its share, not the whole of it, and the other claims the rest before it is
	 * due. The old claim, everything within the horizon, gave one instance all of it.
	 */
	@Test
	void twoInstancesShareABurstDueAtOneInstantAndRunItOnTime() {
		String url = newDatabase();
		// a shares with the instances whose heartbeat is within the lease: with the suite's 1 s, a loaded
		// machine that starved b's heartbeats for a second let a count itself alone and, rightly, claim
		// the whole burst. And b must poll once between the burst's entry into the horizon and a's poll
		// just before its due time, which claims what is left: 2.75 s with a 3 s horizon, not 0.75 s.
		// The calls are written beyond the horizon (pending, not held by a from birth), then moved.
		String[] sharing = { "wheel-timer.durable.lease=5s", "wheel-timer.durable.horizon=3s", "test.burst-delay=10s" };
		ConfigurableApplicationContext a = start(url, sharing);
		ConfigurableApplicationContext b = start(url, sharing);
		int count = 600;
		Orders orders = a.getBean(Orders.class);
		// Due 5 s after the last write, not after the first: on a loaded machine the 600 writes take
		// seconds, and a burst committed already within a poll of its due time is, rightly, claimed
		// whole by the first instance to see it.
		Instant due = transactions(a).execute((status) -> {
			for (int i = 0; i < count; i++) {
				orders.burst("b-" + i);
			}
			Instant at = Instant.now().plusMillis(5000);
			jdbc(a).update("UPDATE WHEEL_TIMER_CALL SET due_at = ? WHERE method_id = 'orders.burst'",
					dialect(jdbc(a)).instant(at));
			return at;
		});
		assertThat(due).isNotNull();
		awaitRuns(a, count);
		assertThat(runs(a)).hasSize(count).allSatisfy((run) -> {
			Instant ranAt = instant(run.get("ran_at"));
			assertThat(ranAt).as("never early").isAfterOrEqualTo(due);
			assertThat(ranAt).as("on its tick, give or take a loaded machine").isBefore(due.plusSeconds(3));
		});
		// Counted as their rows go, in batches.
		await().atMost(Duration.ofSeconds(5)).until(() -> a.getBean(DurableEngine.class).counts().ran()
				+ b.getBean(DurableEngine.class).counts().ran() == count);
		CallCounts byA = a.getBean(DurableEngine.class).counts();
		CallCounts byB = b.getBean(DurableEngine.class).counts();
		assertThat(Math.min(byA.ran(), byB.ran()))
			.as("the smaller share of %s / %s (claimed %s / %s)", byA.ran(), byB.ran(), byA.claimed(), byB.claimed())
			.isGreaterThanOrEqualTo(count * 3 / 10);
		await().atMost(Duration.ofSeconds(5)).until(() -> calls(a) == 0);
	}

	/**
	 * The gates of the calls that fall due together are one statement: the row an open transaction
	 * holds is skipped, not waited for, and its call tries again once that transaction ended.
	 */
	@Test
	void aCallersOpenTransactionOnOneDueCallsRowHoldsUpNoOtherCallDueWithIt() throws Exception {
		ConfigurableApplicationContext app = start(newDatabase());
		Orders orders = app.getBean(Orders.class);
		CountDownLatch locked = new CountDownLatch(1);
		CountDownLatch othersRan = new CountDownLatch(1);
		ExecutorService caller = Executors.newSingleThreadExecutor();
		try {
			orders.cancelIfUnpaid("locked", Instant.now());
			Object id = jdbc(app).queryForObject("SELECT id FROM WHEEL_TIMER_CALL WHERE call_key = 'locked'", Object.class);
			Future<?> open = caller.submit(() -> transactions(app).executeWithoutResult((status) -> {
				// By its primary key: InnoDB's REPEATABLE READ would lock the key index's gaps too, and
				// hold up the callers' inserts of the other keys.
				jdbc(app).update("UPDATE WHEEL_TIMER_CALL SET attempts = attempts WHERE id = ?", id);
				locked.countDown();
				try {
					othersRan.await(20, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}));
			assertThat(locked.await(10, TimeUnit.SECONDS)).isTrue();
			for (int i = 0; i < 5; i++) {
				orders.cancelIfUnpaid("free-" + i, Instant.now());
			}
			awaitRuns(app, 5);
			assertThat(runs(app)).extracting((run) -> run.get("call_id")).doesNotContain("locked");
			othersRan.countDown();
			open.get(10, TimeUnit.SECONDS);
			awaitRuns(app, 6);
			assertThat(runs(app)).filteredOn((run) -> "locked".equals(run.get("call_id")))
				.singleElement()
				.satisfies((run) -> assertThat(run.get("attempt")).isEqualTo(1));
			assertThat(app.getBean(DurableEngine.class).counts().fenced()).isZero();
		}
		finally {
			othersRan.countDown();
			caller.shutdownNow();
		}
	}

	/** A call whose gate passed but that did not run here (its executor refused it) goes back as it was. */
	@Test
	void aCallHandedBackAfterItsGateGetsItsKeyAndItsAttemptBack() {
		ConfigurableApplicationContext app = start(newDatabase());
		CallRepository repository = app.getBean(CallRepository.class);
		UUID me = app.getBean(DurableEngine.class).instance();
		UUID id = UUID.randomUUID();
		repository.insert(id, "orders.far", "k-1", "[\"k-1\",null]", Instant.now().plusSeconds(60), me, null, "");
		assertThat(repository.start(id, me)).isTrue();
		assertThat(repository.handBackAfterGate(id, me, 1)).isTrue();
		Map<String, Object> row = jdbc(jdbc(app)).get(0);
		assertThat(row.get("state")).isEqualTo("PENDING");
		assertThat(((Number) row.get("attempts")).intValue()).isZero();
		assertThat(repository.cancel("orders.far", "k-1")).as("cancelled by its key").isTrue();
		assertThat(calls(app)).isZero();
	}

	@Test
	void twoInstancesRunEachCallOnce() throws Exception {
		String url = newDatabase();
		ConfigurableApplicationContext a = start(url);
		ConfigurableApplicationContext b = start(url);
		int callsPerInstance = 150;
		ExecutorService callers = Executors.newFixedThreadPool(4);
		CountDownLatch done = new CountDownLatch(4);
		Instant calledAt = Instant.now();
		for (int t = 0; t < 4; t++) {
			int thread = t;
			callers.execute(() -> {
				Orders orders = ((thread % 2 == 0) ? a : b).getBean(Orders.class);
				for (int i = 0; i < callsPerInstance / 2; i++) {
					// Due beyond the horizon: left pending, and claimed by whichever instance polls first.
					orders.far("t" + thread + "-" + i, calledAt);
				}
				done.countDown();
			});
		}
		assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
		callers.shutdown();
		awaitRuns(a, 2 * callsPerInstance);
		await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(3)).until(() -> calls(a) == 0);
		assertThat(runs(a)).hasSize(2 * callsPerInstance)
			.allSatisfy((run) -> assertThat(instant(run.get("ran_at"))).isAfterOrEqualTo(calledAt.plusMillis(1500)));
		await().atMost(Duration.ofSeconds(5)).until(() -> a.getBean(DurableEngine.class).counts().ran()
				+ b.getBean(DurableEngine.class).counts().ran() == 2 * callsPerInstance);
		assertThat(a.getBean(DurableEngine.class).counts().failed() + b.getBean(DurableEngine.class).counts().failed())
			.isZero();
	}

	@Test
	void aFutureCompletesWhenTheCallRunsHereAndCancellingItCancelsTheCall() throws Exception {
		ConfigurableApplicationContext app = startOnVirtualTime(newDatabase());
		Orders orders = app.getBean(Orders.class);
		CompletableFuture<String> ran = orders.quote("o-1");
		CompletableFuture<String> cancelled = orders.quote("o-2");
		assertThat(cancelled.cancel(false)).isTrue();
		VirtualTime.advance(app, Duration.ofMillis(300).minus(TICK));
		assertThat(ran).isNotDone();
		VirtualTime.advance(app, TICK);
		assertThat(ran).isCompletedWithValue("quote for o-1");
		VirtualTime.advance(app, Duration.ofSeconds(2));
		assertThat(runs(app)).hasSize(1);
		assertThat(calls(app)).isZero();
	}

	@Test
	void aCallThatThrowsKeepsItsRowAsFailedWithTheError() {
		ConfigurableApplicationContext app = startOnVirtualTime(newDatabase());
		app.getBean(Orders.class).explode("o-1");
		VirtualTime.advance(app, SHORT_DELAY);
		assertThat(jdbc(app).queryForList("SELECT state FROM WHEEL_TIMER_CALL", String.class)).containsExactly("FAILED");
		assertThat(jdbc(app).queryForObject("SELECT last_error FROM WHEEL_TIMER_CALL", String.class))
			.isEqualTo("java.lang.IllegalStateException: boom for o-1");
		assertThat(app.getBean(DurableEngine.class).admin().report(10).failed()).singleElement()
			.satisfies((failed) -> assertThat(failed.methodId()).isEqualTo("Orders.explode"));
	}

	@Test
	void aTransactionalCallThatRollsItselfBackStillEndsItsRow() {
		ConfigurableApplicationContext app = startOnVirtualTime(newDatabase());
		app.getBean(Orders.class).changeItsMind("o-1");
		VirtualTime.advance(app, SHORT_DELAY);
		assertThat(app.getBean(DurableEngine.class).counts().ran()).isOne();
		// Its effects rolled back with its transaction, and the row was finished on its own.
		assertThat(calls(app)).isZero();
		assertThat(runs(app)).isEmpty();
	}

	/** Its own version wrote it, and cannot read it: changed by hand, no version reads it. */
	@Test
	void anUnreadableRowIsMarkedFailedAndDoesNotBlockTheOthers() {
		ConfigurableApplicationContext app = start(newDatabase());
		JdbcTemplate jdbc = jdbc(app);
		String shape = app.getBean(DurableEngine.class).shape("orders.far");
		insertRow(jdbc, "orders.far", "[\"bad\",\"not an instant\"]", "PENDING", null, 0, shape);
		insertRow(jdbc, "orders.far", "[\"good\",null]", "PENDING", null, 0, shape);
		awaitRuns(app, 1);
		await().atMost(Duration.ofSeconds(5))
			.until(() -> jdbc.queryForList("SELECT last_error FROM WHEEL_TIMER_CALL WHERE state = 'FAILED'",
					String.class), (errors) -> errors.size() == 1);
		assertThat(jdbc.queryForObject("SELECT last_error FROM WHEEL_TIMER_CALL", String.class))
			.startsWith("unreadable: the arguments cannot be read as this version's parameter types: parameter 1"
					+ " (java.time.Instant): the row holds the string \"not an instant\", which this version reads as"
					+ " java.time.Instant");
		assertThat(runs(app)).extracting((run) -> run.get("call_id")).containsExactly("good");
	}

	@Test
	void aRowOfAMethodNoInstanceKnowsWaitsAndIsReported() {
		ConfigurableApplicationContext app = start(newDatabase());
		JdbcTemplate jdbc = jdbc(app);
		insertRow(jdbc, "Renamed.method", "[]", "PENDING", null, 0);
		insertRow(jdbc, "orders.far", "[\"known\",null]", "PENDING", null, 0);
		awaitRuns(app, 1);
		await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(3))
			.until(() -> jdbc.queryForObject("SELECT state FROM WHEEL_TIMER_CALL WHERE method_id = 'Renamed.method'",
					String.class), "PENDING"::equals);
		assertThat(app.getBean(DurableEngine.class).admin().report(10).unknownMethods()).singleElement()
			.satisfies((unknown) -> assertThat(unknown.name()).isEqualTo("Renamed.method"));
	}

	@Test
	void aStoppingInstanceRunsTheCallsDueWithinAPollItselfAndHandsTheRestBackAtOnce() {
		String url = newDatabase();
		// The stopping instance holds its calls from birth (a 10 s horizon) and polls every second.
		// The far calls are due 4 s after a poll interval: a loaded machine's slow start of the
		// close still finds them to hand back.
		Duration farDelay = Duration.ofSeconds(5);
		String farDelaySetting = DurableApp.farDelay(farDelay);
		ConfigurableApplicationContext stopping = start(url, "wheel-timer.durable.horizon=10s",
				"wheel-timer.durable.poll-interval=1s", "wheel-timer.durable.lease=10s", farDelaySetting);
		ConfigurableApplicationContext other = start(url, "wheel-timer.durable.lease=10s", farDelaySetting);
		Orders orders = stopping.getBean(Orders.class);
		Instant calledAt = Instant.now();
		for (int i = 0; i < 10; i++) {
			orders.cancelIfUnpaid("near-" + i, calledAt);
			orders.far("far-" + i, calledAt);
		}
		DurableEngine stoppingCalls = stopping.getBean(DurableEngine.class);
		// The far calls at least: a near one may have run already on a loaded machine.
		assertThat(stoppingCalls.held()).isBetween(10, 20);
		stopping.close();
		// Due within its poll interval (400 ms): they started before the close returned, on their tick.
		assertThat(stoppingCalls.counts().started()).isEqualTo(10);
		assertThat(stoppingCalls.counts().handedBack()).isEqualTo(10);
		// Due in 5 s: back in the database at once, and run by the other instance on time, not a
		// lease (10 s) later.
		awaitRuns(other, 20);
		await().atMost(Duration.ofSeconds(5)).until(() -> other.getBean(DurableEngine.class).counts().ran() == 10);
		assertThat(runs(other)).hasSize(20).allSatisfy((run) -> {
			Duration delay = "far".equals(run.get("method")) ? farDelay : CANCEL_DELAY;
			Instant due = instant(run.get("called_at")).plus(delay);
			assertThat(instant(run.get("ran_at"))).isAfterOrEqualTo(due).isBefore(due.plusSeconds(3));
		});
	}

	@Test
	void aTransactionalCallTakenOverWhileItRanCommitsOnlyTheRunThatOwnsItsRow() throws Exception {
		ConfigurableApplicationContext app = start(newDatabase());
		JdbcTemplate jdbc = jdbc(app);
		Orders.firstAttemptMayEnd = new CountDownLatch(1);
		try {
			app.getBean(Orders.class).slow("s-1");
			await().atMost(Duration.ofSeconds(10))
				.until(() -> "RUNNING".equals(jdbc.queryForObject("SELECT MAX(state) FROM WHEEL_TIMER_CALL", String.class)));
			// What a take-over does once this instance's lease ran out while the first attempt ran (a
			// long pause): the row is pending again, and the next poll starts a second attempt.
			jdbc.update("UPDATE WHEEL_TIMER_CALL SET state = 'PENDING', owner_id = NULL");
			await().atMost(Duration.ofSeconds(10))
				.until(() -> runs(app).stream().anyMatch((run) -> "s-1#2".equals(run.get("call_id"))));
		}
		finally {
			Orders.firstAttemptMayEnd.countDown();
		}
		DurableEngine calls = app.getBean(DurableEngine.class);
		await().atMost(Duration.ofSeconds(10)).until(() -> calls.counts().fenced() == 1);
		// The first attempt's own transaction was rolled back: its effects never happened.
		assertThat(runs(app)).extracting((run) -> run.get("call_id")).containsExactly("s-1#2");
		assertThat(calls.counts().ran()).isEqualTo(1);
		assertThat(calls.counts().failed()).isZero();
		assertThat(calls.counts().suspectedDuplicates()).isEqualTo(1);
		assertThat(calls(app)).isZero();
	}

	@Test
	void aTransactionalCallWhoseEndTheDatabaseFailsRollsBackAndRunsAgainRatherThanFails() {
		// The first run's end is a deadlock: its run rolls back with it, and the call goes back.
		assertRunsOnceAfterItsFirstTransactionFailed(FinishRefusedOnce.class);
	}

	@Test
	void aTransactionalCallWhoseTransactionCannotBeginIsHandedBackAndRunsOnceTheDatabaseAnswers() {
		assertRunsOnceAfterItsFirstTransactionFailed(TransactionFailsOnce.AtBegin.class);
	}

	@Test
	void aTransactionalCallWhoseCommitTheDatabaseFailsRollsBackAndRunsAgainRatherThanFails() {
		assertRunsOnceAfterItsFirstTransactionFailed(TransactionFailsOnce.AtCommit.class);
	}

	@Test
	void aTransactionalCallWhoseCommitAndThenRollbackTheDatabaseFailsRunsAgainRatherThanFails() {
		assertRunsOnceAfterItsFirstTransactionFailed(TransactionFailsOnce.AtCommitThenRollback.class);
	}

	@Test
	void aTransactionalCallWhoseEndAndThenRollbackTheDatabaseFailsRunsAgainRatherThanFails() {
		assertRunsOnceAfterItsFirstTransactionFailed(FinishRefusedOnce.class, TransactionFailsOnce.AtRollback.class);
	}

	/**
	 * The first transaction of a call's method fails where the database's moment leaves nothing of
	 * the method: the call goes back, not counted as an attempt, and runs once, whole.
	 * @param failure the hooks that fail it: beans of the application
	 */
	private void assertRunsOnceAfterItsFirstTransactionFailed(Class<?>... failure) {
		ConfigurableApplicationContext app = start(failure, newDatabase());
		DurableEngine calls = app.getBean(DurableEngine.class);
		app.getBean(Orders.class).cancelIfUnpaid("o-1", Instant.now());
		await().atMost(Duration.ofSeconds(10)).until(() -> calls.counts().ran() == 1);
		await().atMost(Duration.ofSeconds(5)).until(() -> calls(app) == 0);
		assertThat(runs(app)).singleElement().satisfies((run) -> {
			assertThat(run.get("call_id")).isEqualTo("o-1");
			assertThat(run.get("attempt")).as("the failed transaction was not an attempt").isEqualTo(1);
		});
		CallCounts counts = calls.counts();
		assertThat(counts.started()).isEqualTo(2);
		assertThat(counts.handedBack()).isOne();
		assertThat(counts.failed()).isZero();
		assertThat(counts.suspectedDuplicates()).isZero();
	}

	@Test
	void aKeyThatIsNullFailsInTheCallersThread() {
		ConfigurableApplicationContext app = start(newDatabase());
		assertThatIllegalArgumentException().isThrownBy(() -> app.getBean(Orders.class).cancelIfUnpaid(null, null))
			.withMessageContaining("\"#orderId\"")
			.withMessageContaining("Orders.cancelIfUnpaid(String, Instant)")
			.withMessageContaining("evaluated to null");
		assertThat(calls(app)).isZero();
	}

	@Test
	void aFailedCallKeepsItsKeyAndARequeueGivesItBackSoThatItCanBeCancelledByKey() {
		ConfigurableApplicationContext app = start(newDatabase());
		DurableEngine durable = app.getBean(DurableEngine.class);
		app.getBean(Orders.class).remind(new Order("o-1", -1));
		dueNow(app);
		await().atMost(Duration.ofSeconds(10)).until(() -> durable.counts().failed() == 1);
		assertThat(durable.admin().failedCalls(null, 10)).singleElement().satisfies((failed) -> {
			assertThat(failed.key()).isEqualTo("o-1");
			assertThat(failed.error()).isEqualTo("java.lang.IllegalArgumentException: no reminder for a refund of order o-1");
		});
		// Re-queued and cancelled in one transaction: no poll may start it in between.
		Boolean cancelled = transactions(app).execute((status) -> {
			assertThat(durable.admin().requeueFailed("orders.remind").requeued()).isEqualTo(1);
			return app.getBean(DurableCalls.class).cancel("orders.remind", "o-1");
		});
		assertThat(cancelled).isTrue();
		assertThat(calls(app)).isZero();
	}

	@Test
	void aCallThatFailsWhenRunAgainAfterATakeOverStillHasItsKey() {
		ConfigurableApplicationContext app = start(newDatabase());
		JdbcTemplate jdbc = jdbc(app);
		// A dead instance was running it, keyed "o-9", when it died: it runs again here, and fails.
		UUID dead = UUID.randomUUID();
		insertInstance(jdbc, dead, "dead", Instant.now(), "orders.remind");
		DurableDialect dialect = dialect(jdbc);
		jdbc.update("INSERT INTO WHEEL_TIMER_CALL (id, method_id, arguments, due_at, state, owner_id, attempts,"
				+ " started_key) VALUES (?, 'orders.remind', ?, ?, 'RUNNING', ?, 1, 'o-9')", dialect.id(UUID.randomUUID()),
				"[{\"id\":\"o-9\",\"cents\":-1}]", dialect.instant(Instant.now().minusSeconds(1)), dialect.id(dead));
		DurableEngine durable = app.getBean(DurableEngine.class);
		await().atMost(Duration.ofSeconds(10)).until(() -> durable.counts().failed() == 1);
		assertThat(durable.admin().failedCalls(null, 10)).singleElement().satisfies((failed) -> {
			assertThat(failed.key()).isEqualTo("o-9");
			assertThat(failed.attempts()).isEqualTo(2);
		});
	}

	@Test
	void aFailedCallWhoseKeyANewCallTookStaysFailedWhenRequeued() {
		ConfigurableApplicationContext app = start(newDatabase());
		DurableEngine durable = app.getBean(DurableEngine.class);
		Orders orders = app.getBean(Orders.class);
		orders.remind(new Order("o-2", -1));
		orders.remind(new Order("o-3", -1));
		dueNow(app);
		await().atMost(Duration.ofSeconds(10)).until(() -> durable.counts().failed() == 2);
		// A new call with the key of a failed one: it would have replaced that one, had it been pending.
		orders.remind(new Order("o-2", 5));
		Requeued requeued = transactions(app).execute((status) -> {
			Requeued done = durable.admin().requeueFailed(null);
			assertThat(app.getBean(DurableCalls.class).cancel("orders.remind", "o-3")).isTrue();
			return done;
		});
		assertThat(requeued.requeued()).isEqualTo(1);
		assertThat(requeued.keyHeld()).singleElement().satisfies((left) -> assertThat(left.key()).isEqualTo("o-2"));
		assertThat(jdbc(app).queryForList("SELECT CONCAT(state, ' ', arguments) FROM WHEEL_TIMER_CALL ORDER BY state",
				String.class))
			.containsExactly("FAILED [{\"id\":\"o-2\",\"cents\":-1}]", "PENDING [{\"id\":\"o-2\",\"cents\":5}]");
	}

	@Test
	void aFailureWhoseMessageHoldsANulCharacterIsStoredAndTheInstanceGoesOn() {
		ConfigurableApplicationContext app = start(newDatabase());
		Orders orders = app.getBean(Orders.class);
		orders.explode("o-\u0000");
		Instant calledAt = Instant.now();
		orders.cancelIfUnpaid("canary-near", calledAt);
		orders.far("canary-far", calledAt);
		awaitRuns(app, 2);
		assertThat(runs(app)).extracting((run) -> run.get("call_id")).containsExactly("canary-near", "canary-far");
		assertThat(jdbc(app).queryForObject("SELECT last_error FROM WHEEL_TIMER_CALL WHERE state = 'FAILED'", String.class))
			.isEqualTo("java.lang.IllegalStateException: boom for o-\\0");
		assertThat(app.getBean(DurableEngine.class).problem()).isNull();
	}

	@Test
	void aRowWhoseErrorTheDatabaseRefusesIsFailedWithoutItAndTheOtherCallsRun() {
		ConfigurableApplicationContext app = start(newDatabase());
		jdbc(app).execute("ALTER TABLE WHEEL_TIMER_CALL ADD CONSTRAINT no_poison"
				+ " CHECK (last_error IS NULL OR last_error NOT LIKE '%poison%')");
		Orders orders = app.getBean(Orders.class);
		orders.explode("poison");
		await().atMost(Duration.ofSeconds(10))
			.until(() -> jdbc(app).queryForList("SELECT state FROM WHEEL_TIMER_CALL", String.class),
					(states) -> states.equals(List.of("FAILED")));
		assertThat(jdbc(app).queryForObject("SELECT last_error FROM WHEEL_TIMER_CALL", String.class))
			.isEqualTo("the database refused the error's text; it is in the log of the instance that ran the call"
					+ " (java.lang.IllegalStateException)");
		// Claims, near calls and far ones, go on.
		Instant calledAt = Instant.now();
		orders.cancelIfUnpaid("canary-near", calledAt);
		orders.far("canary-far", calledAt);
		awaitRuns(app, 2);
		assertThat(runs(app)).extracting((run) -> run.get("call_id")).containsExactly("canary-near", "canary-far");
		assertThat(app.getBean(DurableEngine.class).problem()).isNull();
	}

	@Test
	void aRestartedInstanceWithAStableNameTakesItsPreviousRunsCallsAtOnce() {
		String url = newDatabase();
		ConfigurableApplicationContext app = start(url, "wheel-timer.durable.instance-name=shop-0",
				"wheel-timer.durable.lease=20s");
		JdbcTemplate jdbc = jdbc(app);
		// Its previous run, killed 12 s ago while it held one call and ran another: its heartbeat is
		// older than half the lease, and its lease (20 s) not over. The new start finds its row.
		UUID previous = UUID.randomUUID();
		insertInstance(jdbc, previous, "shop-0", Instant.now().minusSeconds(12), "orders.far");
		insertRow(jdbc, "orders.far", "[\"claimed\",null]", "CLAIMED", previous, 0);
		insertRow(jdbc, "orders.far", "[\"running\",null]", "RUNNING", previous, 1);
		app.close();
		ConfigurableApplicationContext restarted = start(url, "wheel-timer.durable.instance-name=shop-0",
				"wheel-timer.durable.lease=20s");
		await().atMost(Duration.ofSeconds(10)).until(() -> runs(restarted).size() >= 2);
		assertThat(runs(restarted)).extracting((run) -> run.get("call_id") + "#" + run.get("attempt"))
			.containsExactlyInAnyOrder("claimed#1", "running#2");
		assertThat(restarted.getBean(DurableEngine.class).counts().takenOver()).isEqualTo(2);
		assertThat(jdbc(restarted).queryForList("SELECT id FROM WHEEL_TIMER_INSTANCE", String.class))
			.containsExactly(restarted.getBean(DurableEngine.class).instance().toString());
	}

	@Test
	void anInstanceWithAConfiguredNameNeverTakesItsOwnRowForAnotherInstanceOfThatName(CapturedOutput output) {
		ConfigurableApplicationContext app = start(newDatabase(), "wheel-timer.durable.instance-name=shop-0",
				"wheel-timer.durable.heartbeat-interval=200ms", "wheel-timer.durable.lease=2s",
				"wheel-timer.durable.poll-interval=200ms");
		// Its own row beats several times after it has been connected for two beats: taken for a
		// predecessor, it would say another live instance has its name.
		await().during(Duration.ofSeconds(2))
			.atMost(Duration.ofSeconds(5))
			.until(() -> !output.getOut().contains("Another live instance is named"));
		assertThat(app.getBean(DurableEngine.class).counts().takenOver()).isZero();
	}

	@Test
	void twoLiveInstancesSharingANameKeepTheirOwnCalls(CapturedOutput output) {
		String url = newDatabase();
		// A 10 s lease: the second instance takes over a predecessor whose heartbeat is half a lease old,
		// which a's, starved for 2 s on a loaded machine, would have been with a 4 s one.
		String[] shop = { "wheel-timer.durable.instance-name=shop", "wheel-timer.durable.lease=10s",
				"wheel-timer.durable.horizon=5s", "wheel-timer.durable.poll-interval=1s" };
		ConfigurableApplicationContext a = start(url, shop);
		// Held by the first instance from birth (due within its horizon) while the second starts.
		Instant calledAt = Instant.now();
		for (int i = 0; i < 5; i++) {
			a.getBean(Orders.class).far("far-" + i, calledAt);
		}
		ConfigurableApplicationContext b = start(url, shop);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> output.getOut().contains("Another live instance is named 'shop', as this one"));
		awaitRuns(a, 5);
		assertThat(b.getBean(DurableEngine.class).counts().takenOver()).isZero();
		await().atMost(Duration.ofSeconds(5)).until(() -> a.getBean(DurableEngine.class).counts().ran() == 5);
		assertThat(a.getBean(DurableEngine.class).counts().fenced()).isZero();
		assertThat(jdbc(a).queryForList("SELECT name FROM WHEEL_TIMER_INSTANCE", String.class)).containsExactly("shop",
				"shop");
	}

	@Test
	void instancesStartingAtTheSameMomentCreateTheTablesWithoutTrippingOverEachOther() throws Exception {
		// What several replicas starting at once do with initialize-schema=always: PostgreSQL's
		// CREATE ... IF NOT EXISTS is not safe against a concurrent one, hence the dialect's lock.
		int instances = 4;
		ExecutorService starting = Executors.newFixedThreadPool(instances);
		try {
			for (int round = 0; round < 3; round++) {
				String url = newDatabase();
				CyclicBarrier together = new CyclicBarrier(instances);
				List<Future<Boolean>> initialized = new ArrayList<>();
				for (int i = 0; i < instances; i++) {
					initialized.add(starting.submit(() -> {
						DataSource dataSource = TestDatabases.dataSource(url);
						together.await(10, TimeUnit.SECONDS);
						return new DurableSchemaInitializer(dataSource, TestDatabases.dialect(url),
								DatabaseInitializationMode.ALWAYS, "WHEEL_TIMER_", Duration.ofSeconds(30))
							.initializeDatabase();
					}));
				}
				for (Future<Boolean> outcome : initialized) {
					assertThat(outcome.get(30, TimeUnit.SECONDS)).isTrue();
				}
				assertThat(new JdbcTemplate(TestDatabases.dataSource(url))
					.queryForObject("SELECT COUNT(*) FROM WHEEL_TIMER_CALL", Long.class)).isZero();
			}
		}
		finally {
			starting.shutdownNow();
		}
	}

	@Test
	void aCallFoundByKeySaysWhenItRunsWhereItWaitsAndWithWhat() {
		// The near call waits 2 s on the wheel: long enough to be found there on a loaded machine.
		ConfigurableApplicationContext app = start(newDatabase(), "wheel-timer.durable.instance-name=shop-1",
				"wheel-timer.durable.horizon=5s", "test.near-delay=2s");
		DurableCalls durableCalls = app.getBean(DurableCalls.class);
		Instant before = durableCalls.now();
		app.getBean(Orders.class).remind(new Order("o-1", 250));
		app.getBean(Orders.class).cancelIfUnpaid("o-2", before);

		StoredCall far = durableCalls.find("orders.remind", "o-1").orElseThrow();
		assertThat(far.state()).isEqualTo(CallState.PENDING);
		assertThat(far.due()).isBetween(before.plus(Duration.ofMinutes(30)).minusMillis(1),
				durableCalls.now().plus(Duration.ofMinutes(30)));
		assertThat(far.attempts()).isZero();
		assertThat(far.owner()).isNull();
		assertThat(far.arguments()).isEqualTo("[{\"id\":\"o-1\",\"cents\":250}]");
		assertThat(durableCalls.find(far.id())).contains(far);

		StoredCall near = durableCalls.find("Orders.cancelIfUnpaid", "o-2").orElseThrow();
		assertThat(near.state()).isEqualTo(CallState.CLAIMED);
		assertThat(near.owner()).isEqualTo(app.getBean(DurableEngine.class).instance());
		assertThat(near.ownerName()).isEqualTo("shop-1");

		assertThat(durableCalls.find("orders.remind", "o-404")).isEmpty();
		assertThatIllegalArgumentException().isThrownBy(() -> durableCalls.find("orders.lost", "o-1"))
			.withMessageContaining("orders.lost")
			.withMessageContaining("orders.remind");
		awaitRuns(app, 1);
		await().atMost(Duration.ofSeconds(5))
			.until(() -> durableCalls.find("Orders.cancelIfUnpaid", "o-2").isEmpty());
	}

	@Test
	void aRescheduledCallRunsOnceAtItsNewTimeNeverAtItsOldOneWhicheverInstanceHeldIt() {
		String url = newDatabase();
		// Due in 2 s on a's wheel (long enough for b to move it first on a loaded machine); b moves
		// it to 4 s after the move, well clear of its old time.
		ConfigurableApplicationContext a = start(url, "wheel-timer.durable.horizon=5s", "test.near-delay=2s");
		ConfigurableApplicationContext b = start(url, "test.near-delay=2s");
		DurableCalls fromB = b.getBean(DurableCalls.class);
		a.getBean(Orders.class).cancelIfUnpaid("o-1", Instant.now());
		UUID old = fromB.find("Orders.cancelIfUnpaid", "o-1").orElseThrow().id();
		Instant movedAt = Instant.now();
		StoredCall moved = fromB.reschedule("Orders.cancelIfUnpaid", "o-1", Duration.ofSeconds(4)).orElseThrow();
		assertThat(moved.id()).isNotEqualTo(old);
		assertThat(moved.key()).isEqualTo("o-1");
		assertThat(moved.state().waiting()).isTrue();
		assertThat(fromB.find(old)).isEmpty();
		// Due in 30 minutes in the database; a runs it now.
		a.getBean(Orders.class).remind(new Order("o-2", 1));
		Instant ranNow = Instant.now();
		assertThat(a.getBean(DurableCalls.class).runNow("orders.remind", "o-2")).isPresent();

		awaitRuns(a, 2);
		await().during(Duration.ofMillis(800)).atMost(Duration.ofSeconds(3)).until(() -> runs(a).size() == 2);
		Map<String, Object> cancel = runs(a).stream().filter((run) -> run.get("method").equals("cancel")).findFirst().orElseThrow();
		assertThat(instant(cancel.get("ran_at"))).isAfterOrEqualTo(movedAt.plusSeconds(4));
		Map<String, Object> remind = runs(a).stream().filter((run) -> run.get("method").equals("remind")).findFirst().orElseThrow();
		assertThat(instant(remind.get("ran_at"))).isBefore(ranNow.plusSeconds(5));
		await().atMost(Duration.ofSeconds(5)).until(() -> calls(a) == 0);
	}

	@Test
	void aFailedCallRunsAgainOrIsDeletedByIdAndWaitsForAKeyANewerCallHolds() {
		ConfigurableApplicationContext app = start(newDatabase());
		DurableCalls durableCalls = app.getBean(DurableCalls.class);
		Orders orders = app.getBean(Orders.class);
		orders.remind(new Order("o-1", -1));
		orders.remind(new Order("o-2", -2));
		dueNow(app);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> durableCalls.list("orders.remind", CallState.FAILED, 0, 10).total() == 2);
		StoredCall failed = durableCalls.find(durableCalls.list("orders.remind", CallState.FAILED, 0, 10)
			.calls()
			.stream()
			.filter((call) -> "o-1".equals(call.key()))
			.findFirst()
			.orElseThrow()
			.id()).orElseThrow();
		assertThat(failed.error()).contains("no reminder for a refund of order o-1");
		assertThat(failed.attempts()).isEqualTo(1);
		assertThat(failed.failedAt()).isNotNull();

		// A newer call holds the key: the failed one cannot wait again until that one is gone.
		orders.remind(new Order("o-1", 5));
		assertThatIllegalStateException().isThrownBy(() -> durableCalls.runNow(failed.id()))
			.withMessageContaining("o-1")
			.withMessageContaining("cancel that call first");
		assertThat(durableCalls.cancel("orders.remind", "o-1")).isTrue();
		StoredCall again = durableCalls.runNow(failed.id()).orElseThrow();
		assertThat(again.state().waiting()).isTrue();
		assertThat(again.attempts()).as("its runs before stay its history").isOne();
		assertThat(again.error()).isNull();
		assertThat(again.key()).isEqualTo("o-1");
		// It fails again (its order is still a refund), and stays to be seen.
		await().atMost(Duration.ofSeconds(10))
			.until(() -> durableCalls.find(failed.id()).map(StoredCall::state).orElse(null) == CallState.FAILED);

		StoredCall other = durableCalls.list("orders.remind", CallState.FAILED, 0, 10)
			.calls()
			.stream()
			.filter((call) -> "o-2".equals(call.key()))
			.findFirst()
			.orElseThrow();
		assertThat(durableCalls.cancel(other.id())).map(StoredCall::id).contains(other.id());
		assertThat(durableCalls.find(other.id())).isEmpty();
		assertThat(durableCalls.cancel(other.id())).isEmpty();
	}

	/**
	 * A durable method that throws, run again by an operator (run now, then re-queue), is counted
	 * failed at each run, where operators read it: its timer's counters (on the endpoint and in the
	 * meters) and its method's. The runs again are due at once, so they skip the wheel's tick, and
	 * are counted by the timer all the same.
	 */
	@Test
	void aDurableMethodThatFailsAtEachRunIsCountedFailedEachTimeByItsTimerItsMetersAndItsMethod() {
		ConfigurableApplicationContext app = start(new Class<?>[] { WithActuator.class, VirtualTime.class },
				newDatabase(), "management.endpoints.web.exposure.include=wheeltimer");
		DurableCalls durableCalls = app.getBean(DurableCalls.class);
		DurableEngine durable = app.getBean(DurableEngine.class);
		app.getBean(Orders.class).explode("o-1");
		VirtualTime.advance(app, SHORT_DELAY);
		assertThat(durable.counts().failed()).isOne();
		UUID id = durableCalls.list("Orders.explode", CallState.FAILED, 0, 10).calls().get(0).id();

		assertThat(durableCalls.runNow(id)).isPresent();
		VirtualTime.advance(app, TICK);
		assertThat(durable.counts().failed()).isEqualTo(2);
		assertThat(durable.admin().requeueFailed("Orders.explode").requeued()).isOne();
		VirtualTime.advance(app, Duration.ofSeconds(1));
		assertThat(durable.counts().failed()).isEqualTo(3);

		WheelTimerEndpoint endpoint = app.getBean(WheelTimerEndpoint.class);
		assertThat(endpoint.timers().timers().get("wheelTimer").counters())
			.isEqualTo(new WheelTimersDescriptor.CountersDescriptor(3, 0, 3, 0, 0, 0, 0, 0));
		assertThat(endpoint.timer("wheelTimer").delayedMethods())
			.filteredOn((method) -> method.method().equals("DurableApp.Orders.explode(String)"))
			.singleElement()
			.satisfies((method) -> {
				assertThat(method.calls()).as("made once").isOne();
				assertThat(method.failed()).as("ran three times").isEqualTo(3);
				assertThat(method.completed()).isZero();
			});
		MeterRegistry meters = app.getBean(MeterRegistry.class);
		assertThat(meters.get("wheel.timer.timeouts").tag("name", "wheelTimer").tag("outcome", "failed")
			.functionCounter()
			.count()).isEqualTo(3);
		assertThat(meters.get("wheel.timer.scheduled").tag("name", "wheelTimer").functionCounter().count())
			.isEqualTo(3);
	}

	@Test
	void callsArePagedByMethodAndStateAndChangesJoinTheCallersTransaction() {
		ConfigurableApplicationContext app = start(newDatabase());
		DurableCalls durableCalls = app.getBean(DurableCalls.class);
		for (int i = 1; i <= 5; i++) {
			app.getBean(Orders.class).remind(new Order("o-" + i, i));
		}
		CallPage first = durableCalls.list("orders.remind", CallState.PENDING, 0, 2);
		assertThat(first.total()).isEqualTo(5);
		assertThat(first.calls()).extracting(StoredCall::key).containsExactly("o-1", "o-2");
		assertThat(first.hasNext()).isTrue();
		CallPage last = durableCalls.list("orders.remind", CallState.PENDING, 2, 2);
		assertThat(last.calls()).extracting(StoredCall::key).containsExactly("o-5");
		assertThat(last.hasNext()).isFalse();
		assertThat(durableCalls.list(null, null, 0, 10).total()).isEqualTo(5);
		assertThat(durableCalls.list("orders.remind", CallState.FAILED, 0, 10).calls()).isEmpty();
		assertThatIllegalArgumentException().isThrownBy(() -> durableCalls.list(null, null, 0, 0))
			.withMessage("size must be between 1 and 1000, was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> durableCalls.list(null, null, -1, 10))
			.withMessage("page must be 0 or more, was -1");

		Instant due = durableCalls.find("orders.remind", "o-3").orElseThrow().due();
		transactions(app).executeWithoutResult((status) -> {
			assertThat(durableCalls.reschedule("orders.remind", "o-3", Duration.ofHours(2))).isPresent();
			assertThat(durableCalls.cancel("orders.remind", "o-4")).isTrue();
			status.setRollbackOnly();
		});
		assertThat(durableCalls.find("orders.remind", "o-3")).map(StoredCall::due).contains(due);
		assertThat(durableCalls.find("orders.remind", "o-4")).isPresent();
	}

	@Test
	void theCallsOfAMethodNoLiveInstanceKnowsAreDeletedAndThoseOfAKnownOneAreNot() {
		ConfigurableApplicationContext app = start(newDatabase());
		JdbcTemplate jdbc = jdbc(app);
		insertRow(jdbc, "orders.renamed", "[]", "PENDING", null, 0);
		insertRow(jdbc, "orders.renamed", "[]", "FAILED", null, 1);
		insertRow(jdbc, "orders.elsewhere", "[]", "PENDING", null, 0);
		insertInstance(jdbc, UUID.randomUUID(), "shop-2", Instant.now().plusSeconds(60), "orders.elsewhere");
		DurableEngine durable = app.getBean(DurableEngine.class);
		assertThat(durable.admin().report(10).byMethod()).contains(
				new CallRepository.MethodCount("orders.renamed", CallState.FAILED, 1),
				new CallRepository.MethodCount("orders.renamed", CallState.PENDING, 1));

		assertThat(durable.deleteCallsOf("orders.renamed")).isEqualTo(2);
		assertThatIllegalStateException().isThrownBy(() -> durable.deleteCallsOf("orders.elsewhere"))
			.withMessageContaining("shop-2");
		assertThatIllegalStateException().isThrownBy(() -> durable.deleteCallsOf("orders.remind"))
			.withMessageContaining("This instance knows");
		assertThat(jdbc.queryForList("SELECT method_id FROM WHEEL_TIMER_CALL", String.class))
			.containsExactly("orders.elsewhere");
	}

	/** Makes every pending call due now, as if its delay had passed. */
	static void dueNow(ConfigurableApplicationContext app) {
		jdbc(app).update("UPDATE WHEEL_TIMER_CALL SET due_at = ? WHERE state = 'PENDING'",
				app.getBean(DurableDialect.class).instant(Instant.now().minusSeconds(1)));
	}

	/** @return the dialect of the database behind {@code jdbc}, to bind ids and instants its way */
	static DurableDialect dialect(JdbcTemplate jdbc) {
		return DurableDialects.of(jdbc.getDataSource());
	}

	static void insertInstance(JdbcTemplate jdbc, UUID id, String name, Instant heartbeat, String methods) {
		DurableDialect dialect = dialect(jdbc);
		jdbc.update("INSERT INTO WHEEL_TIMER_INSTANCE (id, name, started_at, heartbeat_at, methods)"
				+ " VALUES (?, ?, ?, ?, ?)", dialect.id(id), name, dialect.instant(heartbeat), dialect.instant(heartbeat),
				methods);
	}

	static void insertRow(JdbcTemplate jdbc, String methodId, String arguments, String state, UUID owner,
			int attempts) {
		insertRow(jdbc, methodId, arguments, state, owner, attempts, "");
	}

	/**
	 * Inserts a row by SQL, due a second ago.
	 * @param shape the argument shape of the version that wrote it: empty as before the tables
	 * recorded shapes; an instance's own ({@link DurableEngine#shape}) for a row it wrote, changed by hand
	 */
	static void insertRow(JdbcTemplate jdbc, String methodId, String arguments, String state, UUID owner,
			int attempts, String shape) {
		DurableDialect dialect = dialect(jdbc);
		jdbc.update("INSERT INTO WHEEL_TIMER_CALL (id, method_id, arguments, due_at, state, owner_id, attempts, shape)"
				+ " VALUES (?, ?, ?, ?, ?, ?, ?, ?)", dialect.id(UUID.randomUUID()), methodId, arguments,
				dialect.instant(Instant.now().minusSeconds(1)), state, (owner != null) ? dialect.id(owner) : null,
				attempts, shape);
	}

	@Test
	void aRetryableCallIsTriedAgainAfterItsBackoffAsADelayedCallWithItsAttemptNumber() {
		ConfigurableApplicationContext app = startOnVirtualTime(newDatabase());
		Instant calledAt = VirtualTime.now(app);
		app.getBean(Orders.class).flaky("r-1", 3);
		Duration backoff = Duration.ofMillis(300);
		// Each attempt at its due time, never before: the call's delay, then the backoff (300 ms)
		// from the failed attempt's end, which on virtual time is the instant it started.
		for (int attempt = 1; attempt <= 3; attempt++) {
			VirtualTime.advance(app, ((attempt == 1) ? SHORT_DELAY : backoff).minus(TICK));
			assertThat(runs(app)).as("attempt %d, never early", attempt).hasSize(attempt - 1);
			VirtualTime.advance(app, TICK);
			assertThat(runs(app)).as("attempt %d, on its tick", attempt).hasSize(attempt);
		}
		assertThat(calls(app)).isZero();
		assertThat(runs(app)).extracting((run) -> run.get("call_id") + " at " + instant(run.get("ran_at")))
			.containsExactly("r-1#1 at " + calledAt.plus(SHORT_DELAY),
					"r-1#2 at " + calledAt.plus(SHORT_DELAY).plus(backoff),
					"r-1#3 at " + calledAt.plus(SHORT_DELAY).plus(backoff.multipliedBy(2)));
		CallCounts counts = app.getBean(DurableEngine.class).counts();
		assertThat(counts.started()).isEqualTo(3);
		assertThat(counts.failed()).as("a retried attempt does not fail the call").isZero();
		assertThat(counts.suspectedDuplicates()).as("every start before ended").isZero();
		assertThat(counts.ran()).isOne();
	}

	@Test
	void aRetryWaitsInItsRowWithItsKeyAndLastErrorAndNoThreadWaitsForIt(CapturedOutput output) {
		ConfigurableApplicationContext app = startOnVirtualTime(newDatabase(), "test.retry-delay=1h");
		app.getBean(Orders.class).flaky("r-2", 2);
		VirtualTime.advance(app, SHORT_DELAY);
		assertThat(retries(app)).isOne();
		Map<String, Object> row = jdbc(jdbc(app)).get(0);
		assertThat(row.get("state")).as("far beyond the horizon: any instance may claim it").isEqualTo("PENDING");
		assertThat(number(row.get("attempts"))).isOne();
		assertThat(number(row.get("failures"))).isOne();
		assertThat(String.valueOf(row.get("last_error"))).contains("busy at attempt 1 for r-2");
		assertThat(app.getBean(DurableCalls.class).find("orders.flaky", "r-2")).as("found by its key")
			.hasValueSatisfying((call) -> assertThat(call.tries().retries()).isOne());
		// The repository's own retry of a deadlocked statement (a poll's claim, say) is not the call's.
		assertThat(Thread.getAllStackTraces().values()).as("no thread sleeps through the backoff")
			.filteredOn((stack) -> Arrays.stream(stack)
				.noneMatch((frame) -> frame.getClassName().startsWith(JdbcCallRepository.class.getPackageName())))
			.noneSatisfy((stack) -> assertThat(stack).anySatisfy((frame) -> assertThat(frame.getClassName())
				.startsWith("org.springframework.core.retry")));
		assertThat(output).contains("failed on attempt 1 (retry 1 of 3 follows at");
		// Cancelled by its key while it waits: nothing runs again.
		assertThat(app.getBean(DurableCalls.class).cancel("orders.flaky", "r-2")).isTrue();
		assertThat(calls(app)).isZero();
	}

	@Test
	void aRetryDueWithinTheHorizonWaitsOnTheWheelAndACancelByKeyReachesIt() {
		ConfigurableApplicationContext app = startOnVirtualTime(newDatabase(), "test.retry-delay=800ms");
		app.getBean(Orders.class).flaky("r-3", 2);
		VirtualTime.advance(app, SHORT_DELAY);
		assertThat(retries(app)).isOne();
		assertThat(jdbc(jdbc(app))).singleElement()
			.satisfies((row) -> assertThat(row.get("state")).as("held on this instance's wheel").isEqualTo("CLAIMED"));
		assertThat(app.getBean(DurableCalls.class).cancel("orders.flaky", "r-3")).isTrue();
		VirtualTime.advance(app, Duration.ofSeconds(2));
		assertThat(runs(app)).hasSize(1);
		assertThat(calls(app)).isZero();
	}

	@Test
	void aCallWhoseRetriesAreSpentIsFailedWithItsLastErrorAndEveryAttempt() {
		ConfigurableApplicationContext app = startOnVirtualTime(newDatabase(), "test.retry-delay=50ms");
		app.getBean(Orders.class).flaky("r-4", 99);
		VirtualTime.advance(app, SHORT_DELAY.plusMillis(3 * 50));
		assertThat(runs(app)).hasSize(4);
		assertThat(app.getBean(DurableEngine.class).counts().failed()).isOne();
		Map<String, Object> row = jdbc(jdbc(app)).get(0);
		assertThat(row.get("state")).isEqualTo("FAILED");
		assertThat(number(row.get("attempts"))).isEqualTo(4);
		assertThat(number(row.get("failures"))).isEqualTo(4);
		assertThat(number(row.get("retries"))).isEqualTo(3);
		assertThat(String.valueOf(row.get("last_error"))).contains("busy at attempt 4 for r-4")
			.contains("retries are spent");
		VirtualTime.advance(app, Duration.ofSeconds(2));
		assertThat(runs(app)).hasSize(4);
		// An operator's re-queue starts a new round; the attempts stay the call's history.
		assertThat(app.getBean(DurableEngine.class).admin().requeueFailed("orders.flaky").requeued()).isOne();
		VirtualTime.advance(app, Duration.ofSeconds(1));
		assertThat(runs(app)).hasSizeGreaterThanOrEqualTo(5);
		assertThat(runs(app).get(4).get("call_id")).isEqualTo("r-4#5");
	}

	@Test
	void anExceptionItsRetryableExcludesFailsTheCallAtOnce() {
		ConfigurableApplicationContext app = startOnVirtualTime(newDatabase(), "test.retry-delay=50ms");
		app.getBean(Orders.class).flaky("r-5", -1);
		VirtualTime.advance(app, SHORT_DELAY);
		assertThat(app.getBean(DurableEngine.class).counts().failed()).isOne();
		VirtualTime.advance(app, Duration.ofSeconds(2));
		assertThat(runs(app)).hasSize(1);
		assertThat(jdbc(jdbc(app))).singleElement().satisfies((row) -> {
			assertThat(row.get("state")).isEqualTo("FAILED");
			assertThat(number(row.get("retries"))).isZero();
		});
	}

	@Test
	void aRetryWaitingOnAStoppedInstanceRunsOnTheNextWithTheRightAttempt() {
		String url = newDatabase();
		ConfigurableApplicationContext first = start(url, "test.retry-delay=2s");
		first.getBean(Orders.class).flaky("r-6", 3);
		await().atMost(Duration.ofSeconds(10)).until(() -> retries(first) == 1);
		first.close();
		ConfigurableApplicationContext second = start(url, "test.retry-delay=200ms");
		await().atMost(Duration.ofSeconds(20)).until(() -> runs(second).size() == 3 && calls(second) == 0);
		assertThat(runs(second)).extracting((run) -> run.get("call_id")).containsExactly("r-6#1", "r-6#2", "r-6#3");
	}

	@Test
	void aRetryWhoseKeyANewCallTookWhileItsAttemptRanWaitsWithoutItAndRunsAsWellAsTheNewCall() throws Exception {
		ConfigurableApplicationContext app = start(newDatabase());
		Orders.firstFailureMayEnd = new CountDownLatch(1);
		try {
			app.getBean(Orders.class).failsSlowly("k-1", "old");
			await().atMost(Duration.ofSeconds(10)).until(() -> runs(app).size() == 1);
			// The first attempt runs, its key moved aside: a new call may take it.
			app.getBean(Orders.class).failsSlowly("k-1", "new");
		}
		finally {
			Orders.firstFailureMayEnd.countDown();
		}
		await().atMost(Duration.ofSeconds(20)).until(() -> runs(app).size() == 3 && calls(app) == 0);
		assertThat(runs(app)).extracting((run) -> run.get("call_id"))
			.as("the retry (attempt 2) and the new call (its attempt 1), each once")
			.containsExactlyInAnyOrder("old#1", "old#2", "new#1");
	}

	/**
	 * Once a call started, its key names no waiting call, wherever the row keeps it (a gate in
	 * place leaves it there): it is not found, moved or cancelled by that key, and a new call of
	 * the key is a call of its own.
	 */
	@Test
	void aStartedCallIsNeitherFoundNorMovedNorCancelledByItsKey() throws Exception {
		// Due in 2 s: the second call is still waiting when the test looks, on a loaded machine too.
		ConfigurableApplicationContext app = start(newDatabase(), "wheel-timer.durable.horizon=5s",
				"test.fails-slowly-delay=2s");
		DurableCalls calls = app.getBean(DurableCalls.class);
		Orders.firstFailureMayEnd = new CountDownLatch(1);
		try {
			app.getBean(Orders.class).failsSlowly("k-2", "old");
			await().atMost(Duration.ofSeconds(10)).until(() -> runs(app).size() == 1);
			assertThat(calls.find("orders.failsSlowly", "k-2")).isEmpty();
			assertThat(calls.reschedule("orders.failsSlowly", "k-2", Duration.ZERO)).isEmpty();
			assertThat(calls.cancel("orders.failsSlowly", "k-2")).isFalse();
			app.getBean(Orders.class).failsSlowly("k-2", "new");
			assertThat(calls.find("orders.failsSlowly", "k-2")).hasValueSatisfying(
					(waiting) -> assertThat(waiting.state()).isIn(CallState.PENDING, CallState.CLAIMED));
		}
		finally {
			Orders.firstFailureMayEnd.countDown();
		}
		await().atMost(Duration.ofSeconds(20)).until(() -> runs(app).size() == 3 && calls(app) == 0);
		assertThat(runs(app)).extracting((run) -> run.get("call_id"))
			.containsExactlyInAnyOrder("old#1", "old#2", "new#1");
	}

	private static long retries(ConfigurableApplicationContext app) {
		Long retries = jdbc(app).queryForObject("SELECT COALESCE(MAX(retries), -1) FROM WHEEL_TIMER_CALL", Long.class);
		return (retries != null) ? retries : -1;
	}

	private static int number(Object value) {
		return ((Number) value).intValue();
	}

	/**
	 * A rolling upgrade of the starter: an instance of the previous one joins and writes a call with
	 * the statements it sends (no shapes: its columns are version 1's) on tables this one upgraded.
	 * This instance runs that call, lists the older instance without shapes, and reports nothing as
	 * unreadable.
	 */
	@Test
	void anInstanceOfThePreviousStarterSharesTheUpgradedTablesWithThisOne() {
		String url = newDatabase();
		ConfigurableApplicationContext app = start(url);
		JdbcTemplate jdbc = jdbc(app);
		DurableDialect dialect = app.getBean(DurableDialect.class);
		UUID older = UUID.randomUUID();
		jdbc.update("INSERT INTO WHEEL_TIMER_INSTANCE (id, name, started_at, heartbeat_at, methods) VALUES (?,"
				+ " 'older', " + dialect.now() + ", " + dialect.now() + ", ?)", dialect.id(older), "orders.far");
		Version1Database.insertPendingCall(jdbc, url, "orders.far", "old-1", "[\"old-1\",null]", Instant.now());
		DurableEngine durable = app.getBean(DurableEngine.class);
		assertThat(durable.admin().report(10).instances()).filteredOn((instance) -> instance.id().equals(older))
			.singleElement()
			.satisfies((instance) -> assertThat(instance.shapes()).isNull());
		awaitRuns(app, 1);
		assertThat(runs(app)).extracting((run) -> run.get("call_id")).containsExactly("old-1");
		assertThat(durable.admin().report(10).unreadable()).isEmpty();
		assertThat(durable.counts().failed()).isZero();
	}

	/**
	 * While an instance of an older starter is live, new calls record no shape: that starter
	 * replaces a call by its key without recording one, and the row would otherwise name this
	 * version's shape over the older one's arguments.
	 */
	@Test
	void aCallMadeWhileAnOlderStarterIsLiveRecordsNoShape() {
		String url = newDatabase();
		ConfigurableApplicationContext app = start(url);
		JdbcTemplate jdbc = jdbc(app);
		DurableDialect dialect = app.getBean(DurableDialect.class);
		assertThat(shapeOfACallMadeNow(app, "before")).isEqualTo(app.getBean(DurableEngine.class).shape("orders.far"));
		UUID older = UUID.randomUUID();
		jdbc.update("INSERT INTO WHEEL_TIMER_INSTANCE (id, name, started_at, heartbeat_at, methods) VALUES (?,"
				+ " 'older', " + dialect.now() + ", " + dialect.now() + ", ?)", dialect.id(older), "orders.far");
		// From the next poll on, which sees it live (its heartbeat kept within the lease meanwhile).
		AtomicInteger made = new AtomicInteger();
		await().atMost(Duration.ofSeconds(5)).until(() -> {
			jdbc.update("UPDATE WHEEL_TIMER_INSTANCE SET heartbeat_at = " + dialect.now() + " WHERE id = ?",
					dialect.id(older));
			return shapeOfACallMadeNow(app, "while-" + made.incrementAndGet()).isEmpty();
		});
	}

	private static String shapeOfACallMadeNow(ConfigurableApplicationContext app, String callId) {
		app.getBean(Orders.class).far(callId, Instant.now());
		return jdbc(app).queryForObject("SELECT shape FROM WHEEL_TIMER_CALL WHERE arguments LIKE ?", String.class,
				"[\"" + callId + "\"%");
	}

	/**
	 * Calls written by a starter that records no shape are judged one by one: the one this instance
	 * cannot read is recorded as unread and waits, reported; the others run.
	 */
	@Test
	void aCallWithoutAShapeThatCannotBeReadWaitsAsUnreadAndTheOthersRun() {
		ConfigurableApplicationContext app = start(newDatabase());
		JdbcTemplate jdbc = jdbc(app);
		insertRow(jdbc, "orders.far", "[\"bad\",\"not an instant\"]", "PENDING", null, 0, "");
		insertRow(jdbc, "orders.far", "[\"good\",null]", "PENDING", null, 0, "");
		awaitRuns(app, 1);
		assertThat(runs(app)).extracting((run) -> run.get("call_id")).containsExactly("good");
		DurableEngine durable = app.getBean(DurableEngine.class);
		List<UnreadableCalls> unreadable = await().atMost(Duration.ofSeconds(10))
			.until(() -> durable.admin().report(10).unreadable(), (waiting) -> waiting.size() == 1);
		assertThat(unreadable.get(0).methodId()).isEqualTo("orders.far");
		assertThat(unreadable.get(0).shape()).isEqualTo(CallRepository.UNREAD);
		assertThat(jdbc.queryForObject("SELECT state FROM WHEEL_TIMER_CALL", String.class)).isEqualTo("PENDING");
		insertRow(jdbc, "orders.far", "[\"also good\",null]", "PENDING", null, 0, "");
		awaitRuns(app, 2);
		assertThat(durable.counts().failed()).isZero();
	}

	/**
	 * A rolling deploy: two versions of the application up at once, the second with a property
	 * more in the method's parameter, each writing calls. Each version's calls run on that version,
	 * with every property they were written with: none is failed by the version that cannot read
	 * it, and none is read by the other with a property defaulted.
	 */
	@Test
	void duringARollingDeployEachVersionRunsTheCallsItWroteAndFailsNone() {
		String url = newDatabase();
		// v2 leaves v1's calls to v1 while v1's heartbeat is within the lease: 5 s, not the suite's 1 s,
		// which a loaded machine's starved heartbeat could outlast.
		ConfigurableApplicationContext v1 = start(new Class<?>[] { Deploys.V1.class }, url, "wheel-timer.durable.lease=5s");
		ConfigurableApplicationContext v2 = start(new Class<?>[] { Deploys.V2.class }, url, "wheel-timer.durable.lease=5s");
		for (int i = 0; i < 10; i++) {
			v1.getBean(Deploys.RemindersV1.class).remind(new Deploys.Ref("a" + i, i));
			v2.getBean(Deploys.RemindersV2.class).remind(new Deploys.RefWithCurrency("b" + i, i, "EUR"));
		}
		JdbcTemplate jdbc = jdbc(v1);
		await().atMost(Duration.ofSeconds(30)).until(() -> Deploys.runs(jdbc, "").size() == 20);
		assertThat(Deploys.runs(jdbc, "a")).allMatch((run) -> run.matches("a\\d v1 \\d null"));
		assertThat(Deploys.runs(jdbc, "b")).allMatch((run) -> run.matches("b\\d v2 \\d EUR"));
		// Each row goes once its run's finish is written, just after the run.
		await().atMost(Duration.ofSeconds(10))
			.until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM WHEEL_TIMER_CALL", Integer.class) == 0);
		assertThat(v1.getBean(DurableEngine.class).counts().failed()).isZero();
		assertThat(v2.getBean(DurableEngine.class).counts().failed()).isZero();
	}

	/**
	 * A rollback, then the deploy again: the older version alone leaves the newer one's calls
	 * waiting, reported, and fails none; they run, whole, once the newer version is back. The newer
	 * version alone runs the older one's calls, the property it added empty: adding a property is a
	 * compatible change.
	 */
	@Test
	void aRollbackLeavesTheNewerVersionsCallsWaitingUntilItIsBackAndTheNewerVersionRunsTheOlderOnes() {
		String url = newDatabase();
		// Due in 5 s: each version's close, after its writes, begins before a poll claims them.
		String delay = "test.deploy-delay=5s";
		ConfigurableApplicationContext v1 = start(new Class<?>[] { Deploys.V1.class }, url, delay);
		ConfigurableApplicationContext v2 = start(new Class<?>[] { Deploys.V2.class }, url, delay);
		for (int i = 0; i < 10; i++) {
			v2.getBean(Deploys.RemindersV2.class).remind(new Deploys.RefWithCurrency("b" + i, i, "EUR"));
		}
		// The rollback: the newer version goes, its calls not due yet.
		v2.close();
		JdbcTemplate jdbc = jdbc(v1);
		DurableEngine older = v1.getBean(DurableEngine.class);
		String newerShape = jdbc.queryForObject("SELECT DISTINCT shape FROM WHEEL_TIMER_CALL", String.class);
		assertThat(newerShape).hasSize(16).isNotEqualTo(older.shape(Deploys.METHOD));
		List<UnreadableCalls> unreadable = await().atMost(Duration.ofSeconds(30))
			.until(() -> older.admin().report(10).unreadable(), (waiting) -> waiting.size() == 1 && waiting.get(0).count() == 10);
		assertThat(unreadable.get(0).methodId()).isEqualTo(Deploys.METHOD);
		assertThat(unreadable.get(0).shape()).isEqualTo(newerShape);
		assertThat(Deploys.runs(jdbc, "")).isEmpty();
		// An operator's "run now" on the older version: it cannot read the call, so it leaves it to
		// the poll of an instance that can, rather than holding it to fail.
		UUID oneOfThem = older.admin().list(new CallRepository.Filter(Deploys.METHOD, null, null), 0, 1).calls().get(0).id();
		StoredCall runNow = older.admin().reschedule(oneOfThem, older.now()).orElseThrow();
		assertThat(runNow.state()).isEqualTo(CallState.PENDING);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> older.admin().report(10).unreadable(), (waiting) -> waiting.size() == 1 && waiting.get(0).count() == 10);
		assertThat(jdbc.queryForList("SELECT DISTINCT state FROM WHEEL_TIMER_CALL", String.class))
			.containsExactly("PENDING");
		assertThat(older.counts().failed()).isZero();
		// The deploy again: the newer version runs its calls as they were written.
		ConfigurableApplicationContext v2Again = start(new Class<?>[] { Deploys.V2.class }, url, delay);
		await().atMost(Duration.ofSeconds(30)).until(() -> Deploys.runs(jdbc, "b").size() == 10);
		assertThat(Deploys.runs(jdbc, "b")).allMatch((run) -> run.matches("b\\d v2 \\d EUR"));
		// The older version's last calls, left as it goes: the newer one runs them, currency empty.
		for (int i = 0; i < 10; i++) {
			v1.getBean(Deploys.RemindersV1.class).remind(new Deploys.Ref("a" + i, i));
		}
		v1.close();
		JdbcTemplate newer = jdbc(v2Again);
		await().atMost(Duration.ofSeconds(30)).until(() -> Deploys.runs(newer, "a").size() == 10);
		assertThat(Deploys.runs(newer, "a")).allMatch((run) -> run.matches("a\\d v2 \\d null"));
		await().atMost(Duration.ofSeconds(10))
			.until(() -> newer.queryForObject("SELECT COUNT(*) FROM WHEEL_TIMER_CALL", Integer.class) == 0);
		assertThat(v2Again.getBean(DurableEngine.class).counts().failed()).isZero();
	}

	static JdbcTemplate jdbc(ConfigurableApplicationContext app) {
		return app.getBean(JdbcTemplate.class);
	}

	static List<Map<String, Object>> jdbc(JdbcTemplate jdbc) {
		return jdbc.queryForList("SELECT * FROM WHEEL_TIMER_CALL");
	}

	static TransactionTemplate transactions(ConfigurableApplicationContext app) {
		return new TransactionTemplate(app.getBean(PlatformTransactionManager.class));
	}

	static long calls(ConfigurableApplicationContext app) {
		Long count = jdbc(app).queryForObject("SELECT COUNT(*) FROM WHEEL_TIMER_CALL", Long.class);
		return (count != null) ? count : -1;
	}

	static List<Map<String, Object>> runs(ConfigurableApplicationContext app) {
		return jdbc(app).queryForList("SELECT * FROM test_run ORDER BY ran_at");
	}

	static void awaitRuns(ConfigurableApplicationContext app, int count) {
		await().atMost(Duration.ofSeconds(20)).until(() -> runs(app).size() >= count);
	}

	/** @return an instant of the tests' own tables */
	static Instant instant(Object value) {
		return TestDatabases.instant(value);
	}

}
