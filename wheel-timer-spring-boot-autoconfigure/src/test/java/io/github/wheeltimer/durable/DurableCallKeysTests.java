package io.github.wheeltimer.durable;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.wheeltimer.actuate.WheelTimerEndpoint;
import io.github.wheeltimer.actuate.WheelTimersDescriptor;
import io.github.wheeltimer.actuate.WheelTimersDescriptor.NextTimeoutDescriptor;
import io.github.wheeltimer.durable.FakeCallRepository.CallRow;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static io.github.wheeltimer.durable.DurableHarness.BEAN_NAME;
import static io.github.wheeltimer.durable.DurableHarness.LEASE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Where operators look, a durable call is named by its key, such as the order it is about, and by
 * its id: the endpoint's next timeouts and the log lines about one call. Answering "when does
 * order 42's cancellation run?" takes no SQL.
 */
@ExtendWith(OutputCaptureExtension.class)
class DurableCallKeysTests {

	private static final Duration DELAY = Duration.ofSeconds(5);

	/** As in an application without an exception handler: failures go to the log. */
	private final DurableHarness harness = new DurableHarness(LEASE, 100, true);

	@AfterEach
	void close() {
		this.harness.close();
	}

	@Test
	void theEndpointsNextTimeoutsShowADurableCallsKeyAndIdAndNoKeyForACallWithout() {
		this.harness.start();
		this.harness.call("cancelIfUnpaid", "o-42");
		this.harness.call("refund", "o-43");
		UUID keyed = rowOf("cancelIfUnpaid").id();
		UUID unkeyed = rowOf("refund").id();
		WheelTimerEndpoint endpoint = new WheelTimerEndpoint(Map.of(BEAN_NAME, this.harness.timer), null,
				(name) -> Duration.ZERO);

		List<NextTimeoutDescriptor> next = endpoint.timer(BEAN_NAME).nextTimeouts();

		assertThat(next)
			.extracting(NextTimeoutDescriptor::method, NextTimeoutDescriptor::key, NextTimeoutDescriptor::callId)
			.containsExactlyInAnyOrder(tuple("OrderTimeouts.cancelIfUnpaid(String)", "o-42", keyed),
					tuple("OrderTimeouts.refund(String)", null, unkeyed));
		assertThat(next).allSatisfy((timeout) -> assertThat(Duration.parse(timeout.remainingDelay()))
			.isBetween(DELAY.minus(DurableHarness.TICK), DELAY));
	}

	@Test
	void theFailureLineOfADurableCallNamesItsKey(CapturedOutput output) {
		this.harness.start();
		this.harness.call("releaseStock", "o-2");

		this.harness.advance(DELAY);

		assertThat(this.harness.runs()).extracting(OrderTimeouts.Run::orderId).containsExactly("o-2");
		assertThat(output).contains("Delayed call to OrderTimeouts.releaseStock(String) [key o-2] failed")
			.contains("no stock reserved for o-2");
	}

	@Test
	void theLatenessLineOfADurableCallNamesItsIdAndKey(CapturedOutput output) {
		UUID id = UUID.randomUUID();
		this.harness.calls.insert(id, DurableHarness.id("cancelIfUnpaid"), "o-9",
				this.harness.arguments("cancelIfUnpaid", "o-9"), this.harness.now().minus(Duration.ofMinutes(1)), null,
				null, "");

		this.harness.start();

		assertThat(this.harness.runs()).extracting(OrderTimeouts.Run::orderId).containsExactly("o-9");
		assertThat(output).contains("Durable call " + id + " to OrderTimeouts.cancelIfUnpaid"
				+ " (OrderTimeouts.cancelIfUnpaid(String)) [key o-9] runs 60000 ms after its due time");
	}

	@Test
	void aCallWhoseArgumentsCannotBeReadIsMarkedFailedInALineThatNamesItsKey(CapturedOutput output) {
		UUID id = UUID.randomUUID();
		this.harness.calls.insert(id, DurableHarness.id("cancelIfUnpaid"), "o-7", "[7] trailing garbage",
				this.harness.now(), null, null, "");

		this.harness.start();

		assertThat(this.harness.runs()).isEmpty();
		assertThat(this.harness.onlyRow().state()).isEqualTo(FakeCallRepository.FAILED);
		assertThat(output).contains("Durable call " + id + " to OrderTimeouts.cancelIfUnpaid"
				+ " (OrderTimeouts.cancelIfUnpaid(String)) [key o-7] cannot run and is marked failed: ");
	}

	private CallRow rowOf(String method) {
		return this.harness.calls.rows()
			.stream()
			.filter((row) -> row.methodId().equals(DurableHarness.id(method)))
			.findFirst()
			.orElseThrow();
	}

}
