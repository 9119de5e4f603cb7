package io.github.wheeltimer.durable;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import io.github.wheeltimer.durable.FakeCallRepository.CallRow;
import io.github.wheeltimer.durable.storage.ClaimedCall;
import io.github.wheeltimer.durable.storage.DatabaseFailure;
import io.github.wheeltimer.durable.storage.FailedCall;
import io.github.wheeltimer.durable.storage.Requeued;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessResourceFailureException;

import static io.github.wheeltimer.durable.FakeCallRepository.CLAIMED;
import static io.github.wheeltimer.durable.FakeCallRepository.FAILED;
import static io.github.wheeltimer.durable.FakeCallRepository.PENDING;
import static io.github.wheeltimer.durable.FakeCallRepository.RUNNING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The fakes keep the statements' semantics that the engine's unit tests rely on, as
 * {@code JdbcCallRepository} writes them in SQL.
 */
class FakeCallRepositoryTests {

	private static final Duration LEASE = Duration.ofSeconds(10);

	private static final String METHOD = "Orders.cancel";

	private static final Instant DUE = Instant.parse("2030-01-01T00:00:05Z");

	private final FakeInstanceRepository instances = new FakeInstanceRepository();

	private final FakeCallRepository calls = new FakeCallRepository(this.instances, LEASE);

	private final UUID me = UUID.randomUUID();

	@Test
	void theGatePassesOnlyForTheOwnerOfAClaimedRowWhoseHeartbeatIsWithinTheLease() {
		UUID id = insert("k", this.me);
		assertThat(this.calls.start(id, this.me)).as("no heartbeat yet").isFalse();
		this.instances.heartbeat(this.me, "me", List.of(METHOD), "", false);
		this.instances.advanceClock(LEASE);
		assertThat(this.calls.start(id, this.me)).as("a whole lease old: lapsed").isFalse();
		this.instances.heartbeat(this.me, "me", List.of(METHOD), "", false);
		assertThat(this.calls.start(id, UUID.randomUUID())).as("not the owner").isFalse();
		assertThat(this.calls.start(id, this.me)).isTrue();
		CallRow row = this.calls.row(id);
		assertThat(row.state()).isEqualTo(RUNNING);
		assertThat(row.attempts()).isOne();
		assertThat(row.callKey()).isNull();
		assertThat(row.startedKey()).isEqualTo("k");
		assertThat(this.calls.start(id, this.me)).as("running already").isFalse();
	}

	@Test
	void aClaimTakesPendingRowsDueByItsInstantOfItsMethodsEarliestFirstUpToItsLimit() {
		UUID late = insertDue(DUE.plusSeconds(2), null);
		UUID early = insertDue(DUE, null);
		insertDue(DUE.plusSeconds(3), null);
		UUID claimed = insertDue(DUE.minusSeconds(1), UUID.randomUUID());
		this.calls.insert(UUID.randomUUID(), "Other.method", null, "[]", DUE, null, null, "");
		List<ClaimedCall> rows = this.calls.claim(this.me, DUE.plusSeconds(2), Set.of(METHOD), List.of(), 2);
		assertThat(rows).extracting(ClaimedCall::id).containsExactly(early, late);
		assertThat(this.calls.row(early).owner()).isEqualTo(this.me);
		assertThat(this.calls.row(claimed).state()).isEqualTo(CLAIMED);
		assertThat(this.calls.claim(this.me, DUE.plusSeconds(2), Set.of(METHOD), List.of(), 2)).isEmpty();
		assertThat(this.calls.claim(this.me, DUE.plusSeconds(9), List.of(), List.of(), 2)).isEmpty();
	}

	@Test
	void anInsertWithAKeyReplacesThePendingOrClaimedCallOfThatKeyButNotAStartedOne() {
		UUID first = insert("k", this.me);
		UUID second = insert("k", null);
		assertThat(this.calls.rows()).extracting(CallRow::id, CallRow::state).containsExactly(tuple(second, PENDING));
		this.instances.heartbeat(this.me, "me", List.of(), "", false);
		this.calls.claim(this.me, DUE, Set.of(METHOD), List.of(), 10);
		assertThat(this.calls.start(second, this.me)).isTrue();
		UUID third = insert("k", null);
		assertThat(this.calls.rows()).extracting(CallRow::id).containsExactly(second, third);
		assertThat(first).isNotIn(second, third);
	}

