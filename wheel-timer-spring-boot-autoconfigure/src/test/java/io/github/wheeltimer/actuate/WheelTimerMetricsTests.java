package io.github.wheeltimer.actuate;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.wheeltimer.HandOff;
import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.WheelSnapshot;
import io.github.wheeltimer.virtualtime.VirtualTicker;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.within;

class WheelTimerMetricsTests {

	private static final Duration TICK = Duration.ofMillis(10);

	/** The delay of the timeouts that fall due in a test. */
	private static final Duration DELAY = Duration.ofMillis(20);

	private final VirtualTicker clock = new VirtualTicker();

	private final HashedWheelTimer timer = HashedWheelTimer.builder().tickDuration(TICK).ticker(this.clock).build();

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	@AfterEach
	void stopTimer() {
		this.timer.stop();
	}

	@Test
	void metersFollowTheTimersCountersTaggedWithItsName() {
		new WheelTimerMetrics(Map.of("ordersTimer", this.timer)).bindTo(this.registry);
		this.timer.newTimeout((timeout) -> { }, DELAY);
		this.timer.newTimeout((timeout) -> {
			throw new IllegalStateException("failing on purpose");
		}, DELAY);
		this.timer.newTimeout((timeout) -> { }, Duration.ofMinutes(1)).cancel();
		this.timer.newTimeout((timeout) -> { }, Duration.ofMinutes(1));
		this.clock.advance(DELAY.minus(TICK));
		assertThat(outcome("completed") + outcome("failed")).as("never early").isZero();
		this.clock.advance(TICK);
		assertThat(outcome("completed")).isOne();
		assertThat(outcome("failed")).isOne();

		assertThat(counter("wheel.timer.scheduled")).isEqualTo(4);
		assertThat(outcome("cancelled")).isEqualTo(1);
		assertThat(this.registry.get("wheel.timer.pending").tag("name", "ordersTimer").gauge().value()).isOne();
		FunctionTimer lateness = this.registry.get("wheel.timer.lateness").tag("name", "ordersTimer").functionTimer();
		assertThat(lateness.count()).isEqualTo(2);
		// Within 1 ns: the registry keeps the total as a double in seconds and converts it back.
		assertThat(lateness.totalTime(TimeUnit.NANOSECONDS))
			.isCloseTo(this.timer.counters().lateness().toNanos(), within(1.0));
		assertThat(this.registry.get("wheel.timer.tick.lag").tag("name", "ordersTimer").timeGauge().value())
			.isNotNegative();

		this.timer.stop();
		assertThatIllegalStateException().isThrownBy(() -> this.timer.newTimeout((timeout) -> { }, Duration.ZERO));
		assertThat(outcome("unprocessed")).isEqualTo(1);
		assertThat(counter("wheel.timer.rejected")).isEqualTo(1);
		assertThat(this.registry.get("wheel.timer.pending").gauge().value()).isZero();
		assertThat(this.registry.get("wheel.timer.timeouts").tag("name", "ordersTimer").functionCounters())
			.as("one meter per outcome of a scheduled timeout, adding up to those scheduled")
			.hasSize(5)
			.extracting(FunctionCounter::count)
			.satisfies((counts) -> assertThat(counts.stream().mapToDouble(Double::doubleValue).sum())
				.isEqualTo(counter("wheel.timer.scheduled")));
	}

	@Test
	void aTaskThatHandsItsWorkOffIsCountedAsTheWorkEnded() {
		new WheelTimerMetrics(Map.of("ordersTimer", this.timer)).bindTo(this.registry);
		List<HandOff> handedOff = new CopyOnWriteArrayList<>();
		for (int i = 0; i < 3; i++) {
			this.timer.newTimeout((timeout) -> handedOff.add(HashedWheelTimer.handOff(timeout)), DELAY);
		}
		this.clock.advance(DELAY.minus(TICK));
		assertThat(handedOff).as("never early").isEmpty();
		this.clock.advance(TICK);
		assertThat(handedOff).hasSize(3);
		assertThat(outcome("completed")).as("handed off, not done").isZero();

		handedOff.get(0).completed();
		handedOff.get(1).failed();
		handedOff.get(2).withdrawn();

		assertThat(outcome("completed")).isOne();
		assertThat(outcome("failed")).isOne();
		assertThat(outcome("withdrawn")).isOne();
		assertThat(counter("wheel.timer.scheduled")).isEqualTo(3);
	}

	@Test
	void movesCountTheTimeoutsMovedDownFromAnUpperLevelOncePerLevel() {
		// Level 0 spans 4 ticks of 10 ms: a timeout 300 ms away waits in an upper level and moves
		// down, once per level it crosses, before it fires.
		try (HashedWheelTimer small = HashedWheelTimer.builder().tickDuration(TICK).ticksPerWheel(4).ticker(this.clock)
			.build()) {
			new WheelTimerMetrics(Map.of("ordersTimer", small)).bindTo(this.registry);
			assertThat(counter("wheel.timer.moves")).isZero();
			small.newTimeout((timeout) -> { }, Duration.ofMillis(300));
			this.clock.advance(Duration.ofMillis(300).minus(TICK));
			assertThat(small.counters().completed()).as("never early").isZero();
			this.clock.advance(TICK);
			assertThat(small.counters().completed()).isOne();

			WheelSnapshot snapshot = small.snapshot();
			int upperLevels = snapshot.levels().size() - 1;
			assertThat(this.registry.get("wheel.timer.moves").functionCounters()).as("one meter per timer").hasSize(1);
			assertThat(counter("wheel.timer.moves")).isEqualTo(snapshot.moves())
				.isBetween((double) Math.min(1, upperLevels), (double) upperLevels);
		}
	}

	private double counter(String name) {
		return this.registry.get(name).tag("name", "ordersTimer").functionCounter().count();
	}

	private double outcome(String outcome) {
		return this.registry.get("wheel.timer.timeouts")
			.tag("name", "ordersTimer")
			.tag("outcome", outcome)
			.functionCounter()
			.count();
	}

}
