package io.github.wheeltimer.durable;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * The database's view of the durable calls, for operators and for the poll's warnings: read-only,
 * any thread, each read a few statements.
 */
final class DurableReports {

	private final CallRepository calls;

	private final InstanceRepository instances;

	private final DurableMethods methods;

	private final Duration lease;

	DurableReports(CallRepository calls, InstanceRepository instances, DurableMethods methods, Duration lease) {
		this.calls = calls;
		this.instances = instances;
		this.methods = methods;
		this.lease = lease;
	}

	DurableCalls.Report report(int failedLimit) {
		List<InstanceStatus> instances = this.instances.instances(this.lease);
		return new DurableCalls.Report(this.calls.countByState(), this.calls.countByMethod(), instances,
				this.calls.failed(null, failedLimit), pendingOfUnknownMethods(instances));
	}

	List<FailedCall> failed(@Nullable String methodId, int limit) {
		return this.calls.failed(methodId, limit);
	}

	long countFailed(@Nullable String methodId) {
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

	List<InstanceStatus> instances() {
		return this.instances.instances(this.lease);
	}

}
