package io.github.wheeltimer.durable.run;

import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.annotation.DelayedExecution;
import io.github.wheeltimer.annotation.DelayedMethod;
import io.github.wheeltimer.annotation.DelayedMethods;
import io.github.wheeltimer.durable.FakeCallRepository;
import io.github.wheeltimer.durable.FakeInstanceRepository;
import io.github.wheeltimer.durable.OrderTimeouts;
import io.github.wheeltimer.durable.Tries;
import io.github.wheeltimer.durable.arguments.DurableMethod;
import io.github.wheeltimer.durable.arguments.DurableMethods;
import io.github.wheeltimer.durable.storage.DatabaseProblems;
import io.github.wheeltimer.durable.storage.RowWrites;
import io.github.wheeltimer.virtualtime.VirtualTicker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link HeldCalls} on its own: a method's wheel on virtual time, whose calls wait for their gate
 * when they fire, as the runner's batches are not started here (what their gate would do to the
 * held calls, a test does itself).
 */
class HeldCallsTests {

	private static final Duration TICK = Duration.ofMillis(100);

	/** The application's time when the ticker reads zero. */
	private static final Instant START = Instant.parse("2030-01-01T00:00:00Z");

	private final VirtualTicker ticker = new VirtualTicker();

	private final HashedWheelTimer timer = HashedWheelTimer.builder().ticker(this.ticker).tickDuration(TICK).build();

	private final FakeCallRepository calls = new FakeCallRepository(new FakeInstanceRepository(), Duration.ofMinutes(1));

	private final DurableMethods methods = new DurableMethods(JsonMapper.builder().build(),
			new DefaultListableBeanFactory());

	private final DurableMethod method;

	private HeldCalls held = new HeldCalls(4);

	private RunPipeline runner = runner();

	HeldCallsTests() throws NoSuchMethodException {
		Method cancelIfUnpaid = OrderTimeouts.class.getMethod("cancelIfUnpaid", String.class);
		DelayedMethod delayed = DelayedMethods.durable(cancelIfUnpaid, Duration.ofSeconds(5), this.timer,
				(call) -> {
		}, null);
		this.method = this.methods.register(delayed, cancelIfUnpaid.getAnnotation(DelayedExecution.class),
				"orderTimeouts");
	}

	@AfterEach
	void stop() {
		this.timer.stop();
	}

	@Test
	void aCallDueNowEntersTheBacklogAndLeavesItOnceWhenItFires() {
		held(2);
		HeldCall first = hold("a", Duration.ZERO);
		hold("b", Duration.ZERO);
		assertThat(this.held.backlogFull()).isTrue();
		this.ticker.advance(TICK);
		assertThat(fired()).isEqualTo(2);
		// Its gate forgets it first thing.
		this.held.dropFired(first);
		assertThat(this.held.backlogFull()).isFalse();
		// Forgotten again, or dropped after it fired: the backlog does not move.
		this.held.dropFired(first);
		this.held.drop(first);
		assertThat(this.held.drop(first.id())).as("fired already: not on the wheel").isNull();
		hold("c", Duration.ZERO);
		assertThat(this.held.backlogFull()).as("b and c: a left once").isTrue();
	}

	@Test
	void aCallDueNowEntersTheBacklogAndLeavesItOnceWhenItIsDropped() {
		held(2);
		HeldCall first = hold("a", Duration.ZERO);
		hold("b", Duration.ZERO);
		assertThat(this.held.drop(first.id())).isSameAs(first);
		assertThat(this.held.backlogFull()).isFalse();
		assertThat(this.held.drop(first.id())).isNull();
		this.held.dropFired(first);
		this.held.drop(first);
		hold("c", Duration.ZERO);
		assertThat(this.held.backlogFull()).as("b and c: a left once").isTrue();
		this.ticker.advance(TICK);
		assertThat(fired()).as("a dropped call never fires").isEqualTo(2);
	}

	@Test
	void aCallDueLaterIsNotInTheBacklog() {
		held(1);
		hold("a", TICK);
		assertThat(this.held.backlogFull()).isFalse();
		assertThat(this.held.size()).isOne();
	}

	@Test
	void droppingByKeyOnlyDropsThatIdNeverANewerCallWithTheSameKey() {
		HeldCall older = hold("order-1", Duration.ofSeconds(5));
		HeldCall newer = hold("order-1", Duration.ofSeconds(5));
		assertThat(this.held.heldWith(this.method.id(), "order-1")).isEqualTo(newer.id());
		assertThat(this.held.drop(this.method.id(), "order-1", older.id())).isSameAs(older);
		assertThat(this.held.heldWith(this.method.id(), "order-1")).isEqualTo(newer.id());
		assertThat(this.held.size()).isOne();
		assertThat(this.held.drop(this.method.id(), "order-1", older.id())).isNull();
		this.ticker.advance(Duration.ofSeconds(5));
		assertThat(fired()).as("the newer call only").isEqualTo(1);
	}

