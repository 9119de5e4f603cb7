package io.github.wheeltimer.durable;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;

import io.github.wheeltimer.WheelSnapshot;
import io.github.wheeltimer.durable.FakeCallRepository.CallRow;
import io.github.wheeltimer.durable.OrderTimeouts.Run;
import io.github.wheeltimer.durable.cooperation.ClaimPoller;
import io.github.wheeltimer.durable.engine.DurableEngine;
import io.github.wheeltimer.durable.run.CallCounts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static io.github.wheeltimer.durable.DurableHarness.POLL_INTERVAL;
import static io.github.wheeltimer.durable.DurableHarness.TICK;
import static io.github.wheeltimer.durable.DurableHarness.id;
import static io.github.wheeltimer.durable.FakeCallRepository.CLAIMED;
import static io.github.wheeltimer.durable.FakeCallRepository.PENDING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * This instance's polls ({@link ClaimPoller}): claims within the horizon, batches and the
 * backlog, outages, take-overs, through a whole {@link DurableEngine} on fake repositories and
 * virtual time.
 */
@ExtendWith(OutputCaptureExtension.class)
class ClaimPollerTests {

	private DurableHarness harness;

	@AfterEach
	void close() {
		if (this.harness != null) {
			this.harness.close();
		}
	}

	private DurableHarness harness() {
		return harness(new DurableHarness());
	}

	private DurableHarness harness(DurableHarness harness) {
		this.harness = harness;
		return harness;
	}

	/**
	 * A poll falls due on the scheduler's wheel and is counted busy there, before it is handed to
	 * the poll thread: an advance never sees an instance with no poll armed and none in progress,
	 * so no poll runs late and the cadence never drifts (it did when the count began on the poll
	 * thread).
	 */
	@Test
	void anIdleInstanceSendsOneClaimPerPollInterval() {
		DurableHarness harness = harness().start();
		FakeStatements statements = harness.calls.statements();
		assertThat(statements.count("claim")).isOne();
		for (int poll = 1; poll <= 20; poll++) {
			harness.advance(POLL_INTERVAL);
			assertThat(statements.count("claim")).as("claims after %s", harness.ticker.elapsed()).isEqualTo(1 + poll);
		}
		assertThat(statements.count("takeOverDeadOwners"))
			.as("no take-over before this instance has reached the database for a whole lease")
			.isZero();
	}

	@Test
	void rowsWrittenByAnotherInstanceAreClaimedWithinTheHorizonAndRunOnTime() {
		DurableHarness harness = harness().start();
		UUID id = harness.insertPending("remind", Duration.ofSeconds(30), "o-1");
		harness.advance(Duration.ofSeconds(19));
		assertThat(harness.calls.row(id)).extracting(CallRow::state).isEqualTo(PENDING);
		harness.advance(Duration.ofSeconds(1));
		CallRow claimed = harness.calls.row(id);
		assertThat(claimed.state()).as("claimed by the poll that sees it within the horizon").isEqualTo(CLAIMED);
		assertThat(claimed.owner()).isEqualTo(harness.durable.instance());
		assertThat(harness.durable.held()).isOne();
		harness.advance(DurableHarness.HORIZON.minus(TICK));
		assertThat(harness.runs()).isEmpty();
		harness.advance(TICK);
		assertThat(harness.runs()).containsExactly(new Run("remind", "o-1", 1, Duration.ofSeconds(30)));
		assertThat(harness.calls.rows()).isEmpty();
		assertThat(harness.counts().claimed()).isOne();
		assertThat(harness.counts().ran()).isOne();
	}

	@Test
	void aCallBeyondTheHorizonIsWrittenPendingAndRunsOnTimeOnceAPollClaimsIt() {
		DurableHarness harness = harness().start();
		harness.call("remind", "o-2");
		CallRow row = harness.onlyRow();
		assertThat(row.state()).isEqualTo(PENDING);
		assertThat(row.owner()).isNull();
		assertThat(harness.durable.held()).isZero();
		harness.advance(Duration.ofMinutes(1).minus(TICK));
		assertThat(harness.calls.row(row.id())).extracting(CallRow::state).isEqualTo(CLAIMED);
		assertThat(harness.runs()).isEmpty();
		harness.advance(TICK);
		assertThat(harness.runs()).containsExactly(new Run("remind", "o-2", 1, Duration.ofMinutes(1)));
		assertThat(harness.calls.rows()).isEmpty();
	}

