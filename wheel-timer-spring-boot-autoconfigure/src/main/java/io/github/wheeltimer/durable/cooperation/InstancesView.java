package io.github.wheeltimer.durable.cooperation;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import io.github.wheeltimer.durable.arguments.DurableMethods;
import io.github.wheeltimer.durable.storage.CallCount;
import io.github.wheeltimer.durable.storage.CallRepository;
import io.github.wheeltimer.durable.storage.FailedCall;
import io.github.wheeltimer.durable.storage.InstanceRepository;
import io.github.wheeltimer.durable.storage.InstanceStatus;
import io.github.wheeltimer.durable.storage.UnreadableCalls;
import org.jspecify.annotations.Nullable;

/**
 * The database's view of the durable calls, for operators and for the poll's warnings: read-only,
 * any thread, each read a few statements.
 */
public final class InstancesView {

	private final CallRepository calls;

	private final InstanceRepository instances;

	private final DurableMethods methods;

	private final ArgumentShapes shapes;

	private final Duration lease;

	private final UUID instance;

	public InstancesView(CallRepository calls, InstanceRepository instances, DurableMethods methods, ArgumentShapes shapes,
			Duration lease, UUID instance) {
		this.calls = calls;
		this.instances = instances;
		this.methods = methods;
		this.shapes = shapes;
		this.lease = lease;
		this.instance = instance;
	}

	public DurableCallsReport report(int failedLimit) {
		List<InstanceStatus> instances = this.instances.instances(this.lease);
		return new DurableCallsReport(this.calls.countByState(), this.calls.countByMethod(), instances,
				this.calls.failed(null, failedLimit), pendingOfUnknownMethods(instances), unreadable(instances));
	}

	/**
	 * @param instances the instances, as just read
	 * @return the pending calls that no live instance can read, per method and shape; no statement
	 * at all unless some instance found calls it cannot read
	 */
	List<UnreadableCalls> unreadable(List<InstanceStatus> instances) {
		return this.calls.pendingOfShapes(this.shapes.unreadableByEveryone(instances, this.instance));
	}

	public List<FailedCall> failed(@Nullable String methodId, int limit) {
		return this.calls.failed(methodId, limit);
	}

	public long countFailed(@Nullable String methodId) {
		return this.calls.countFailed(methodId);
	}

	/**
	 * @param instances the instances, as just read
	 * @return the pending calls per method id that neither this instance nor a live one knows
	 */
	List<CallCount> pendingOfUnknownMethods(List<InstanceStatus> instances) {
		Set<String> known = new HashSet<>(this.methods.unsortedIds());
		instances.stream().filter(InstanceStatus::alive).forEach((other) -> known.addAll(other.methods()));
		return this.calls.pendingOfUnknownMethods(known);
	}

	public List<InstanceStatus> instances() {
		return this.instances.instances(this.lease);
	}

}
