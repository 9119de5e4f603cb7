package io.github.wheeltimer.durable.cooperation;

import java.util.List;

import io.github.wheeltimer.durable.storage.CallCount;
import io.github.wheeltimer.durable.storage.CallRepository;
import io.github.wheeltimer.durable.storage.FailedCall;
import io.github.wheeltimer.durable.storage.InstanceStatus;
import io.github.wheeltimer.durable.storage.UnreadableCalls;

/**
 * The database's view of the durable calls.
 *
 * @param states the calls per state
 * @param byMethod the calls per method id and state
 * @param instances the instances sharing the database
 * @param failed the newest failed calls
 * @param unknownMethods pending calls per method id that no live instance knows: they wait for
 * one that does
 * @param unreadable pending calls, per method and argument shape, written by a version whose
 * arguments no live instance can read: they wait for one that can
 */
public record DurableCallsReport(List<CallCount> states, List<CallRepository.MethodCount> byMethod,
		List<InstanceStatus> instances, List<FailedCall> failed, List<CallCount> unknownMethods,
		List<UnreadableCalls> unreadable) {
}
