package io.github.wheeltimer.actuate;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * The durable calls as the {@code wheeltimer} endpoint shows them: the database's view (calls by
 * state, the oldest overdue call, the instances sharing the database, failed calls with their
 * reason, calls of methods no live instance knows) and this instance's own counts. Its types are
 * the endpoint's own, plain Java: an application without durable calls (and without Spring JDBC)
 * serializes the endpoint's answers without loading anything of theirs.
 *
 * @param calls the calls in the database, by state: {@code PENDING}, {@code CLAIMED},
 * {@code RUNNING}, {@code FAILED}
 * @param oldestOverdue the due time of the oldest pending call past its due time, or {@code null}
 * @param heldHere calls on this instance's wheels
 * @param instances the instances sharing the database, alive or not yet removed
 * @param failed the newest failed calls
 * @param unknownMethods pending calls per method id that no live instance knows: they wait for an
 * instance that does (a method renamed or removed, or added by a deploy not yet running)
 * @param counts this instance's counts since it started
 * @param databaseError what is wrong with the database, or {@code null}
 */
public record DurableCallsDescriptor(Map<String, Long> calls, @Nullable Instant oldestOverdue, int heldHere,
		List<InstanceDescriptor> instances, List<FailedCallDescriptor> failed, Map<String, Long> unknownMethods,
		CountsDescriptor counts, @Nullable String databaseError) {

	/**
	 * An instance sharing the database.
	 *
	 * @param id its id, new at each start
	 * @param name its name ({@code wheel-timer.durable.instance-name})
	 * @param heartbeat its last heartbeat, by the database's clock
	 * @param alive whether that heartbeat is within the lease
	 * @param calls how many calls it holds, claimed or running
	 * @param methods the durable method ids it knows
	 */
	public record InstanceDescriptor(UUID id, String name, @Nullable Instant heartbeat, boolean alive, long calls,
			List<String> methods) {
	}

	/**
	 * A call whose method threw, or whose row could not be run.
	 *
	 * @param id the call's id
	 * @param methodId the method's durable id
	 * @param key its key, or {@code null} if it had none; given back when it is re-queued
	 * @param attempts how many times it started
	 * @param failedAt when it failed, by the database's clock
	 * @param error why
	 */
	public record FailedCallDescriptor(UUID id, String methodId, @Nullable String key, int attempts,
			@Nullable Instant failedAt, @Nullable String error) {
	}

	/**
	 * This instance's counts of durable calls since it started.
	 *
	 * @param scheduled calls written by its callers
	 * @param claimed calls its polls claimed
	 * @param started calls that passed the start gate
	 * @param ran calls that ran and whose row is gone
	 * @param failed calls that threw or could not be read
	 * @param fenced held calls the gate stopped: cancelled, replaced or taken over elsewhere
	 * @param takenOver calls of dead instances it released
	 * @param handedBack held calls handed back unstarted
	 * @param cancelled calls its callers cancelled
	 * @param suspectedDuplicates calls that started here after starting on an instance whose lease
	 * ran out
	 */
	public record CountsDescriptor(long scheduled, long claimed, long started, long ran, long failed, long fenced,
			long takenOver, long handedBack, long cancelled, long suspectedDuplicates) {
	}

}