	/**
	 * Calls due already when claimed have no tick to wait for: they go to their gate at once. The
	 * executor here runs each call as it is handed over, so the backlog empties as fast as it is
	 * claimed; that a poll stops while a batch waits for busy executors, the contract tests show.
	 */
	@Test
	void aBacklogLargerThanTheBatchIsClaimedBatchByBatchAndRunsWithoutWaitingForATick() {
		DurableHarness harness = harness(new DurableHarness(DurableHarness.LEASE, 4));
		FakeStatements statements = harness.calls.statements();
		IntStream.range(0, 10).forEach((i) -> harness.insertPending("remind", Duration.ZERO, "o-" + i));
		harness.start();
		assertThat(harness.runs()).as("run before the clock moved").extracting(Run::orderId)
			.containsExactlyInAnyOrderElementsOf(IntStream.range(0, 10).mapToObj((i) -> "o-" + i).toList());
		assertThat(harness.calls.rows()).isEmpty();
		assertThat(harness.counts().claimed()).isEqualTo(10);
		assertThat(statements.count("claim")).as("batches of at most 4, refilled as they start").isBetween(3, 4);
		harness.advance(POLL_INTERVAL);
		assertThat(harness.runs()).hasSize(10);
	}

	@Test
	void whileClaimsFindTheDatabaseUnreachableNothingIsLostAndTheCallsRunOnceItAnswers() {
		DurableHarness harness = harness().start();
		harness.insertPending("remind", Duration.ofSeconds(2), "o-1");
		harness.insertPending("remind", Duration.ofSeconds(3), "o-2");
		harness.calls.statements().failUntilHealed("claim", FakeStatements::unreachable);
		harness.advance(Duration.ofSeconds(5));
		assertThat(harness.runs()).isEmpty();
		assertThat(harness.calls.rows()).extracting(CallRow::state).containsExactly(PENDING, PENDING);
		assertThat(harness.durable.unreachable()).isTrue();
		assertThat(harness.durable.problem()).contains("cannot be reached");
		harness.calls.statements().heal("claim");
		harness.advance(POLL_INTERVAL.plus(TICK));
		assertThat(harness.runs()).extracting(Run::orderId, Run::attempt)
			.containsExactlyInAnyOrder(tuple("o-1", 1), tuple("o-2", 1));
		assertThat(harness.calls.rows()).isEmpty();
		assertThat(harness.durable.unreachable()).isFalse();
	}

	@Test
	void aGateThatFindsTheDatabaseUnreachableHandsItsCallBackAndTheCallRunsAtALaterPoll() {
		DurableHarness harness = harness().start();
		harness.call("cancelIfUnpaid", "o-1");
		harness.calls.statements().failNext("start", 1, FakeStatements::unreachable);
		// The hand-back waits for the next poll, which claims the call again: due already, it goes
		// to its gate at once.
		harness.advance(Duration.ofSeconds(5).plus(POLL_INTERVAL).plus(TICK));
		assertThat(harness.runs()).extracting(Run::orderId, Run::attempt).containsExactly(tuple("o-1", 1));
		assertThat(harness.calls.statements().count("start")).isEqualTo(2);
		assertThat(harness.calls.rows()).isEmpty();
		CallCounts counts = harness.counts();
		assertThat(counts.handedBack()).isOne();
		assertThat(counts.claimed()).isOne();
		assertThat(counts.started()).isOne();
		assertThat(counts.fenced()).isZero();
	}

