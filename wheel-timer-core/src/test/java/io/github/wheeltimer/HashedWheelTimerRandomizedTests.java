package io.github.wheeltimer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random schedules, cancels and clock jumps over every level of the wheel, checked exactly: each
 * timeout fires at the first clock reading at or after the end of the tick that holds its
 * deadline, once, unless its cancel won; and the wheel holds exactly the pending timeouts.
 */
class HashedWheelTimerRandomizedTests {

	private static final long TICK = TimeUnit.MILLISECONDS.toNanos(1);

	private static final long MIN_DELAY = TimeUnit.MICROSECONDS.toNanos(1);

	private static final long MAX_DELAY = TimeUnit.HOURS.toNanos(6);

	private static final long MAX_JUMP = TimeUnit.HOURS.toNanos(2);

	// A misplaced timeout can leave the worker waking for nothing, round after round: fail, not hang.
	@org.junit.jupiter.api.Timeout(60)
	@ParameterizedTest(name = "{0} buckets, seed {1}")
	@CsvSource({ "8, 1", "8, 2", "1, 3", "64, 4", "512, 5" })
	void everyTimeoutFiresOnTheFirstClockReadingAfterItsTickAtAnyLevel(int buckets, long seed) throws Exception {
		SplittableRandom random = new SplittableRandom(seed);
		long start = Long.MAX_VALUE - TimeUnit.HOURS.toNanos(3);
		ManualTicker ticker = new ManualTicker(start);
		HashedWheelTimer timer = HashedWheelTimer.builder()
			.tickDuration(Duration.ofNanos(TICK))
			.ticksPerWheel(buckets)
			.ticker(ticker)
			.build();
		Map<Timeout, Long> deadlines = new ConcurrentHashMap<>();
		Map<Timeout, Long> scheduledAt = new ConcurrentHashMap<>();
		Map<Timeout, List<Long>> fired = new ConcurrentHashMap<>();
		List<Timeout> cancelled = new ArrayList<>();
		List<Timeout> open = new ArrayList<>();
		// Every clock reading the worker was given time to act on, as elapsed nanos.
		List<Long> readings = new ArrayList<>();
		TimerTask record = (timeout) -> fired.computeIfAbsent(timeout, (t) -> new ArrayList<>())
			.add(ticker.nanoTime() - start);
		try {
			timer.start();
			ticker.awaitIdle();
			for (int round = 0; round < 400; round++) {
				long now = ticker.nanoTime() - start;
				for (int i = random.nextInt(12); i > 0; i--) {
					long delay = logUniform(random, MIN_DELAY, MAX_DELAY);
					Timeout timeout = timer.newTimeout(record, delay, TimeUnit.NANOSECONDS);
					deadlines.put(timeout, now + delay);
					scheduledAt.put(timeout, now);
					open.add(timeout);
				}
				for (int i = random.nextInt(4); i > 0 && !open.isEmpty(); i--) {
					Timeout timeout = open.remove(random.nextInt(open.size()));
					if (timeout.cancel()) {
						cancelled.add(timeout);
					}
				}
				long jump = random.nextBoolean() ? logUniform(random, 1_000, MAX_JUMP)
						: TICK * (1 + random.nextInt(3)) - (now % TICK);
				ticker.advance(Duration.ofNanos(jump));
				ticker.awaitIdle();
				readings.add(ticker.nanoTime() - start);
				if (jump >= TICK && round % 4 == 0) {
					// Far timeouts wait in the queue until the worker needs them; a question has it
					// take them all first. It has crossed a boundary since the last cancel, so it
					// has taken those: the wheel then holds exactly what is pending. (Only every
					// fourth round: the others leave far timeouts queued across the jumps.)
					timer.nextTimeouts(1, Duration.ofSeconds(10));
					ticker.awaitIdle();
					WheelSnapshot snapshot = timer.snapshot();
					assertThat(snapshot.levels().stream().mapToLong(WheelSnapshot.Level::timeouts).sum())
						.as("round %d", round).isEqualTo(timer.pendingTimeouts());
				}
			}
			ticker.advance(Duration.ofNanos(MAX_DELAY + TICK));
			ticker.awaitIdle();
			readings.add(ticker.nanoTime() - start);

			assertThat(cancelled).allSatisfy((timeout) -> assertThat(fired).doesNotContainKey(timeout));
			assertThat(fired.size() + cancelled.size()).isEqualTo(deadlines.size());
			deadlines.forEach((timeout, deadline) -> {
				if (cancelled.contains(timeout)) {
					return;
				}
				long tickEnd = (Math.floorDiv(deadline - 1, TICK) + 1) * TICK;
				long expected = readings.stream()
					.filter((reading) -> reading > scheduledAt.get(timeout) && reading >= tickEnd)
					.findFirst()
					.orElseThrow();
				assertThat(fired.get(timeout)).as("%s, deadline %d", timeout, deadline).containsExactly(expected);
			});
			WheelSnapshot snapshot = timer.snapshot();
			assertThat(snapshot.pendingTimeouts()).isZero();
			assertThat(snapshot.counters().completed()).isEqualTo(fired.size());
			assertThat(snapshot.counters().cancelled()).isEqualTo(cancelled.size());
			assertThat(snapshot.levels()).allSatisfy((level) -> assertThat(level.timeouts()).isZero());
			if (buckets <= 64) {
				assertThat(snapshot.levels().subList(1, 4)).as("the timeouts came down through several levels")
					.allSatisfy((level) -> assertThat(level.moves()).isPositive());
			}
		}
		finally {
			timer.stop();
		}
	}

	private static long logUniform(SplittableRandom random, long min, long max) {
		return (long) Math.exp(random.nextDouble(Math.log(min), Math.log(max)));
	}

}
