package io.github.wheeltimer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;

import org.junit.jupiter.api.RepeatedTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every accepted timeout ends in exactly one way (ran, cancelled by its caller, or returned by
 * stop), and the counters say the same, while several threads schedule and cancel and another
 * stops the timer in the middle of it all. Real clock, 1 ms tick.
 */
class HashedWheelTimerConservationTests {

	private static final int THREADS = 4;

	private static final int PER_THREAD = 25_000;

	@RepeatedTest(5)
	@org.junit.jupiter.api.Timeout(value = 60, unit = TimeUnit.SECONDS)
	void schedulingCancellingAndStoppingConcurrentlyLosesNothing() throws Exception {
		HashedWheelTimer timer = HashedWheelTimer.builder().tickDuration(Duration.ofMillis(1)).ticksPerWheel(64).build();
		List<List<Outcome>> perThread = Collections.synchronizedList(new ArrayList<>());
		AtomicLong refusedAfterStop = new AtomicLong();
		CountDownLatch go = new CountDownLatch(1);
		CountDownLatch halfway = new CountDownLatch(THREADS);
		List<Thread> threads = new ArrayList<>();
		for (int t = 0; t < THREADS; t++) {
			Thread thread = new Thread(() -> {
				List<Outcome> outcomes = new ArrayList<>(PER_THREAD);
				perThread.add(outcomes);
				Latches.awaitQuietly(go);
				ThreadLocalRandom random = ThreadLocalRandom.current();
				for (int i = 0; i < PER_THREAD; i++) {
					if (i == PER_THREAD / 2) {
						halfway.countDown();
					}
					Outcome outcome = new Outcome(random.nextInt(50) == 0);
					try {
						outcome.timeout = timer.newTimeout(outcome, random.nextInt(30), TimeUnit.MILLISECONDS);
					}
					catch (IllegalStateException stopped) {
						refusedAfterStop.incrementAndGet();
						continue;
					}
					outcomes.add(outcome);
					if (random.nextBoolean()) {
						Outcome victim = outcomes.get(random.nextInt(outcomes.size()));
						if (victim.timeout.cancel()) {
							victim.cancelledByCaller.incrementAndGet();
						}
					}
				}
			});
			thread.start();
			threads.add(thread);
		}
		Set<Timeout> returnedByStop;
		CapturedLog log = new CapturedLog();
		try {
			go.countDown();
			halfway.await();
			returnedByStop = timer.stop();
			for (Thread thread : threads) {
				thread.join();
			}
		}
		finally {
			log.close();
		}

		Map<Timeout, Boolean> returned = new IdentityHashMap<>();
		returnedByStop.forEach((timeout) -> returned.put(timeout, true));
		long accepted = 0;
		long ran = 0;
		long failed = 0;
		long cancelled = 0;
		for (List<Outcome> outcomes : perThread) {
			for (Outcome outcome : outcomes) {
				accepted++;
				int ends = outcome.runs.get() + outcome.cancelledByCaller.get() + (returned.containsKey(outcome.timeout) ? 1 : 0);
				assertThat(ends).as("ways %s ended", outcome.timeout).isOne();
				// Told once, on the worker, wherever the cancel found it: queued, being taken, or in the wheel.
				assertThat(outcome.told.get()).as("times the task of %s was told it was cancelled", outcome.timeout)
					.isEqualTo(outcome.cancelledByCaller.get());
				if (outcome.runs.get() == 1) {
					assertThat(outcome.timeout.isExpired()).isTrue();
					if (outcome.throwing) {
						failed++;
					}
					else {
						ran++;
					}
				}
				else {
					assertThat(outcome.timeout.isCancelled()).isTrue();
					cancelled += outcome.cancelledByCaller.get();
				}
			}
		}
		WheelSnapshot snapshot = timer.snapshot();
		WheelSnapshot.Counters counters = snapshot.counters();
		assertThat(counters.scheduled()).isEqualTo(accepted);
		assertThat(counters.completed()).isEqualTo(ran);
		assertThat(counters.failed()).isEqualTo(failed);
		assertThat(counters.cancelled()).isEqualTo(cancelled);
		assertThat(counters.unprocessed()).isEqualTo(returnedByStop.size());
		assertThat(counters.rejected()).isEqualTo(refusedAfterStop.get());
		assertThat(counters.running()).isZero();
		assertThat(snapshot.pendingTimeouts()).isZero();
		assertThat(timer.pendingTimeouts()).isZero();
		assertThat(counters.scheduled()).isEqualTo(counters.completed() + counters.failed() + counters.cancelled()
				+ counters.unprocessed() + counters.running() + snapshot.pendingTimeouts());
		assertThat(accepted + refusedAfterStop.get()).isEqualTo((long) THREADS * PER_THREAD);
		assertThat(log.records(Level.WARNING)).as("one warning per failed task").hasSize((int) failed);
		assertThat(snapshot.buckets()).isEmpty();
	}

	private static final class Outcome implements TimerTask {

		final boolean throwing;

		final AtomicInteger runs = new AtomicInteger();

		final AtomicInteger cancelledByCaller = new AtomicInteger();

		final AtomicInteger told = new AtomicInteger();

		volatile Timeout timeout;

		Outcome(boolean throwing) {
			this.throwing = throwing;
		}

		@Override
		public void run(Timeout timeout) {
			this.runs.incrementAndGet();
			if (this.throwing) {
				throw new IllegalStateException("planned failure");
			}
		}

		@Override
		public void cancelled(Timeout timeout) {
			this.told.incrementAndGet();
		}

	}

}
