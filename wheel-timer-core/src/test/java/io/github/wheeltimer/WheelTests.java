package io.github.wheeltimer;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The wheel's structure on its own, on one thread, with the hand put exactly where each case
 * needs it: where a timeout goes, when it moves down, and when it fires.
 */
class WheelTests {

	/** A tick of 100 ns: tick k holds the deadlines (100k, 100(k + 1)]. */
	private static final long TICK = 100;

	private final HashedWheelTimer owner = HashedWheelTimer.builder().build();

	/** 8 buckets: a turn is 8 ticks, a level-1 slot 8 ticks, a level-2 slot 512, a level-3 slot 32,768. */
	private final Wheel wheel = new Wheel(8, TICK);

	@ParameterizedTest(name = "hand {0}, tick {1}: level {2}, slot {3}")
	@CsvSource({
			// In the hand's turn: its own bucket.
			"0, 0, 0, 0", "0, 7, 0, 7", "13, 13, 0, 5", "13, 15, 0, 7",
			// The next turns: level 1, one slot per turn, up to 64 turns.
			"0, 8, 1, 1", "7, 8, 1, 1", "13, 16, 1, 2", "0, 63, 1, 7", "0, 64, 1, 8", "0, 511, 1, 63",
			// 64 turns and more: level 2, one slot per 64 turns.
			"0, 512, 2, 1", "100, 600, 2, 1", "0, 32767, 2, 63",
			// The group of turn bits that differs decides, not the distance: tick 512 is 1 tick from
			// 511, but a level-2 slot away.
			"511, 512, 2, 1", "504, 512, 2, 1",
			"0, 32768, 3, 1" })
	void placesATimeoutByTheHighestGroupOfTurnBitsInWhichItsTickDiffersFromTheHand(long hand, long tick, int level,
			int slot) {
		this.wheel.startAt(hand);
		this.wheel.add(timeoutIn(tick), tick);
		List<WheelSnapshot.Level> levels = this.wheel.levels(0);
		assertThat(levels.get(level).occupied()).extracting(WheelSnapshot.Slot::index, WheelSnapshot.Slot::timeouts)
			.containsExactly(tuple(slot, 1));
		assertThat(levels).filteredOn((other) -> other.index() != level)
			.allSatisfy((other) -> assertThat(other.timeouts()).isZero());
	}

	@Test
	void hasEnoughLevelsForTheFurthestDeadline() {
		this.wheel.startAt(0);
		long furthest = this.wheel.tickOf(Long.MAX_VALUE);
		this.wheel.add(timeoutIn(furthest), furthest);
		List<WheelSnapshot.Level> levels = this.wheel.levels(0);
		assertThat(levels.get(levels.size() - 1).timeouts()).isOne();
		// 2^63 ns in 100 ns ticks is 2^56.4 ticks: 3 bits of buckets, then 6 bits per level.
		assertThat(levels).hasSize(1 + 9);
	}

	@Test
	void firesEachTickInOrderAndMovesUpperSlotsDownOnTheWay() {
		this.wheel.startAt(0);
		List<HashedWheelTimeout> timeouts = new ArrayList<>();
		for (long tick : new long[] { 3, 8, 9, 70, 600, 600, 33_000 }) {
			HashedWheelTimeout timeout = timeoutIn(tick);
			timeouts.add(timeout);
			this.wheel.add(timeout, tick);
		}
		List<Long> firedTicks = new ArrayList<>();
		List<HashedWheelTimeout> fired = new ArrayList<>();
		long tick;
		while ((tick = this.wheel.advance(40_000, fired::add)) >= 0) {
			firedTicks.add(tick);
		}
		assertThat(firedTicks).containsExactly(3L, 8L, 9L, 70L, 600L, 33_000L);
		assertThat(fired).containsExactlyElementsOf(timeouts);
		assertThat(this.wheel.hand()).isEqualTo(40_000);
		assertThat(timeoutsInTheWheel()).isZero();
		// 8, 9 and 70: down from level 1. 600 (twice): from level 2 to level 1 at tick 512, then to
		// level 0. 33,000: from level 3 at tick 32,768, straight to level 1 (it is in the first 64
		// turns of its level-3 slot), then to level 0. Each moves at most once per level.
		assertThat(this.wheel.levels(0)).extracting(WheelSnapshot.Level::moves).startsWith(0L, 6L, 2L, 1L, 0L);
	}

