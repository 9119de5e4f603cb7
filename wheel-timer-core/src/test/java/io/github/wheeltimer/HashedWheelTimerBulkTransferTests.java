package io.github.wheeltimer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * New and cancelled timeouts that can wait stay in the worker's queues while they stream in, and
 * the worker takes them in bulk: halfway to its next wake-up and within 16 ticks for new ones,
 * within a tick for cancelled ones, at once for a question. What cannot wait still wakes it.
 */
class HashedWheelTimerBulkTransferTests {

	private static final Duration TICK = Duration.ofMillis(1);

	private final ManualTicker ticker = new ManualTicker();

	private final HashedWheelTimer timer = HashedWheelTimer.builder()
		.tickDuration(TICK)
		.ticksPerWheel(512)
		.ticker(this.ticker)
		.build();

	private final AtomicInteger runs = new AtomicInteger();

	@AfterEach
	void stopTimer() {
		this.timer.stop();
	}

	@Test
	void aStreamOfFarTimeoutsWakesTheWorkerAFewTimesAndIsInTheWheelWithinSixteenTicks() {
		this.timer.newTimeout((t) -> this.runs.incrementAndGet(), Duration.ofMinutes(10));
		this.ticker.awaitIdle();
		int parks = this.ticker.parkCount();
		for (int i = 0; i < 20_000; i++) {
			this.timer.newTimeout((t) -> this.runs.incrementAndGet(), Duration.ofHours(1));
		}
		this.ticker.awaitIdle();
		assertThat(this.ticker.parkCount() - parks).as("wake-ups while 20,000 far timeouts came in")
			.isLessThanOrEqualTo(4);
		assertThat(this.timer.pendingTimeouts()).isEqualTo(20_001);
		if (timeoutsInTheWheel() < 20_001) {
			assertThat(this.ticker.idleSleepRemaining()).as("the worker comes back for what it left queued")
				.isLessThanOrEqualTo(TICK.multipliedBy(TimerWorker.MAX_QUEUED_TICKS));
		}
		this.ticker.advance(TICK.multipliedBy(TimerWorker.MAX_QUEUED_TICKS));
		this.ticker.awaitIdle();
		assertThat(timeoutsInTheWheel()).isEqualTo(20_001);
		this.ticker.advance(Duration.ofHours(1));
		this.ticker.awaitIdle();
		assertThat(this.runs).hasValue(20_001);
	}

	@Test
	void aTimeoutDueBeforeThePlannedWakeUpStillWakesTheWorkerInTime() {
		this.timer.newTimeout((t) -> { }, Duration.ofMinutes(10));
		this.ticker.awaitIdle();
		for (int i = 0; i < 5_000; i++) {
			this.timer.newTimeout((t) -> { }, Duration.ofHours(1));
		}
		this.timer.newTimeout((t) -> this.runs.incrementAndGet(), Duration.ofMillis(5));
		this.ticker.awaitIdle();
		assertThat(this.ticker.idleSleepRemaining()).isLessThanOrEqualTo(Duration.ofMillis(5));
		this.ticker.advance(Duration.ofMillis(5).minusNanos(1));
		this.ticker.awaitIdle();
		assertThat(this.runs).as("before the deadline").hasValue(0);
		this.ticker.advance(Duration.ofNanos(1));
		this.ticker.awaitIdle();
		assertThat(this.runs).hasValue(1);
	}

	@Test
	void aQuestionIsAnsweredFromWhatWaitsInTheQueueToo() throws Exception {
		Timeout tenMinutes = this.timer.newTimeout((t) -> { }, Duration.ofMinutes(10));
		this.ticker.awaitIdle();
		List<Timeout> stream = new ArrayList<>();
		for (int i = 0; i < 5_000; i++) {
			stream.add(this.timer.newTimeout((t) -> { }, Duration.ofHours(1).plusMillis(i)));
		}
		List<Timeout> next = this.timer.nextTimeouts(3, Duration.ofSeconds(10));
		assertThat(next).containsExactly(tenMinutes, stream.get(0), stream.get(1));
		this.ticker.awaitIdle();
		assertThat(timeoutsInTheWheel()).isEqualTo(5_001);
	}

