package io.github.wheeltimer;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Where tasks run, and what happens when they fail.
 */
class HashedWheelTimerExecutionTests {

	private final ManualTicker ticker = new ManualTicker();

	private final ExecutorService executor = Executors.newFixedThreadPool(2, (runnable) -> new Thread(runnable, "task-pool"));

	private final CapturedLog log = new CapturedLog();

	@AfterEach
	void shutdownExecutor() {
		this.executor.shutdownNow();
		this.log.close();
	}

	private HashedWheelTimer.Builder timer() {
		return HashedWheelTimer.builder().tickDuration(Duration.ofMillis(10)).ticker(this.ticker);
	}

	@Test
	void tasksRunOnTheWorkerThreadByDefault() {
		HashedWheelTimer timer = timer().build();
		CompletableFuture<String> thread = new CompletableFuture<>();
		timer.newTimeout((t) -> thread.complete(Thread.currentThread().getName()), Duration.ZERO);
		this.ticker.advance(Duration.ofMillis(10));
		assertThat(thread.orTimeout(10, TimeUnit.SECONDS).join()).isEqualTo(timer.snapshot().worker().name());
		timer.stop();
	}

	@Test
	void threadFactoryNamesTheWorker() {
		HashedWheelTimer timer = timer().threadFactory((runnable) -> new Thread(runnable, "orders-timer")).build();
		timer.start();
		this.ticker.awaitIdle();
		assertThat(timer.snapshot().worker().name()).isEqualTo("orders-timer");
		timer.stop();
	}

	@Test
	void tasksRunOnTheTaskExecutorWhenOneIsGiven() {
		HashedWheelTimer timer = timer().taskExecutor(this.executor).build();
		CompletableFuture<String> thread = new CompletableFuture<>();
		timer.newTimeout((t) -> thread.complete(Thread.currentThread().getName()), Duration.ZERO);
		this.ticker.advance(Duration.ofMillis(10));
		assertThat(thread.orTimeout(10, TimeUnit.SECONDS).join()).isEqualTo("task-pool");
		await().atMost(Duration.ofSeconds(10)).until(() -> timer.snapshot().counters().completed() == 1);
		assertThat(timer.snapshot().counters().running()).isZero();
		timer.stop();
	}

	@Test
	void aBlockedTaskOnTheExecutorDelaysNoOtherTimeout() throws Exception {
		HashedWheelTimer timer = timer().taskExecutor(this.executor).build();
		CountDownLatch release = new CountDownLatch(1);
		CountDownLatch second = new CountDownLatch(1);
		timer.newTimeout((t) -> release.await(), Duration.ofMillis(5));
		timer.newTimeout((t) -> second.countDown(), Duration.ofMillis(15));
		this.ticker.advance(Duration.ofMillis(10));
		this.ticker.awaitIdle();
		await().atMost(Duration.ofSeconds(10)).until(() -> timer.snapshot().counters().running() == 1);
		this.ticker.advance(Duration.ofMillis(10));
		assertThat(second.await(10, TimeUnit.SECONDS)).isTrue();
		release.countDown();
		await().atMost(Duration.ofSeconds(10)).until(() -> timer.snapshot().counters().completed() == 2);
		timer.stop();
	}

	@Test
	void aTaskThatThrowsIsCountedAsFailedAndTheWorkerCarriesOn() {
		HashedWheelTimer timer = timer().build();
		AtomicInteger runs = new AtomicInteger();
		timer.newTimeout((t) -> {
			throw new IllegalStateException("boom");
		}, Duration.ZERO);
		timer.newTimeout((t) -> {
			throw new OutOfMemoryError("pretend");
		}, Duration.ZERO);
		timer.newTimeout((t) -> runs.incrementAndGet(), Duration.ofMillis(15));
		this.ticker.advanceInSteps(Duration.ofMillis(20), Duration.ofMillis(10));
		assertThat(runs).hasValue(1);
		WheelSnapshot snapshot = timer.snapshot();
		assertThat(snapshot.counters().failed()).isEqualTo(2);
		assertThat(snapshot.counters().completed()).isOne();
		assertThat(snapshot.worker().alive()).isTrue();
		assertThat(snapshot.worker().failure()).isNull();
		assertThat(this.log.records(Level.WARNING)).hasSize(2).first().satisfies((record) -> {
			assertThat(record.getMessage()).startsWith("Task of HashedWheelTimeout(").endsWith(" threw an exception");
			assertThat(record.getThrown()).hasMessage("boom");
		});
		timer.stop();
	}

