package io.github.wheeltimer.actuate;

import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

import io.github.wheeltimer.actuate.DurableCallsDescriptor.CallDescriptor;
import io.github.wheeltimer.actuate.DurableCallsDescriptor.CallPageDescriptor;
import io.github.wheeltimer.actuate.DurableCallsDescriptor.CountsDescriptor;
import io.github.wheeltimer.actuate.DurableCallsDescriptor.DeletedCallsDescriptor;
import io.github.wheeltimer.actuate.DurableCallsDescriptor.FailedCallDescriptor;
import io.github.wheeltimer.actuate.DurableCallsDescriptor.InstanceDescriptor;
import io.github.wheeltimer.actuate.DurableCallsDescriptor.UnreadableDescriptor;
import io.github.wheeltimer.annotation.DelayedMethod;
import io.github.wheeltimer.annotation.DelayedRetry;
import io.github.wheeltimer.durable.CallPage;
import io.github.wheeltimer.durable.CallState;
import io.github.wheeltimer.durable.StoredCall;
import io.github.wheeltimer.durable.cooperation.DurableCallsReport;
import io.github.wheeltimer.durable.engine.DurableCallsAdmin;
import io.github.wheeltimer.durable.engine.DurableEngine;
import io.github.wheeltimer.durable.run.CallCounts;
import io.github.wheeltimer.durable.storage.CallCount;
import io.github.wheeltimer.durable.storage.CallRepository;
import io.github.wheeltimer.durable.storage.FailedCall;
import io.github.wheeltimer.durable.storage.MethodShapes;
import io.github.wheeltimer.durable.storage.Requeued;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;

/**
 * The durable calls of this instance as the {@code wheeltimer} endpoint reads and changes them:
 * maps what {@link DurableEngine} reads from the database to the endpoint's descriptors, so that the
 * table's rows never become the endpoint's contract.
 */
public final class DefaultDurableCallsOperations implements DurableCallsOperations {

	/** The most failed calls the endpoint's main answer lists, newest first. */
	static final int FAILED_LISTED = 20;

	/** The most failed calls {@code GET durable/failed} lists, newest first. */
	static final int FAILED_PAGE = 100;

	private final DurableEngine durable;

	private final DurableCallsAdmin admin;

	/**
	 * Creates the operations.
	 * @param durable this instance's durable calls
	 */
	public DefaultDurableCallsOperations(DurableEngine durable) {
		this.durable = durable;
		this.admin = durable.admin();
	}