	@Test
	void aTimeoutCancelledWhileItWaitsInTheQueueIsLetGoWithinATick() {
		this.timer.newTimeout((t) -> { }, Duration.ofMinutes(10));
		this.ticker.awaitIdle();
		AtomicReference<Timeout> toldCancelled = new AtomicReference<>();
		List<Timeout> stream = new ArrayList<>();
		for (int i = 0; i < 5_000; i++) {
			stream.add(this.timer.newTimeout(new CancelWatchingTask(toldCancelled::set), Duration.ofHours(1)));
		}
		Timeout last = stream.get(stream.size() - 1);
		assertThat(last.cancel()).isTrue();
		assertThat(this.timer.pendingTimeouts()).as("counted at once").isEqualTo(5_000);
		// Asleep first: a worker still taking the stream when the clock moves wakes a tick later.
		this.ticker.awaitIdle();
		this.ticker.advance(TICK);
		this.ticker.awaitIdle();
		assertThat(toldCancelled.get()).as("its task told, once it left the queue").isSameAs(last);
		assertThat(this.timer.snapshot().counters().cancelled()).isOne();
	}

	@Test
	void aTimeoutItsSchedulerTookBackWhileItWaitedInTheQueueIsLetGoUntold() {
		this.timer.newTimeout((t) -> { }, Duration.ofMinutes(10));
		this.ticker.awaitIdle();
		AtomicReference<Timeout> toldCancelled = new AtomicReference<>();
		HashedWheelTimeout last = null;
		for (int i = 0; i < 5_000; i++) {
			last = (HashedWheelTimeout) this.timer.newTimeout(new CancelWatchingTask(toldCancelled::set),
					Duration.ofHours(1));
		}
		// The losing side of a schedule that raced a stop, played while the timeout is still queued.
		HashedWheelTimeout takenBack = last;
		assertThatIllegalStateException().isThrownBy(() -> this.timer.takeBackIfStopped(takenBack));
		this.ticker.awaitIdle();
		this.ticker.advance(TICK);
		this.ticker.awaitIdle();
		assertThat(this.timer.snapshot().levels().stream().mapToLong(WheelSnapshot.Level::timeouts).sum())
			.as("in the wheel").isEqualTo(5_000);
		assertThat(toldCancelled.get()).as("a refused timeout is not a cancelled one").isNull();
		WheelSnapshot.Counters counters = this.timer.snapshot().counters();
		assertThat(counters.rejected()).isOne();
		assertThat(counters.cancelled()).isZero();
		assertThat(this.timer.pendingTimeouts()).isEqualTo(5_000);
	}

	@Test
	void countersAddUpAtEveryReadWhileTheWorkerFiresTasksOnItself() throws Exception {
		HashedWheelTimer realTime = HashedWheelTimer.builder().tickDuration(TICK).build();
		try {
			int timeouts = 200_000;
			CountDownLatch fired = new CountDownLatch(timeouts);
			for (int i = 0; i < timeouts; i++) {
				realTime.newTimeout((t) -> fired.countDown(), 20, TimeUnit.MILLISECONDS);
			}
			AtomicBoolean done = new AtomicBoolean();
			AtomicReference<WheelSnapshot.Counters> broken = new AtomicReference<>();
			AtomicInteger reads = new AtomicInteger();
			Thread reader = new Thread(() -> {
				while (!done.get() && broken.get() == null) {
					WheelSnapshot snapshot = realTime.snapshot();
					WheelSnapshot.Counters counters = snapshot.counters();
					long outcomes = counters.completed() + counters.failed() + counters.cancelled()
							+ counters.unprocessed() + counters.running() + snapshot.pendingTimeouts();
					if (outcomes != counters.scheduled()) {
						broken.set(counters);
					}
					reads.incrementAndGet();
				}
			});
			reader.setDaemon(true);
			reader.start();
			try {
				assertThat(fired.await(30, TimeUnit.SECONDS)).isTrue();
			}
			finally {
				done.set(true);
				reader.join(10_000);
			}
			assertThat(broken.get()).as("a read whose counters do not add up").isNull();
			assertThat(reads.get()).isPositive();
		}
		finally {
			realTime.stop();
		}
	}

	private long timeoutsInTheWheel() {
		return this.timer.snapshot().levels().stream().mapToLong(WheelSnapshot.Level::timeouts).sum();
	}

}
