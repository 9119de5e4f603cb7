package io.github.wheeltimer.durable;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.github.wheeltimer.durable.FakeCallRepository.CallRow;
import io.github.wheeltimer.durable.OrderTimeouts.Run;
import io.github.wheeltimer.durable.engine.DurableEngine;
import io.github.wheeltimer.durable.run.CallCounts;
import io.github.wheeltimer.durable.run.RunPipeline;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.dao.CannotAcquireLockException;

import static io.github.wheeltimer.durable.DurableHarness.POLL_INTERVAL;
import static io.github.wheeltimer.durable.DurableHarness.TICK;
import static io.github.wheeltimer.durable.FakeCallRepository.CLAIMED;
import static io.github.wheeltimer.durable.FakeCallRepository.FAILED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The run path of a held call ({@link RunPipeline}): gate, invoke, finish or fail, through a whole
 * {@link DurableEngine} on fake repositories and virtual time.
 */
class RunPipelineTests {

	private static final Duration DELAY = Duration.ofSeconds(5);

	private final DurableHarness harness = new DurableHarness();

	@AfterEach
	void close() {
		this.harness.close();
	}

	@Test
	void aCallRunsAtItsDueTimeAndNeverBeforeAndItsRowGoes() {
		this.harness.start();
		this.harness.call("cancelIfUnpaid", "o-1");
		CallRow row = this.harness.onlyRow();
		assertThat(row.state()).as("born claimed by its caller's instance: within the horizon").isEqualTo(CLAIMED);
		assertThat(row.owner()).isEqualTo(this.harness.durable.instance());
		assertThat(row.due()).isEqualTo(this.harness.now().plus(DELAY));
		this.harness.advance(DELAY.minus(TICK));
		assertThat(this.harness.runs()).isEmpty();
		assertThat(this.harness.calls.row(row.id())).isNotNull();
		this.harness.advance(TICK);
		assertThat(this.harness.runs()).containsExactly(new Run("cancelIfUnpaid", "o-1", 1, DELAY));
		assertThat(this.harness.calls.rows()).isEmpty();
		assertThat(this.harness.durable.held()).isZero();
		CallCounts counts = this.harness.counts();
		assertThat(counts.scheduled()).isOne();
		assertThat(counts.started()).isOne();
		assertThat(counts.ran()).isOne();
		assertThat(counts.failed() + counts.fenced() + counts.claimed()).isZero();
	}

	/**
	 * The worker fires the tick's calls one by one while the batches' thread takes them: a batch is
	 * whatever came in since the last statement, so a tick may take a few, never one per call.
	 */
	@Test
	void callsThatFallDueOnOneTickPassTheirGatesAndEndInAFewStatementsNotOneEach() {
		this.harness.start();
		int count = 300;
		for (int i = 0; i < count; i++) {
			this.harness.call("cancelIfUnpaid", "o-" + i);
		}
		this.harness.advance(DELAY);
		assertThat(this.harness.runs()).hasSize(count);
		assertThat(this.harness.calls.rows()).isEmpty();
		FakeStatements statements = this.harness.calls.statements();
		assertThat(statements.count("start")).as("gates").isBetween(1, 10);
		assertThat(statements.count("finish")).as("finishes").isBetween(1, 10);
		CallCounts counts = this.harness.counts();
		assertThat(counts.started()).isEqualTo(count);
		assertThat(counts.ran()).isEqualTo(count);
	}

	@Test
	void aCallCancelledOrTakenOverBeforeItsGateDoesNotRunWhileTheOthersOfItsBatchDo() {
		this.harness.start();
		for (int i = 0; i < 4; i++) {
			this.harness.call("cancelIfUnpaid", "o-" + i);
		}
		List<CallRow> rows = this.harness.calls.rows();
		// Another instance cancels one, and took another over (its owner changed).
		this.harness.calls.cancel(rows.get(1).id());
		this.harness.calls.setOwner(rows.get(2).id(), UUID.randomUUID());
		this.harness.advance(DELAY);
		assertThat(this.harness.runs()).extracting(Run::orderId).containsExactlyInAnyOrder("o-0", "o-3");
		assertThat(this.harness.calls.rows()).extracting(CallRow::id).containsExactly(rows.get(2).id());
		CallCounts counts = this.harness.counts();
		assertThat(counts.started()).isEqualTo(2);
		assertThat(counts.fenced()).isEqualTo(2);
		assertThat(counts.ran()).isEqualTo(2);
	}

	@Test
	void currentAttemptIsOneInsideAFirstRunAndZeroOutsideOne() {
		this.harness.start();
		this.harness.call("cancelIfUnpaid", "o-1");
		this.harness.advance(DELAY);
		assertThat(this.harness.runs()).extracting(Run::attempt).containsExactly(1);
		assertThat(DurableCalls.currentAttempt()).isZero();
	}

