package io.github.wheeltimer.durable;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import io.github.wheeltimer.durable.run.CallCounts;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rescheduling on one instance, on virtual time: a call moves on its wheel, never fires at its old
 * time nor before its new one, and the counts still add up.
 */
class DurableRescheduleTests {

	@Test
	void aHeldCallMovedLaterFiresOnceAtItsNewTimeNeverAtItsOldOne() {
		try (DurableHarness harness = new DurableHarness().start()) {
			harness.call("cancelIfUnpaid", "o-1");
			Instant start = harness.now();
			StoredCall moved = harness.durable.admin().reschedule(DurableHarness.id("cancelIfUnpaid"), "o-1",
					start.plusSeconds(8)).orElseThrow();
			assertThat(moved.state()).isEqualTo(CallState.CLAIMED);
			assertThat(moved.owner()).isEqualTo(harness.durable.instance());
			assertThat(harness.durable.held()).isOne();

			harness.advance(Duration.ofMillis(7900));
			assertThat(harness.runs()).as("not at its old time (5 s), nor before its new one").isEmpty();
			harness.advance(Duration.ofMillis(300));
			assertThat(harness.runs()).singleElement()
				.satisfies((run) -> assertThat(run.orderId()).isEqualTo("o-1"));
			assertThat(harness.calls.rows()).isEmpty();

			CallCounts counts = harness.counts();
			assertThat(counts.scheduled() + counts.claimed())
				.isEqualTo(counts.started() + counts.fenced() + counts.handedBack() + harness.durable.held());
			assertThat(counts.fenced()).isZero();
		}
	}

	@Test
	void aCallWaitingInTheDatabaseRunNowFiresOnTheNextTickHereAndCountsAsClaimed() {
		try (DurableHarness harness = new DurableHarness().start()) {
			UUID far = harness.insertPending("remind", Duration.ofMinutes(30), "o-2");
			StoredCall now = harness.durable.admin().reschedule(far, harness.now()).orElseThrow();
			assertThat(now.id()).isNotEqualTo(far);
			assertThat(harness.counts().claimed()).isOne();

			harness.advance(DurableHarness.TICK);
			assertThat(harness.runs()).singleElement()
				.satisfies((run) -> assertThat(run.orderId()).isEqualTo("o-2"));
			CallCounts counts = harness.counts();
			assertThat(counts.scheduled() + counts.claimed())
				.isEqualTo(counts.started() + counts.fenced() + counts.handedBack() + harness.durable.held());
		}
	}

	@Test
	void aCallThatStartedCannotBeMovedOrCancelled() {
		try (DurableHarness harness = new DurableHarness().start()) {
			UUID id = harness.insertPending("remind", Duration.ofMinutes(30), "o-3");
			// Started as the instance's own gate would start it: the row is running, attempt 1.
			UUID self = harness.durable.instance();
			harness.calls.claim(self, harness.now().plus(Duration.ofHours(1)), List.of(DurableHarness.id("remind")), List.of(), 10);
			assertThat(harness.calls.start(List.of(id), self).passed()).containsExactly(id);
			assertThat(harness.durable.admin().find(id).orElseThrow().state()).isEqualTo(CallState.RUNNING);
			assertThat(harness.durable.admin().reschedule(id, harness.now())).isEmpty();
			assertThat(harness.durable.admin().cancel(id)).isEmpty();
			assertThat(harness.calls.row(id).state()).isEqualTo(FakeCallRepository.RUNNING);
		}
	}

}
