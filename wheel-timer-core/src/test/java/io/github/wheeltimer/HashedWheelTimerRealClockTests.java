package io.github.wheeltimer;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The few tests on the real clock: strict about "never before the deadline", generous about
 * "not much after" (CI machines are small and busy).
 */
class HashedWheelTimerRealClockTests {

	private static final long GENEROUS_SLACK_NANOS = TimeUnit.SECONDS.toNanos(2);

	@Test
	void timeoutsFireAfterTheirDeadlineAndNotMuchLater() {
		HashedWheelTimer timer = HashedWheelTimer.builder().tickDuration(Duration.ofMillis(10)).ticksPerWheel(32).build();
		Map<Long, Long> lateness = new ConcurrentHashMap<>();
		int count = 300;
		for (int i = 0; i < count; i++) {
			long delay = TimeUnit.MILLISECONDS.toNanos(ThreadLocalRandom.current().nextInt(0, 600));
			long scheduledAt = System.nanoTime();
			long key = i;
			timer.newTimeout((t) -> lateness.put(key, System.nanoTime() - scheduledAt - delay), delay,
					TimeUnit.NANOSECONDS);
		}
		await().atMost(Duration.ofSeconds(20)).until(() -> lateness.size() == count);
		assertThat(lateness.values()).allSatisfy(
				(late) -> assertThat(late).as("lateness in ns").isGreaterThanOrEqualTo(0).isLessThan(GENEROUS_SLACK_NANOS));
		assertThat(timer.stop()).isEmpty();
	}

	@Test
	void anIdleTimerStillFiresAPromptlyScheduledTimeout() {
		HashedWheelTimer timer = new HashedWheelTimer(1, TimeUnit.MILLISECONDS);
		timer.start();
		long scheduledAt = System.nanoTime();
		long[] firedAt = new long[1];
		Timeout timeout = timer.newTimeout((t) -> firedAt[0] = System.nanoTime(), 20, TimeUnit.MILLISECONDS);
		await().atMost(Duration.ofSeconds(10)).until(timeout::isExpired);
		await().atMost(Duration.ofSeconds(10)).until(() -> timer.snapshot().counters().completed() == 1);
		assertThat(firedAt[0] - scheduledAt).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(20));
		timer.stop();
	}

}
