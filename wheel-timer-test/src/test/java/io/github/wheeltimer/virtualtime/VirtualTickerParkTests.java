package io.github.wheeltimer.virtualtime;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A thread parked on the ticker wakes when virtual time reaches the end of its park, when
 * unparked, or when interrupted, like {@link java.util.concurrent.locks.LockSupport}; an advance
 * waits for it to park before moving the clock.
 */
class VirtualTickerParkTests {

	private static final long JOIN_MILLIS = 10_000;

	private final VirtualTicker ticker = new VirtualTicker();

	@Test
	void parkedThreadWakesWhenVirtualTimeReachesTheEndOfItsPark() throws InterruptedException {
		AtomicReference<Duration> wokeAt = new AtomicReference<>();
		Thread sleeper = start(() -> {
			this.ticker.park(Duration.ofSeconds(5).toNanos());
			wokeAt.set(this.ticker.elapsed());
		});

		this.ticker.advance(Duration.ofSeconds(4));
		assertThat(wokeAt).hasValue(null);
		this.ticker.advance(Duration.ofSeconds(2));

		assertThat(wokeAt).as("woke, and the advance waited for it").hasValue(Duration.ofSeconds(5));
		sleeper.join(JOIN_MILLIS);
		assertThat(sleeper.isAlive()).isFalse();
	}

	@Test
	void unparkWakesAParkedThread() throws InterruptedException {
		AtomicBoolean woke = new AtomicBoolean();
		Thread sleeper = start(() -> {
			this.ticker.park(Long.MAX_VALUE);
			woke.set(true);
		});
		assertThat(this.ticker.nextWakeUp()).as("parked without limit").isEmpty();

		this.ticker.unpark(sleeper);
		sleeper.join(JOIN_MILLIS);

		assertThat(woke).isTrue();
		assertThat(this.ticker.elapsed()).isZero();
	}

	@Test
	void interruptWakesAParkedThreadAndLeavesItsFlagSet() throws InterruptedException {
		AtomicBoolean interrupted = new AtomicBoolean();
		Thread sleeper = start(() -> {
			this.ticker.park(Long.MAX_VALUE);
			interrupted.set(Thread.currentThread().isInterrupted());
		});
		assertThat(this.ticker.nextWakeUp()).isEmpty();

		sleeper.interrupt();
		sleeper.join(JOIN_MILLIS);

		assertThat(sleeper.isAlive()).isFalse();
		assertThat(interrupted).isTrue();
	}

	@Test
	void unparkBeforeParkMakesTheParkReturnAtOnce() throws InterruptedException {
		AtomicBoolean returned = new AtomicBoolean();
		Thread parker = new Thread(() -> {
			this.ticker.unpark(Thread.currentThread());
			this.ticker.park(Long.MAX_VALUE);
			returned.set(true);
		});
		parker.setDaemon(true);
		parker.start();
		parker.join(JOIN_MILLIS);
		assertThat(returned).isTrue();
	}

	@Test
	void parkOfZeroOrLessReturnsAtOnce() {
		this.ticker.park(0);
		this.ticker.park(-1);
		this.ticker.advance(Duration.ofSeconds(1));
		assertThat(this.ticker.elapsed()).as("the caller did not become a worker to wait for")
			.isEqualTo(Duration.ofSeconds(1));
	}

	/** Starts a thread that parks, attached as a timer attaches its worker, so advances wait for it. */
	private Thread start(Runnable parking) {
		Thread thread = new Thread(parking, "parker");
		thread.setDaemon(true);
		thread.start();
		this.ticker.attach(thread);
		return thread;
	}

}