	@Test
	void cancelsTakeOnlyPendingOrClaimedCalls() {
		this.instances.heartbeat(this.me, "me", List.of(), "", false);
		UUID running = insert("running", this.me);
		this.calls.start(running, this.me);
		assertThat(this.calls.cancel(METHOD, "running")).isFalse();
		assertThat(this.calls.cancel(running)).isFalse();
		assertThat(this.calls.cancel(METHOD, "claimed")).isFalse();
		insert("claimed", this.me);
		assertThat(this.calls.cancel(METHOD, "claimed")).isTrue();
		assertThat(this.calls.cancel(insert("claimed-too", this.me))).isTrue();
		assertThat(this.calls.cancel(insert(null, null))).isTrue();
		assertThat(this.calls.rows()).extracting(CallRow::id).containsExactly(running);
	}

	@Test
	void failAndFinishAreGuardedByOwnerStateAndAttempt() {
		this.instances.heartbeat(this.me, "me", List.of(), "", false);
		UUID id = insert("k", this.me);
		assertThat(this.calls.fail(id, this.me, 1, "boom")).as("not running").isFalse();
		this.calls.start(id, this.me);
		assertThat(this.calls.fail(id, this.me, 2, "boom")).as("another attempt").isFalse();
		assertThat(this.calls.finish(id, UUID.randomUUID(), 1)).as("another owner").isFalse();
		assertThat(this.calls.fail(id, this.me, 1, "boom")).isTrue();
		CallRow failed = this.calls.row(id);
		assertThat(failed.state()).isEqualTo(FAILED);
		assertThat(failed.owner()).isNull();
		assertThat(failed.finishedAt()).isEqualTo(this.instances.now());
		assertThat(this.calls.finish(id, this.me, 1)).isFalse();
	}

	@Test
	void releaseDeadOwnersPutsBackTheClaimedAndRunningCallsOfInstancesWhoseLeaseRanOut() {
		UUID dead = UUID.randomUUID();
		this.instances.heartbeat(dead, "dead", List.of(), "", false);
		UUID running = insert("a", dead);
		this.calls.start(running, dead);
		UUID held = insert("b", dead);
		this.instances.advanceClock(LEASE);
		this.instances.heartbeat(this.me, "me", List.of(), "", false);
		UUID mine = insert("c", this.me);
		assertThat(this.calls.takeOverDeadOwners()).containsOnlyKeys(running, held).containsValues(dead);
		assertThat(this.calls.rows(PENDING)).hasSize(2);
		assertThat(this.calls.row(running).attempts()).as("runs again: at least once").isOne();
		assertThat(this.calls.row(mine).state()).isEqualTo(CLAIMED);
	}

	@Test
	void aRequeueGivesTheKeyBackUnlessAPendingCallHoldsIt() {
		this.instances.heartbeat(this.me, "me", List.of(), "", false);
		UUID free = failed("free");
		UUID held = failed("held");
		UUID holder = insert("held", null);
		Requeued requeued = this.calls.requeueFailed(null, DUE);
		assertThat(requeued.requeued()).isOne();
		assertThat(requeued.keyHeld()).extracting(FailedCall::id).containsExactly(held);
		assertThat(this.calls.row(free)).satisfies((row) -> {
			assertThat(row.state()).isEqualTo(PENDING);
			assertThat(row.callKey()).isEqualTo("free");
			assertThat(row.attempts()).as("its run before stays counted").isOne();
		});
		assertThat(this.calls.row(held).state()).isEqualTo(FAILED);
		assertThat(this.calls.row(holder).state()).isEqualTo(PENDING);
	}

	@Test
	void injectedFailuresFailTheNextStatementsOfTheirMethodOnlyAndEveryStatementIsCounted() {
		this.calls.statements().failNext("claim", 2, FakeStatements::unreachable);
		for (int i = 0; i < 2; i++) {
			assertThatExceptionOfType(DataAccessResourceFailureException.class)
				.isThrownBy(() -> this.calls.claim(this.me, DUE, Set.of(METHOD), List.of(), 1))
				.satisfies((ex) -> assertThat(DatabaseFailure.of(ex)).isEqualTo(DatabaseFailure.UNREACHABLE));
		}
		assertThat(this.calls.cancel(UUID.randomUUID())).isFalse();
		assertThat(this.calls.claim(this.me, DUE, Set.of(METHOD), List.of(), 1)).isEmpty();
		assertThat(this.calls.statements().count("claim")).isEqualTo(3);
		assertThat(this.calls.statements().count("cancelById")).isOne();
	}

	private UUID insert(String key, UUID owner) {
		UUID id = UUID.randomUUID();
		this.calls.insert(id, METHOD, key, "[]", DUE, owner, null, "");
		return id;
	}

	private UUID insertDue(Instant due, UUID owner) {
		UUID id = UUID.randomUUID();
		this.calls.insert(id, METHOD, null, "[]", due, owner, null, "");
		return id;
	}

	private UUID failed(String key) {
		UUID id = insert(key, this.me);
		this.calls.start(id, this.me);
		this.calls.fail(id, this.me, 1, "boom");
		return id;
	}

}