	@Test
	void aCallWhoseMethodThrowsIsKeptFailedWithTheExceptionsClassAndMessage() {
		this.harness.start();
		this.harness.call("releaseStock", "o-2");
		this.harness.advance(DELAY);
		assertThat(this.harness.runs()).extracting(Run::orderId).containsExactly("o-2");
		CallRow row = this.harness.onlyRow();
		assertThat(row.state()).isEqualTo(FAILED);
		assertThat(row.owner()).isNull();
		assertThat(row.attempts()).isOne();
		assertThat(row.lastError()).isEqualTo("java.lang.IllegalStateException: no stock reserved for o-2");
		assertThat(row.callKey()).as("the key moved aside as the call started").isNull();
		assertThat(this.harness.durable.admin().failedCalls(null, 10)).singleElement().satisfies((failed) -> {
			assertThat(failed.key()).isEqualTo("o-2");
			assertThat(failed.error()).isEqualTo(row.lastError());
		});
		assertThat(this.harness.failures).singleElement().isInstanceOf(IllegalStateException.class);
		assertThat(this.harness.counts().failed()).isOne();
		assertThat(this.harness.counts().ran()).isZero();
	}

	@Test
	void aCallWhoseTransactionTheConnectionBrokeUnderIsHandedBackAndRunsAgainRatherThanFails() {
		this.harness.start();
		this.harness.call("chargeCard", "o-5");
		// Handed back, the call is pending and due: a poll of this same advance may claim it again.
		this.harness.advance(DELAY);
		this.harness.advance(POLL_INTERVAL.multipliedBy(2));
		assertThat(this.harness.runs()).extracting(Run::orderId, Run::attempt)
			.as("run again, and the run the outage broke was not an attempt")
			.containsExactly(tuple("o-5", 1), tuple("o-5", 1));
		assertThat(this.harness.calls.rows()).isEmpty();
		assertThat(this.harness.counts().failed()).isZero();
		assertThat(this.harness.counts().handedBack()).isOne();
		assertThat(this.harness.failures).isEmpty();
	}

	@Test
	void aMethodFailureWhoseRollbackFailedTooIsKeptFailedWithTheMethodsOwnError() {
		this.harness.start();
		this.harness.call("captureCard", "o-6");
		this.harness.advance(DELAY);
		assertThat(this.harness.onlyRow().state()).isEqualTo(FAILED);
		assertThat(this.harness.onlyRow().lastError())
			.isEqualTo("java.lang.IllegalStateException: card declined for o-6");
		assertThat(this.harness.counts().failed()).isOne();
		assertThat(this.harness.counts().handedBack()).isZero();
	}

	@Test
	void theErrorOfAFailedFutureNamesItsCauseNotTheCompletionException() {
		this.harness.start();
		CompletableFuture<?> future = (CompletableFuture<?>) this.harness.call("refund", "o-3");
		this.harness.advance(DELAY);
		assertThat(this.harness.onlyRow().state()).isEqualTo(FAILED);
		assertThat(this.harness.onlyRow().lastError()).startsWith(IllegalStateException.class.getName())
			.contains("refund refused for o-3")
			.doesNotContain(CompletionException.class.getName());
		assertThat(future).isCompletedExceptionally();
		assertThatThrownBy(future::join).isInstanceOf(CompletionException.class)
			.cause()
			.isInstanceOf(IllegalStateException.class)
			.hasMessage("refund refused for o-3");
	}

	@Test
	void aCallCancelledByKeyBeforeItIsDueNeverRuns() {
		this.harness.start();
		this.harness.call("cancelIfUnpaid", "o-4");
		this.harness.advance(DELAY.minus(TICK));
		assertThat(this.harness.durable.admin().cancel(DurableHarness.id("cancelIfUnpaid"), "o-4")).isTrue();
		assertThat(this.harness.calls.rows()).isEmpty();
		assertThat(this.harness.durable.held()).as("taken off the wheel at once").isZero();
		this.harness.advance(DELAY.multipliedBy(2));
		assertThat(this.harness.runs()).isEmpty();
		assertThat(this.harness.counts().cancelled()).isOne();
		assertThat(this.harness.counts().started() + this.harness.counts().fenced()).isZero();
	}

