package io.github.wheeltimer.test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.annotation.DelayedExecution;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * A Spring Boot test of delayed methods on virtual time, as a user writes one: hours of delays in
 * milliseconds, on several timers from the properties, with futures, a re-arming method, an
 * executor other than the caller's thread and a transaction.
 */
@SpringBootTest(classes = VirtualWheelTimeTests.Shop.class,
		properties = { "wheel-timer.tick-duration=100ms", "wheel-timer.timers.requests.tick-duration=1ms",
				"wheel-timer.timers.requests.ticks-per-wheel=1024", "wheel-timer.timers.expiry.tick-duration=1s",
				"wheel-timer.timers.expiry.ticks-per-wheel=4096" })
@VirtualWheelTime
class VirtualWheelTimeTests {

	@Autowired
	Orders orders;

	@Autowired
	VirtualWheelClock clock;

	@Autowired
	Map<String, HashedWheelTimer> timers;

	@Autowired
	RecordingTransactionManager transactions;

	/**
	 * The tests share the context, so each starts where the last left the clock. A call runs on
	 * its timer's first tick at or after its due time, and the coarsest timer here ticks once a
	 * second: starting on a whole second makes every due time below a tick of every timer.
	 */
	@BeforeEach
	void startOnAWholeSecond() {
		long intoTheSecond = this.clock.elapsed().toNanos() % Duration.ofSeconds(1).toNanos();
		if (intoTheSecond != 0) {
			this.clock.advance(Duration.ofSeconds(1).minusNanos(intoTheSecond));
		}
	}