	@Test
	void callsOfAnInstanceWhoseLeaseRanOutAreTakenOverAndRunHere() {
		// Take-overs wait until this instance has reached the database for a whole lease of real time.
		Duration lease = Duration.ofMillis(500);
		DurableHarness harness = harness(new DurableHarness(lease, 100));
		UUID dead = UUID.randomUUID();
		harness.instances.heartbeat(dead, "other", List.of(id("remind")), "", false);
		UUID claimed = UUID.randomUUID();
		UUID running = UUID.randomUUID();
		harness.calls.insert(claimed, id("remind"), null, harness.arguments("remind", "o-1"), harness.now(), dead, null, "");
		harness.calls.insert(running, id("remind"), null, harness.arguments("remind", "o-2"), harness.now(), dead, null, "");
		assertThat(harness.calls.start(running, dead)).isTrue();
		// Its heartbeat stops: a lease later, by the database's clock, it is dead.
		harness.instances.advanceClock(lease.plusMillis(1));
		harness.start();
		assertThat(harness.counts().takenOver()).as("not before this instance was connected for a lease").isZero();
		assertThat(harness.calls.rows()).extracting(CallRow::owner).containsOnly(dead);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			harness.advance(POLL_INTERVAL);
			assertThat(harness.counts().takenOver()).isEqualTo(2);
		});
		harness.advance(TICK);
		assertThat(harness.runs()).extracting(Run::orderId, Run::attempt)
			.containsExactlyInAnyOrder(tuple("o-1", 1), tuple("o-2", 2));
		assertThat(harness.calls.rows()).isEmpty();
		CallCounts counts = harness.counts();
		assertThat(counts.claimed()).isEqualTo(2);
		assertThat(counts.suspectedDuplicates()).as("o-2 had started on the dead instance").isOne();
	}

	@Test
	void theLineOfACallThatStartsLateAfterATakeOverSaysWhichDeadInstancesLeaseItWaitedFor(CapturedOutput output) {
		Duration lease = Duration.ofMillis(500);
		DurableHarness harness = harness(new DurableHarness(lease, 100));
		UUID dead = UUID.randomUUID();
		harness.instances.heartbeat(dead, "shop-2", List.of(id("remind")), "", false);
		UUID held = UUID.randomUUID();
		harness.calls.insert(held, id("remind"), null, harness.arguments("remind", "o-1"),
				harness.now().minus(Duration.ofMinutes(1)), dead, null, "");
		harness.instances.advanceClock(lease.plusMillis(1));
		harness.start();
		// Partly on real time: the take-over waits until this instance has reached the database for a lease.
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			harness.advance(POLL_INTERVAL);
			assertThat(harness.runs()).extracting(Run::orderId).containsExactly("o-1");
		});

		assertThat(output).contains("Durable call " + held + " to OrderTimeouts.remind")
			.contains("it waited for the lease of instance 'shop-2' (" + dead + "), which died holding it with its last"
					+ " heartbeat at ")
			.contains("this instance took it over once that lease (PT0.5S) had run out")
			.doesNotContain("no instance was running");
	}

	/**
	 * Another instance held it, died, and a third took it over while this one started: this one
	 * did not see the take-over, but saw the others' rows at its start, and does not say that no
	 * instance was running.
	 */
	@Test
	void theLineOfACallAnotherInstanceTookOverSaysItMayHaveWaitedForALease(CapturedOutput output) {
		DurableHarness harness = harness();
		harness.instances.heartbeat(UUID.randomUUID(), "shop-2", List.of(id("remind")), "", false);
		UUID id = harness.insertPending("remind", Duration.ofMinutes(-1), "o-1");

		harness.start();

		assertThat(harness.runs()).extracting(Run::orderId).containsExactly("o-1");
		assertThat(output).contains("Durable call " + id + " to OrderTimeouts.remind")
			.contains("runs 60000 ms after its due time ")
			.contains(": it fell due before this instance started (at " + harness.now() + "), while other instances shared the calls: the one that held it died, and its lease")
			.doesNotContain("no instance was running");
	}

	@Test
	void theLineOfACallThatFellDueBeforeAnyInstanceRanSaysSo(CapturedOutput output) {
		DurableHarness harness = harness();
		UUID id = harness.insertPending("remind", Duration.ofMinutes(-1), "o-1");

		harness.start();

		assertThat(harness.runs()).extracting(Run::orderId).containsExactly("o-1");
		assertThat(output).contains("Durable call " + id + " to OrderTimeouts.remind")
			.contains("runs 60000 ms after its due time")
			.contains(": no instance was running to claim it when it fell due; this instance started at "
					+ harness.now())
			.doesNotContain("lease");
	}

	/**
	 * What the counts guarantee at a quiet point (no poll in progress, no call between its fire
	 * and its end), without cancels, replacements nor runs whose own transaction lost the row:
	 * every held call (born held within the horizon, or claimed) left its wheel once, through
	 * its gate (started or fenced) or handed back; and every started call ran or failed.
	 */
	@Test
	void theCountsAddUpAtQuietPoints() {
		DurableHarness harness = harness().start();
		IntStream.range(0, 3).forEach((i) -> harness.insertPending("remind", Duration.ofSeconds(2), "due-" + i));
		IntStream.range(0, 2).forEach((i) -> harness.insertPending("remind", Duration.ofSeconds(8), "late-" + i));
		harness.call("cancelIfUnpaid", "taken");
		harness.calls.setOwner(harness.calls.rows(CLAIMED).get(0).id(), UUID.randomUUID());
		harness.call("releaseStock", "on-time");
		// The first gate statement fails: the calls of its batch (one to the three due at 2 s, as the
		// batches' thread takes what the wheel fired so far) go back.
		harness.calls.statements().failNext("start", 1, FakeStatements::unreachable);
		harness.advance(Duration.ofSeconds(6));
		CallCounts quiet = harness.counts();
		assertThat(quiet.scheduled()).isEqualTo(2);
		assertThat(quiet.handedBack()).isBetween(1L, 3L);
		assertThat(quiet.claimed()).as("5, and again those handed back").isEqualTo(5 + quiet.handedBack());
		assertThat(quiet.started()).isEqualTo(4);
		assertThat(quiet.fenced()).isOne();
		assertThat(harness.durable.held()).isEqualTo(2);
		assertThat(quiet.scheduled() + quiet.claimed())
			.isEqualTo(quiet.started() + quiet.fenced() + quiet.handedBack() + harness.durable.held());
		assertThat(quiet.started()).isEqualTo(quiet.ran() + quiet.failed());
		// The timer counts each fire, on its wheel or at once for a call due already when claimed, by
		// how its run here ended: the method's outcome, or withdrawn when it did not run here.
		WheelSnapshot.Counters timer = harness.timer.counters();
		assertThat(timer.completed()).isEqualTo(quiet.ran());
		assertThat(timer.failed()).isEqualTo(quiet.failed());
		assertThat(timer.withdrawn()).as("fenced, or handed back after their gate failed")
			.isEqualTo(quiet.fenced() + quiet.handedBack());
		assertThat(timer.running()).isZero();
		assertThat(harness.timer.pendingTimeouts()).isEqualTo(harness.durable.held());
		assertThat(timer.scheduled()).isEqualTo(timer.completed() + timer.failed() + timer.withdrawn()
				+ timer.cancelled() + timer.unprocessed() + harness.timer.pendingTimeouts());
		harness.durable.stop();
		CallCounts stopped = harness.counts();
		assertThat(harness.durable.held()).isZero();
		assertThat(stopped.handedBack()).as("the two held calls went back at the stop")
			.isEqualTo(quiet.handedBack() + 2);
		assertThat(stopped.scheduled() + stopped.claimed())
			.isEqualTo(stopped.started() + stopped.fenced() + stopped.handedBack());
		assertThat(harness.calls.rows(PENDING)).hasSize(2);
		WheelSnapshot.Counters afterStop = harness.timer.counters();
		assertThat(afterStop.cancelled()).as("taken off their wheel to go back").isEqualTo(timer.cancelled() + 2);
		assertThat(afterStop.scheduled()).isEqualTo(afterStop.completed() + afterStop.failed() + afterStop.withdrawn()
				+ afterStop.cancelled() + afterStop.unprocessed() + harness.timer.pendingTimeouts());
	}

}