	@Test
	void aCallReplacedByKeyRunsOnceAtTheNewCallsDueTime() {
		this.harness.start();
		this.harness.call("cancelIfUnpaid", "o-5");
		this.harness.advance(Duration.ofSeconds(2));
		this.harness.call("cancelIfUnpaid", "o-5");
		assertThat(this.harness.onlyRow().due()).isEqualTo(this.harness.now().plus(DELAY));
		assertThat(this.harness.durable.held()).isOne();
		this.harness.advance(DELAY);
		assertThat(this.harness.runs()).containsExactly(new Run("cancelIfUnpaid", "o-5", 1, Duration.ofSeconds(7)));
		assertThat(this.harness.calls.rows()).isEmpty();
		assertThat(this.harness.counts().fenced()).as("the replaced call left its wheel, not at its gate").isZero();
	}

	@Test
	void aCallTakenOverByAnotherOwnerIsFencedAtItsGateAndDoesNotRunHere() {
		this.harness.start();
		this.harness.call("cancelIfUnpaid", "o-6");
		UUID id = this.harness.onlyRow().id();
		UUID other = UUID.randomUUID();
		this.harness.calls.setOwner(id, other);
		this.harness.advance(DELAY.plus(TICK));
		assertThat(this.harness.runs()).isEmpty();
		assertThat(this.harness.counts().fenced()).isOne();
		assertThat(this.harness.counts().started()).isZero();
		CallRow row = this.harness.onlyRow();
		assertThat(row.state()).as("left to its new owner").isEqualTo(CLAIMED);
		assertThat(row.owner()).isEqualTo(other);
		assertThat(row.attempts()).isZero();
	}

	/**
	 * A lapsed lease stops the gate, and the call stays claimed by this instance: it tries again
	 * every retry delay, until the heartbeat is back (or another instance takes it over, which
	 * fences it).
	 */
	@Test
	void aCallWhoseLeaseLapsedByTheDatabasesClockWaitsAtItsGateAndRunsOnceTheHeartbeatIsBack() {
		this.harness.start();
		this.harness.call("cancelIfUnpaid", "o-7");
		UUID id = this.harness.onlyRow().id();
		this.harness.instances.advanceClock(DurableHarness.LEASE.plusMillis(1));
		this.harness.advance(DELAY.plus(Duration.ofSeconds(1)));
		assertThat(this.harness.runs()).isEmpty();
		assertThat(this.harness.calls.statements().count("start")).as("tried again, a retry delay apart")
			.isGreaterThan(2);
		CallRow row = this.harness.calls.row(id);
		assertThat(row.state()).isEqualTo(CLAIMED);
		assertThat(row.owner()).isEqualTo(this.harness.durable.instance());
		assertThat(row.attempts()).isZero();
		assertThat(this.harness.durable.held()).as("back on its wheel").isOne();
		// The heartbeat reaches the database again.
		this.harness.instances.heartbeat(this.harness.durable.instance(), "unit-test", List.of(), "", false);
		this.harness.advance(Duration.ofMillis(200));
		assertThat(this.harness.runs()).extracting(Run::orderId, Run::attempt).containsExactly(tuple("o-7", 1));
		assertThat(this.harness.calls.rows()).isEmpty();
		CallCounts counts = this.harness.counts();
		assertThat(counts.fenced()).isZero();
		assertThat(counts.scheduled() + counts.claimed()).isEqualTo(counts.started() + counts.fenced());
	}

	/**
	 * On MariaDB a gate can lose its locks to the claims and callers around it on every try: its
	 * transaction is rolled back, so its calls are still this instance's and try again here, on
	 * time, rather than go back to wait for a poll.
	 */
	@Test
	void aCallWhoseGateLostItsLocksOnEveryTryStaysHereAndRunsAfterAShortWait() {
		this.harness.start();
		this.harness.call("cancelIfUnpaid", "o-8");
		UUID id = this.harness.onlyRow().id();
		this.harness.calls.statements()
			.failNext("start", 1, () -> new CannotAcquireLockException("Deadlock found when trying to get lock"));
		this.harness.advance(DELAY);
		assertThat(this.harness.runs()).isEmpty();
		CallRow row = this.harness.calls.row(id);
		assertThat(row.state()).isEqualTo(CLAIMED);
		assertThat(row.owner()).isEqualTo(this.harness.durable.instance());
		assertThat(this.harness.durable.held()).as("back on its wheel").isOne();
		this.harness.advance(Duration.ofMillis(200));
		assertThat(this.harness.runs()).extracting(Run::orderId, Run::attempt).containsExactly(tuple("o-8", 1));
		assertThat(this.harness.calls.rows()).isEmpty();
		CallCounts counts = this.harness.counts();
		assertThat(counts.handedBack()).as("handed back").isZero();
		assertThat(counts.fenced()).isZero();
		assertThat(this.harness.calls.statements().count("start")).as("gates").isEqualTo(2);
	}

}