	@Test
	void anUnpaidOrderIsCancelledAfterThirtyMinutesOfVirtualTime() {
		long realStart = System.nanoTime();
		String order = this.orders.create("teapot");
		Duration createdAt = this.clock.elapsed();
		this.clock.advance(Duration.ofMinutes(29));
		assertThat(this.orders.status(order)).isEqualTo("AWAITING_PAYMENT");
		this.clock.advance(Duration.ofMinutes(1));
		assertThat(this.orders.status(order)).isEqualTo("CANCELLED");
		assertThat(this.orders.cancelledAt(order)).as("on its due time, never before").isEqualTo(
				createdAt.plusMinutes(30));
		assertThat(this.orders.cancelledOn(order)).as("on the executor, not the caller's thread").startsWith("task-");
		System.out.printf("30 virtual minutes took %d ms of real time%n",
				TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - realStart));
	}

	@Test
	void aPaidOrderIsNotCancelled() {
		String order = this.orders.create("kettle");
		this.clock.advance(Duration.ofMinutes(10));
		this.orders.pay(order);
		this.clock.advance(Duration.ofHours(1));
		assertThat(this.orders.status(order)).isEqualTo("PAID");
	}

	@Test
	void aFutureCompletesWithinTheAdvanceThatCrossesItsDueTimeAndNotBefore() throws Exception {
		CompletableFuture<String> timeout = this.orders.requestTimeout("GET /stock");
		this.clock.advance(Duration.ofMillis(4_999));
		assertThat(timeout).isNotDone();
		this.clock.advance(Duration.ofMillis(1));
		assertThat(timeout).isCompletedWithValue("timed out: GET /stock");
	}

	@Test
	void aMethodThatReArmsItselfRunsOncePerPeriodCrossedNotForEver() {
		int before = this.orders.heartbeats();
		this.orders.heartbeat();
		try {
			this.clock.advance(Duration.ofMinutes(10));
			assertThat(this.orders.heartbeats() - before).isEqualTo(10);
			this.clock.advance(Duration.ofSeconds(59));
			assertThat(this.orders.heartbeats() - before).isEqualTo(10);
			this.clock.advance(Duration.ofSeconds(1));
			assertThat(this.orders.heartbeats() - before).isEqualTo(11);
		}
		finally {
			this.orders.stopHeartbeat();
			this.clock.advance(Duration.ofMinutes(1));
		}
	}

	@Test
	void callsOnTimersOfDifferentTicksRunInDueOrderEachOnItsDueTime() {
		this.orders.runs().clear();
		Duration start = this.clock.elapsed();
		this.orders.onRequests("requests after 2s");
		this.orders.onExpiry("expiry after 1s");
		this.orders.onDefault("wheelTimer after 1.5s");
		this.clock.advance(Duration.ofSeconds(3));
		assertThat(this.orders.runs()).containsExactly("expiry after 1s at " + start.plusSeconds(1),
				"wheelTimer after 1.5s at " + start.plusMillis(1500), "requests after 2s at " + start.plusSeconds(2));
		assertThat(this.timers).containsOnlyKeys("wheelTimer", "requests", "expiry");
	}

	@Test
	void advanceToNextCallStopsAtTheNextCallOfAnyTimer() {
		this.clock.advance(Duration.ofMinutes(31)); // lets calls of earlier tests run out
		this.orders.runs().clear();
		this.orders.onExpiry("expiry after 1s");
		assertThat(this.clock.pendingCalls()).isOne();
		assertThat(this.clock.advanceToNextCall()).isEqualTo(Duration.ofSeconds(1));
		assertThat(this.orders.runs()).hasSize(1);
		assertThat(this.clock.pendingCalls()).isZero();
		assertThat(this.clock.advanceToNextCall()).as("nothing pending").isZero();
	}

	@Test
	void aTransactionalDelayedMethodRunsInATransactionOnTheExecutorThread() {
		this.transactions.begun.clear();
		this.orders.refund("order-7");
		assertThat(this.transactions.begun).as("none at call time").isEmpty();
		this.clock.advance(Duration.ofSeconds(1));
		assertThat(this.transactions.begun).singleElement().asString().startsWith("task-");
		assertThat(this.orders.refunds()).contains("order-7 in a transaction");
	}

	@Test
	void theVirtualClockViewAgreesWithTheTimers() {
		java.time.Instant before = this.clock.asClock().instant();
		this.clock.advance(Duration.ofHours(2));
		assertThat(this.clock.asClock().instant()).isEqualTo(before.plus(Duration.ofHours(2)));
		assertThat(this.clock.instant()).isEqualTo(this.clock.asClock().instant());
	}

	@Test
	void aDelayedMethodThatBlocksMakesAdvanceFailNamingItInsteadOfHangingTheTest() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		this.clock.setSettleTimeout(Duration.ofMillis(300));
		try {
			this.orders.blockUntil(release);
			assertThatIllegalStateException().isThrownBy(() -> this.clock.advance(Duration.ofSeconds(1)))
				.withMessageContaining("VirtualWheelTimeTests.Orders.blockUntil(CountDownLatch) x1");
		}
		finally {
			release.countDown();
			this.clock.setSettleTimeout(Duration.ofSeconds(10));
		}
		this.clock.advance(Duration.ZERO);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@EnableTransactionManagement
	static class Shop {

		@Bean
		Orders orders(ObjectProvider<Orders> self) {
			return new Orders(self);
		}

		@Bean
		RecordingTransactionManager transactionManager() {
			return new RecordingTransactionManager();
		}

	}

	static class Orders {

		private final ObjectProvider<Orders> self;

		/** Set after construction: the bean reads it only when its methods run. */
		private volatile VirtualWheelClock clock;

		private final Map<String, String> statuses = new ConcurrentHashMap<>();

		private final Map<String, Duration> cancelledAt = new ConcurrentHashMap<>();

		private final Map<String, String> cancelledOn = new ConcurrentHashMap<>();

		private final AtomicInteger heartbeats = new AtomicInteger();

		private volatile boolean beating;

		private final List<String> runs = new CopyOnWriteArrayList<>();

		private final List<String> refunds = new CopyOnWriteArrayList<>();

		private final AtomicInteger sequence = new AtomicInteger();

		Orders(ObjectProvider<Orders> self) {
			this.self = self;
		}

		@Autowired
		public void setClock(VirtualWheelClock clock) {
			this.clock = clock;
		}

		public String create(String item) {
			String id = item + "-" + this.sequence.incrementAndGet();
			this.statuses.put(id, "AWAITING_PAYMENT");
			this.self.getObject().cancelIfUnpaid(id);
			return id;
		}

		// Accessors, not fields: the test holds the bean's proxy, whose own fields are never set.

		public List<String> runs() {
			return this.runs;
		}

		public List<String> refunds() {
			return this.refunds;
		}

		public void pay(String id) {
			this.statuses.replace(id, "AWAITING_PAYMENT", "PAID");
		}

		public String status(String id) {
			return this.statuses.get(id);
		}

		public Duration cancelledAt(String id) {
			return this.cancelledAt.get(id);
		}

		public String cancelledOn(String id) {
			return this.cancelledOn.get(id);
		}

		@DelayedExecution(delay = 30, timeUnit = TimeUnit.MINUTES)
		public void cancelIfUnpaid(String id) {
			if (this.statuses.replace(id, "AWAITING_PAYMENT", "CANCELLED")) {
				this.cancelledAt.put(id, this.clock.elapsed());
				this.cancelledOn.put(id, Thread.currentThread().getName());
			}
		}

		@DelayedExecution(delay = 5, timeUnit = TimeUnit.SECONDS, timer = "requests")
		public CompletableFuture<String> requestTimeout(String request) {
			return CompletableFuture.completedFuture("timed out: " + request);
		}

		public void stopHeartbeat() {
			this.beating = false;
		}

		public int heartbeats() {
			return this.heartbeats.get();
		}

		public void heartbeat() {
			this.beating = true;
			this.self.getObject().beat();
		}

		@DelayedExecution(delay = 1, timeUnit = TimeUnit.MINUTES, timer = "expiry")
		public void beat() {
			if (this.beating) {
				this.heartbeats.incrementAndGet();
				this.self.getObject().beat();
			}
		}

		@DelayedExecution(delay = 2000, timer = "requests")
		public void onRequests(String what) {
			this.runs.add(what + " at " + this.clock.elapsed());
		}

		@DelayedExecution(delay = 1000, timer = "expiry")
		public void onExpiry(String what) {
			this.runs.add(what + " at " + this.clock.elapsed());
		}

		@DelayedExecution(delay = 1500)
		public void onDefault(String what) {
			this.runs.add(what + " at " + this.clock.elapsed());
		}

		@Transactional
		@DelayedExecution(delay = 1, timeUnit = TimeUnit.SECONDS)
		public void refund(String id) {
			this.refunds.add(id + (TransactionSynchronizationManager.isActualTransactionActive() ? " in a transaction"
					: " without a transaction"));
		}

		@DelayedExecution(delay = 100)
		public void blockUntil(CountDownLatch release) throws InterruptedException {
			release.await(30, TimeUnit.SECONDS);
		}

	}

	static class RecordingTransactionManager extends AbstractPlatformTransactionManager
			implements PlatformTransactionManager {

		final List<String> begun = new CopyOnWriteArrayList<>();

		@Override
		protected Object doGetTransaction() {
			return new Object();
		}

		@Override
		protected void doBegin(Object transaction, TransactionDefinition definition) {
			this.begun.add(Thread.currentThread().getName());
		}

		@Override
		protected void doCommit(DefaultTransactionStatus status) {
		}

		@Override
		protected void doRollback(DefaultTransactionStatus status) {
		}

	}

}