	@Test
	void aSlotMovesDownOnlyWhenTheHandReachesItsStart() {
		this.wheel.startAt(0);
		this.wheel.add(timeoutIn(600), 600);
		assertThat(this.wheel.advance(511, (timeout) -> { })).isEqualTo(-1);
		assertThat(this.wheel.levels(0).get(2).timeouts()).as("slot 1 of level 2 starts at tick 512").isOne();
		// A hand at 512 means tick 512 is next: nothing may wait above a slot the hand is in.
		assertThat(this.wheel.advance(512, (timeout) -> { })).isEqualTo(-1);
		assertThat(this.wheel.levels(0).get(2).timeouts()).isZero();
		assertThat(this.wheel.levels(0).get(1).occupied()).extracting(WheelSnapshot.Slot::index)
			.containsExactly(600 / 8 % 64);
	}

	@Test
	void aJumpOverEmptyTicksCostsNothingAndLeavesTheHandAtTheClock() {
		this.wheel.startAt(5);
		assertThat(this.wheel.advance(1_000_000_000L, (timeout) -> { })).isEqualTo(-1);
		assertThat(this.wheel.hand()).isEqualTo(1_000_000_000L);
		this.wheel.add(timeoutIn(1_000_000_003L), 1_000_000_003L);
		assertThat(this.wheel.levels(0).get(0).occupied()).extracting(WheelSnapshot.Slot::index).containsExactly(3);
	}

	@Test
	void aCancelFindsItsSlotAtEveryLevel() {
		this.wheel.startAt(13);
		List<HashedWheelTimeout> timeouts = new ArrayList<>();
		for (long tick : new long[] { 14, 20, 600, 40_000, 3_000_000, 1L << 40 }) {
			HashedWheelTimeout timeout = timeoutIn(tick);
			timeouts.add(timeout);
			this.wheel.add(timeout, tick);
		}
		assertThat(this.wheel.levels(0)).extracting(WheelSnapshot.Level::timeouts)
			.startsWith(1L, 1L, 1L, 1L, 1L);
		for (HashedWheelTimeout timeout : timeouts) {
			this.wheel.remove(timeout);
			assertThat(timeout.isLinked()).isFalse();
		}
		assertThat(timeoutsInTheWheel()).isZero();
		assertThat(this.wheel.levels(0)).allSatisfy((level) -> assertThat(level.occupied()).isEmpty());
		assertThat(this.wheel.nextDueTick()).isEqualTo(Long.MAX_VALUE);
	}

	@Test
	void theNextDueTickIsTheEarliestDeadlineAtAnyLevelNotTheStartOfItsSlot() {
		this.wheel.startAt(0);
		this.wheel.add(timeoutIn(700), 700);
		this.wheel.add(timeoutIn(650), 650);
		assertThat(this.wheel.nextDueTick()).isEqualTo(650);
		this.wheel.add(timeoutIn(20), 20);
		assertThat(this.wheel.nextDueTick()).isEqualTo(20);
		this.wheel.add(timeoutIn(2), 2);
		assertThat(this.wheel.nextDueTick()).isEqualTo(2);
	}

	@Test
	void theSoonestAreListedAcrossLevelsInDeadlineOrder() {
		this.wheel.startAt(0);
		List<HashedWheelTimeout> byDeadline = new ArrayList<>();
		for (long tick : new long[] { 2, 9, 70, 600, 33_000 }) {
			byDeadline.add(timeoutIn(tick));
		}
		for (int i = byDeadline.size() - 1; i >= 0; i--) {
			HashedWheelTimeout timeout = byDeadline.get(i);
			this.wheel.add(timeout, this.wheel.tickOf(timeout.deadline));
		}
		assertThat(this.wheel.soonest(3)).containsExactlyElementsOf(byDeadline.subList(0, 3));
		assertThat(this.wheel.soonest(10)).containsExactlyElementsOf(byDeadline);
	}

	@Test
	void aCancelledTimeoutIsDroppedWhenItsSlotMovesDownAndNeverFires() {
		this.wheel.startAt(0);
		HashedWheelTimeout cancelled = timeoutIn(600);
		HashedWheelTimeout kept = timeoutIn(601);
		this.wheel.add(cancelled, 600);
		this.wheel.add(kept, 601);
		// Cancelled by its caller; the worker has not taken the cancellation off its queue yet.
		assertThat(cancelled.cancelWithoutNotice()).isTrue();
		List<HashedWheelTimeout> fired = new ArrayList<>();
		while (this.wheel.advance(1_000, fired::add) >= 0) {
		}
		assertThat(fired).containsExactly(kept);
		assertThat(cancelled.isLinked()).as("unlinked, so its queued cancellation leaves the wheel alone").isFalse();
		assertThat(timeoutsInTheWheel()).isZero();
	}

