package io.github.wheeltimer.actuate;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.github.wheeltimer.actuate.DurableCallsDescriptor.CountsDescriptor;
import io.github.wheeltimer.actuate.DurableCallsDescriptor.FailedCallDescriptor;
import io.github.wheeltimer.actuate.DurableCallsDescriptor.InstanceDescriptor;
import io.github.wheeltimer.durable.CallCount;
import io.github.wheeltimer.durable.FailedCall;
import io.github.wheeltimer.durable.Requeued;
import io.github.wheeltimer.durable.DurableCalls;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;

/**
 * The durable calls of this instance as the {@code wheeltimer} endpoint reads and changes them:
 * maps what {@link DurableCalls} reads from the database to the endpoint's descriptors, so that the
 * table's rows never become the endpoint's contract.
 */
public final class JdbcDurableCallsOperations implements DurableCallsOperations {

	/** The most failed calls the endpoint's main answer lists, newest first. */
	static final int FAILED_LISTED = 20;

	/** The most failed calls {@code GET durable/failed} lists, newest first. */
	static final int FAILED_PAGE = 100;

	private final DurableCalls durable;

	/**
	 * Creates the operations.
	 * @param durable this instance's durable calls
	 */
	public JdbcDurableCallsOperations(DurableCalls durable) {
		this.durable = durable;
	}

	@Override
	public DurableCallsDescriptor describe() {
		CountsDescriptor counts = counts(this.durable.counts());
		String problem = this.durable.problem();
		if (this.durable.unreachable()) {
			// Known already: no wait for the pool's connection timeout.
			return new DurableCallsDescriptor(Map.of(), null, this.durable.held(), List.of(), List.of(), Map.of(),
					counts, problem);
		}
		try {
			DurableCalls.Report report = this.durable.report(FAILED_LISTED);
			Map<String, Long> calls = new LinkedHashMap<>();
			Instant oldestOverdue = null;
			for (CallCount state : report.states()) {
				calls.put(state.name(), state.count());
				Instant earliest = state.earliestDue();
				if ("PENDING".equals(state.name()) && earliest != null && earliest.isBefore(this.durable.now())) {
					oldestOverdue = earliest;
				}
			}
			Map<String, Long> unknown = new LinkedHashMap<>();
			report.unknownMethods().forEach((method) -> unknown.put(method.name(), method.count()));
			List<InstanceDescriptor> instances = report.instances()
				.stream()
				.map((instance) -> new InstanceDescriptor(instance.id(), instance.name(), instance.heartbeat(),
						instance.alive(), instance.calls(), instance.methods()))
				.toList();
			return new DurableCallsDescriptor(calls, oldestOverdue, this.durable.held(), instances,
					failed(report.failed()), unknown, counts, problem);
		}
		catch (DataAccessException ex) {
			return new DurableCallsDescriptor(Map.of(), null, this.durable.held(), List.of(), List.of(), Map.of(),
					counts, "The database cannot be read: " + ex.getMessage());
		}
	}

	@Override
	public WheelTimerEndpoint.FailedCallsDescriptor failed(@Nullable String methodId) {
		return onTheDatabase(() -> new WheelTimerEndpoint.FailedCallsDescriptor(methodId,
				this.durable.countFailed(methodId), failed(this.durable.failedCalls(methodId, FAILED_PAGE))));
	}

	@Override
	public WheelTimerEndpoint.RequeueDescriptor requeue(@Nullable String methodId) {
		return onTheDatabase(() -> {
			Requeued requeued = this.durable.requeueFailed(methodId);
			return new WheelTimerEndpoint.RequeueDescriptor(methodId, requeued.requeued(), failed(requeued.keyHeld()));
		});
	}

	/**
	 * Runs an operation's statements, or says at once why not: a database known unreachable is not
	 * waited for (the pool's connection timeout).
	 * @throws DurableCallsUnavailableException if the database cannot answer
	 */
	private <T> T onTheDatabase(Supplier<T> operation) {
		if (this.durable.unreachable()) {
			throw new DurableCallsUnavailableException(String.valueOf(this.durable.problem()), null);
		}
		try {
			return operation.get();
		}
		catch (DataAccessException ex) {
			throw new DurableCallsUnavailableException("The database cannot be read: " + ex.getMessage(), ex);
		}
	}

	private static List<FailedCallDescriptor> failed(List<FailedCall> calls) {
		return calls.stream()
			.map((call) -> new FailedCallDescriptor(call.id(), call.methodId(), call.key(), call.attempts(),
					call.failedAt(), call.error()))
			.toList();
	}

	private static CountsDescriptor counts(DurableCalls.Counts counts) {
		return new CountsDescriptor(counts.scheduled(), counts.claimed(), counts.started(), counts.ran(),
				counts.failed(), counts.fenced(), counts.takenOver(), counts.handedBack(), counts.cancelled(),
				counts.suspectedDuplicates());
	}

}