	@Override
	public DurableCallsDescriptor describe() {
		CountsDescriptor counts = counts(this.durable.counts());
		String problem = this.durable.problem();
		if (this.durable.unreachable()) {
			// Known already: no wait for the pool's connection timeout.
			return new DurableCallsDescriptor(this.durable.now(), Map.of(), Map.of(), null, this.durable.held(),
					List.of(), List.of(), Map.of(), List.of(), counts, problem);
		}
		try {
			DurableCallsReport report = this.admin.report(FAILED_LISTED);
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
						instance.alive(), instance.calls(), instance.methods(), shapes(instance.shapes())))
				.toList();
			List<UnreadableDescriptor> unreadable = report.unreadable()
				.stream()
				.map((waiting) -> new UnreadableDescriptor(waiting.methodId(), waiting.shape(), waiting.count(),
						waiting.earliestDue()))
				.toList();
			Map<String, Map<String, Long>> byMethod = new LinkedHashMap<>();
			report.byMethod()
				.forEach((count) -> byMethod.computeIfAbsent(count.methodId(), (id) -> new LinkedHashMap<>())
					.put(count.state().name(), count.count()));
			return new DurableCallsDescriptor(this.durable.now(), calls, byMethod, oldestOverdue, this.durable.held(),
					instances, failed(report.failed()), unknown, unreadable, counts, problem);
		}
		catch (DataAccessException ex) {
			return new DurableCallsDescriptor(this.durable.now(), Map.of(), Map.of(), null, this.durable.held(),
					List.of(), List.of(), Map.of(), List.of(), counts, "The database cannot be read: " + ex.getMessage());
		}
	}

	@Override
	public DurableCallsDescriptor.FailedCallsDescriptor failed(@Nullable String methodId) {
		return onTheDatabase(() -> new DurableCallsDescriptor.FailedCallsDescriptor(methodId,
				this.admin.countFailed(methodId), failed(this.admin.failedCalls(methodId, FAILED_PAGE))));
	}

	@Override
	public DurableCallsDescriptor.RequeueDescriptor requeue(@Nullable String methodId) {
		return onTheDatabase(() -> {
			Requeued requeued = this.admin.requeueFailed(methodId);
			return new DurableCallsDescriptor.RequeueDescriptor(methodId, requeued.requeued(), failed(requeued.keyHeld()));
		});
	}

	@Override
	public CallPageDescriptor calls(@Nullable String methodId, @Nullable String key, @Nullable String state, int page,
			int size) {
		CallState parsed = state(state);
		return onTheDatabase(() -> {
			CallPage calls = this.admin.list(new CallRepository.Filter(methodId, key, parsed), page, size);
			return new CallPageDescriptor(methodId, key, (parsed != null) ? parsed.name() : null, calls.page(),
					calls.size(), calls.total(), this.durable.now(),
					calls.calls().stream().map(this::described).toList());
		});
	}

	@Override
	public @Nullable CallDescriptor call(UUID id) {
		return onTheDatabase(() -> described(this.admin.find(id).orElse(null)));
	}

	@Override
	public @Nullable CallDescriptor reschedule(UUID id, @Nullable Instant due) {
		return onTheDatabase(() -> described(
				this.admin.reschedule(id, (due != null) ? due : this.durable.now()).orElse(null)));
	}

	@Override
	public @Nullable CallDescriptor cancel(UUID id) {
		return onTheDatabase(() -> described(this.admin.cancel(id).orElse(null)));
	}

	@Override
	public DeletedCallsDescriptor deleteCallsOf(String methodId) {
		return onTheDatabase(() -> new DeletedCallsDescriptor(methodId, this.admin.deleteCallsOf(methodId)));
	}

	private static @Nullable CallState state(@Nullable String state) {
		if (state == null || state.isBlank()) {
			return null;
		}
		try {
			return CallState.valueOf(state.trim().toUpperCase(Locale.ROOT));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("state must be one of " + Arrays.toString(CallState.values())
					+ ", was '" + state + "'");
		}
	}

	private @Nullable CallDescriptor described(@Nullable StoredCall call) {
		if (call == null) {
			return null;
		}
		DelayedMethod method = this.durable.method(call.methodId());
		DelayedRetry retry = (method != null) ? method.retry() : null;
		return new CallDescriptor(call.id(), call.methodId(), call.key(), call.state().name(), call.due(),
				call.attempts(), call.tries().failures(), call.tries().retries(),
				(retry != null) ? retry.maxRetries() : null, call.owner(), call.ownerName(), call.traceParent(),
				call.created(), call.failedAt(), call.error(), call.arguments());
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

	private static @Nullable Map<String, String> shapes(@Nullable Map<String, MethodShapes> shapes) {
		if (shapes == null) {
			return null;
		}
		Map<String, String> byMethod = new LinkedHashMap<>();
		shapes.forEach((method, shape) -> byMethod.put(method, shape.shape()));
		return byMethod;
	}

	private static List<FailedCallDescriptor> failed(List<FailedCall> calls) {
		return calls.stream()
			.map((call) -> new FailedCallDescriptor(call.id(), call.methodId(), call.key(), call.attempts(),
					call.failedAt(), call.error()))
			.toList();
	}

	private static CountsDescriptor counts(CallCounts counts) {
		return new CountsDescriptor(counts.scheduled(), counts.claimed(), counts.started(), counts.ran(),
				counts.failed(), counts.retried(), counts.fenced(), counts.takenOver(), counts.handedBack(), counts.cancelled(),
				counts.suspectedDuplicates());
	}

}
