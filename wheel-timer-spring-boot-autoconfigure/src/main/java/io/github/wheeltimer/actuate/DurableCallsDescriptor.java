package io.github.wheeltimer.actuate;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.wheeltimer.durable.DurableCallStore;
import io.github.wheeltimer.durable.DurableCalls;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;

/**
 * The durable calls as the {@code wheeltimer} endpoint shows them: the database's view (calls by
 * state, the oldest overdue call, the instances sharing the database, failed calls with their
 * reason, calls of methods this instance does not know) and this instance's own counts.
 *
 * @param calls the calls in the database, by state: {@code PENDING}, {@code CLAIMED},
 * {@code RUNNING}, {@code FAILED}
 * @param oldestOverdue the due time of the oldest pending call past its due time, or {@code null}
 * @param heldHere calls on this instance's wheels
 * @param instances the instances sharing the database, alive or not yet removed: name, last
 * heartbeat, whether it is within the lease, the calls it holds (claimed or running) and the
 * durable method ids it knows
 * @param failed the newest failed calls
 * @param unknownMethods pending calls per method id that no live instance knows: they wait for an
 * instance that does (a method renamed or removed, or added by a deploy not yet running)
 * @param counts this instance's counts since it started
 * @param databaseError why the database could not be read, or {@code null}
 */
public record DurableCallsDescriptor(Map<String, Long> calls, @Nullable Instant oldestOverdue, int heldHere,
		List<DurableCallStore.Instance> instances, List<DurableCallStore.FailedCall> failed,
		Map<String, Long> unknownMethods, DurableCalls.Counts counts, @Nullable String databaseError) {

	/** The most failed calls listed, newest first. */
	static final int FAILED_LISTED = 20;

	static DurableCallsDescriptor of(DurableCalls durable) {
		try {
			DurableCalls.Report report = durable.report(FAILED_LISTED);
			Map<String, Long> calls = new LinkedHashMap<>();
			Instant oldestOverdue = null;
			for (DurableCallStore.StateCount state : report.states()) {
				calls.put(state.name(), state.count());
				Instant earliest = state.earliestDue();
				if ("PENDING".equals(state.name()) && earliest != null && earliest.isBefore(durable.now())) {
					oldestOverdue = earliest;
				}
			}
			Map<String, Long> unknown = new LinkedHashMap<>();
			report.unknownMethods().forEach((method) -> unknown.put(method.name(), method.count()));
			return new DurableCallsDescriptor(calls, oldestOverdue, durable.held(), report.instances(), report.failed(),
					unknown, durable.counts(), null);
		}
		catch (DataAccessException ex) {
			return new DurableCallsDescriptor(Map.of(), null, durable.held(), List.of(), List.of(), Map.of(),
					durable.counts(), "The database cannot be reached: " + ex.getMessage());
		}
	}

}
