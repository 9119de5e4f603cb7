package io.github.wheeltimer.test.docs;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import io.github.wheeltimer.durable.CallPage;
import io.github.wheeltimer.durable.CallState;
import io.github.wheeltimer.durable.DurableCalls;
import io.github.wheeltimer.durable.StoredCall;

/**
 * {@code docs/durable-calls.md}, "Find, reschedule, run now, cancel": what an application does
 * with {@link DurableCalls}. Compiled, not run.
 */
class OrderDeadlines {

	private final DurableCalls durableCalls;

	OrderDeadlines(DurableCalls durableCalls) {
		this.durableCalls = durableCalls;
	}

	void manage(String orderId) {
		// example: start
		// "This order cancels itself at 18:25": the waiting call of a method and key, or empty.
		Optional<Instant> cancelsAt = durableCalls.find("PaymentTimeouts.cancelIfUnpaid", orderId).map(StoredCall::due);

		durableCalls.reschedule("PaymentTimeouts.cancelIfUnpaid", orderId, Duration.ofMinutes(15));  // more time to pay
		durableCalls.runNow("PaymentTimeouts.cancelIfUnpaid", orderId);                              // cancel it now
		durableCalls.cancel("PaymentTimeouts.cancelIfUnpaid", orderId);                              // paid

		CallPage failed = durableCalls.list("PaymentTimeouts.cancelIfUnpaid", CallState.FAILED, 0, 50);
		durableCalls.runNow(failed.calls().get(0).id());     // a failed call runs again, as if new
		durableCalls.cancel(failed.calls().get(0).id());     // or is deleted
		// example: end
	}

}