	@Test
	void drainKeepsTheCallsDueByTheKeepUntilInstantAndTakesTheOthersOff() {
		HeldCall first = hold("a", Duration.ofSeconds(1));
		HeldCall second = hold("b", Duration.ofSeconds(2));
		HeldCall later = hold("c", Duration.ofSeconds(5));
		List<HeldCall> off = this.held.drain(START.plusSeconds(2));
		assertThat(off).containsExactly(later);
		assertThat(this.held.size()).isEqualTo(2);
		assertThat(this.held.stillDraining()).containsExactlyInAnyOrder(first.id(), second.id());
		this.ticker.advance(Duration.ofSeconds(1));
		assertThat(fired()).isEqualTo(1);
		// Its gate: forgets it, then says it started.
		this.held.dropFired(first);
		this.held.drained(first.id());
		assertThat(this.held.stillDraining()).containsExactly(second.id());
		// The stop waited long enough: what has not fired goes back too.
		assertThat(this.held.dropUndrained()).containsExactly(second);
		assertThat(this.held.stillDraining()).isEmpty();
		assertThat(this.held.awaitDrained(START)).isTrue();
		assertThat(this.held.size()).isZero();
		this.ticker.advance(Duration.ofSeconds(5));
		assertThat(fired()).as("only the kept call that fired in time").isEqualTo(1);
	}

	@Test
	void drainWithoutAKeepUntilInstantTakesEveryCallOff() {
		HeldCall first = hold("a", Duration.ZERO);
		HeldCall second = hold("b", Duration.ofSeconds(1));
		assertThat(this.held.drain(null)).containsExactlyInAnyOrder(first, second);
		assertThat(this.held.size()).isZero();
		assertThat(this.held.stillDraining()).isEmpty();
		assertThat(this.held.backlogFull()).isFalse();
		this.ticker.advance(Duration.ofSeconds(1));
		assertThat(fired()).isZero();
	}

	@Test
	void theRefillRunsOnceTheBacklogFallsToHalf() {
		AtomicInteger refills = new AtomicInteger();
		this.held.refillWith(refills::incrementAndGet);
		List<HeldCall> due = List.of(hold("a", Duration.ZERO), hold("b", Duration.ZERO), hold("c", Duration.ZERO),
				hold("d", Duration.ZERO));
		assertThat(this.held.backlogFull()).isTrue();
		// The poll stopped claiming for the backlog.
		this.held.wantRefill();
		assertThat(refills).hasValue(0);
		this.ticker.advance(TICK);
		this.held.dropFired(due.get(0));
		assertThat(refills).as("3 of 4 wait").hasValue(0);
		this.held.dropFired(due.get(1));
		assertThat(refills).as("2 of 4 wait: half").hasValue(1);
		this.held.dropFired(due.get(2));
		this.held.dropFired(due.get(3));
		assertThat(refills).as("once per wish").hasValue(1);
	}

	@Test
	void aRefillWishedForWhenTheBacklogIsAtHalfAlreadyRunsAtOnce() {
		AtomicInteger refills = new AtomicInteger();
		this.held.refillWith(refills::incrementAndGet);
		hold("a", Duration.ZERO);
		hold("b", Duration.ZERO);
		this.held.wantRefill();
		assertThat(refills).hasValue(1);
	}

	/** @return how many calls fell due: they wait for their gate */
	private int fired() {
		return this.runner.waiting();
	}

	/** Puts a call on the wheel as a claim or a caller would, the clock standing where the ticker is. */
	private HeldCall hold(String key, Duration dueIn) {
		Instant now = START.plus(this.ticker.elapsed());
		HeldCall call = new HeldCall(this.method, UUID.randomUUID(), key, "[\"" + key + "\"]", now.plus(dueIn), Tries.NONE,
				null, null, this.runner.gate());
		assertThat(this.held.hold(call, now)).as("refused by its timer").isNull();
		return call;
	}

	private void held(int batchSize) {
		this.held = new HeldCalls(batchSize);
		this.runner = runner();
	}

	/** What the calls hand themselves back through if the timer stops with them on it. */
	private RunPipeline runner() {
		return new RunPipeline(this.calls, this.methods, this.held,
				new RowWrites(new DatabaseProblems(), () -> {
				}, Duration.ofSeconds(1)), new CallCounters(Duration.ofSeconds(10)), new DurableClock(this.ticker),
				UUID.randomUUID(), Duration.ofMinutes(1), Duration.ofSeconds(10));
	}

}