	@Test
	void theNextTurnIsStagedAheadOfItsStartAndFiresEachTickInOrder() {
		this.wheel.startAt(2);
		List<HashedWheelTimeout> timeouts = new ArrayList<>();
		for (long tick : new long[] { 15, 8, 12, 8, 9 }) {
			HashedWheelTimeout timeout = timeoutIn(tick);
			timeouts.add(timeout);
			this.wheel.add(timeout, tick);
		}
		this.wheel.stage(2);
		assertThat(this.wheel.levels(0).get(1).timeouts()).as("staged, still counted in their slot").isEqualTo(5);
		this.wheel.stage(2);
		this.wheel.add(timeoutIn(10), 10);
		this.wheel.stage(10);
		assertThat(this.wheel.levels(0).get(1).timeouts()).isEqualTo(6);
		assertThat(this.wheel.levels(0).get(0).timeouts()).isZero();
		List<Long> firedTicks = new ArrayList<>();
		List<HashedWheelTimeout> fired = new ArrayList<>();
		long tick;
		while ((tick = this.wheel.advance(20, fired::add)) >= 0) {
			firedTicks.add(tick);
		}
		assertThat(firedTicks).containsExactly(8L, 9L, 10L, 12L, 15L);
		assertThat(fired).hasSize(6).containsAll(timeouts);
		assertThat(this.wheel.levels(0).get(1).moves()).isEqualTo(6);
		assertThat(timeoutsInTheWheel()).isZero();
	}

	@Test
	void aCancelWhileTheNextTurnIsStagedLeavesWhicheverListItIsIn() {
		this.wheel.startAt(0);
		List<HashedWheelTimeout> timeouts = new ArrayList<>();
		for (long tick = 8; tick < 16; tick++) {
			HashedWheelTimeout timeout = timeoutIn(tick);
			timeouts.add(timeout);
			this.wheel.add(timeout, tick);
		}
		this.wheel.stage(3);
		// Ticks 8 to 10 are staged. Three are cancelled, their removals queued: a staged one and two
		// not staged yet.
		for (HashedWheelTimeout cancelled : List.of(timeouts.get(0), timeouts.get(7), timeouts.get(5))) {
			assertThat(cancelled.cancelWithoutNotice()).isTrue();
		}
		// The first removal finishes the staging (which drops the two it finds cancelled), so that
		// it knows the staged one's list.
		this.wheel.remove(timeouts.get(0));
		assertThat(timeouts.get(5).isLinked()).as("dropped while staging").isFalse();
		assertThat(timeouts.get(7).isLinked()).as("dropped while staging").isFalse();
		assertThat(this.wheel.levels(0).get(1).timeouts()).isEqualTo(5);
		List<HashedWheelTimeout> fired = new ArrayList<>();
		while (this.wheel.advance(20, fired::add) >= 0) {
		}
		assertThat(fired).containsExactlyElementsOf(List.of(timeouts.get(1), timeouts.get(2), timeouts.get(3),
				timeouts.get(4), timeouts.get(6)));
		assertThat(timeoutsInTheWheel()).isZero();
	}

	@Test
	void staysEmptyWhenEveryStagedTimeoutIsCancelled() {
		this.wheel.startAt(0);
		HashedWheelTimeout only = timeoutIn(9);
		this.wheel.add(only, 9);
		this.wheel.stage(10);
		only.cancelWithoutNotice();
		this.wheel.remove(only);
		assertThat(timeoutsInTheWheel()).isZero();
		assertThat(this.wheel.nextDueTick()).isEqualTo(Long.MAX_VALUE);
		// The same slot index, a whole level-2 slot later: staged afresh.
		this.wheel.advance(512 + 3, (timeout) -> { });
		HashedWheelTimeout later = timeoutIn(512 + 9);
		this.wheel.add(later, 512 + 9);
		this.wheel.stage(10);
		List<HashedWheelTimeout> fired = new ArrayList<>();
		while (this.wheel.advance(600, fired::add) >= 0) {
		}
		assertThat(fired).containsExactly(later);
	}

	@Test
	void theSoonestIncludeStagedTimeouts() {
		this.wheel.startAt(0);
		HashedWheelTimeout staged = timeoutIn(9);
		HashedWheelTimeout near = timeoutIn(3);
		this.wheel.add(staged, 9);
		this.wheel.add(near, 3);
		this.wheel.stage(10);
		assertThat(this.wheel.soonest(5)).containsExactly(near, staged);
		List<HashedWheelTimeout> removed = new ArrayList<>();
		this.wheel.removeAll(removed::add);
		assertThat(removed).containsExactlyInAnyOrder(near, staged);
		assertThat(timeoutsInTheWheel()).isZero();
	}

	private long timeoutsInTheWheel() {
		return this.wheel.levels(0).stream().mapToLong(WheelSnapshot.Level::timeouts).sum();
	}

	/** A timeout whose deadline is the end of {@code tick}: the latest deadline the tick holds. */
	private HashedWheelTimeout timeoutIn(long tick) {
		return new HashedWheelTimeout(this.owner, (timeout) -> { }, this.wheel.endOf(tick));
	}

}