	@Test
	void aTimeoutTheExecutorRefusesIsCountedAsFailedNotLost() {
		AtomicInteger offered = new AtomicInteger();
		Executor refusingFirst = (task) -> {
			if (offered.incrementAndGet() == 1) {
				throw new RejectedExecutionException("queue full");
			}
			task.run();
		};
		HashedWheelTimer timer = timer().taskExecutor(refusingFirst).build();
		Timeout refused = timer.newTimeout((t) -> { }, Duration.ofMillis(5));
		Timeout accepted = timer.newTimeout((t) -> { }, Duration.ofMillis(15));
		this.ticker.advanceInSteps(Duration.ofMillis(20), Duration.ofMillis(10));
		assertThat(refused.isExpired()).isTrue();
		assertThat(accepted.isExpired()).isTrue();
		WheelSnapshot.Counters counters = timer.snapshot().counters();
		assertThat(counters.failed()).isOne();
		assertThat(counters.completed()).isOne();
		assertThat(counters.scheduled()).isEqualTo(counters.completed() + counters.failed());
		assertThat(this.log.records(Level.WARNING)).singleElement()
			.satisfies((record) -> assertThat(record.getMessage()).startsWith("Task executor refused HashedWheelTimeout("));
		timer.stop();
	}

	@Test
	void aWorkerThatDiesCancelsItsTimeoutsReportsThemAndRefusesNewOnes() {
		BreakableTicker breakable = new BreakableTicker(this.ticker);
		HashedWheelTimer timer = timer().ticker(breakable).threadFactory((runnable) -> new Thread(runnable, "doomed"))
			.build();
		Timeout first = timer.newTimeout((t) -> { }, Duration.ofSeconds(1));
		timer.newTimeout((t) -> { }, Duration.ofSeconds(2));
		this.ticker.awaitIdle();
		breakable.breakParks();
		Thread worker = Thread.getAllStackTraces().keySet().stream()
			.filter((thread) -> thread.getName().equals("doomed")).findFirst().orElseThrow();
		this.ticker.unpark(worker);
		await().atMost(Duration.ofSeconds(10)).until(() -> !timer.snapshot().worker().alive());

		WheelSnapshot snapshot = timer.snapshot();
		assertThat(snapshot.state()).isEqualTo(WheelSnapshot.State.SHUTDOWN);
		assertThat(snapshot.worker().failure()).isEqualTo("java.lang.IllegalStateException: clock broke");
		assertThat(snapshot.pendingTimeouts()).isZero();
		assertThat(snapshot.counters().unprocessed()).isEqualTo(2);
		assertThat(first.isCancelled()).isTrue();
		assertThat(this.log.records(Level.SEVERE)).singleElement()
			.satisfies((record) -> assertThat(record.getThrown()).hasMessage("clock broke"));
		assertThatIllegalStateException().isThrownBy(() -> timer.newTimeout((t) -> { }, Duration.ZERO));
		assertThat(timer.stop()).hasSize(2).contains(first);
	}

	@Test
	void aWorkerKilledByAFailingThreadFactoryLeavesTheTimerStoppedNotSilent() {
		HashedWheelTimer timer = timer().threadFactory((runnable) -> {
			throw new IllegalStateException("no threads today");
		}).build();
		assertThatIllegalStateException()
			.isThrownBy(() -> timer.newTimeout((t) -> { }, Duration.ZERO))
			.withMessage("no threads today");
		assertThat(timer.snapshot().state()).isEqualTo(WheelSnapshot.State.SHUTDOWN);
		assertThat(timer.stop()).isEmpty();
		assertThat(timer.pendingTimeouts()).isZero();
	}

}
