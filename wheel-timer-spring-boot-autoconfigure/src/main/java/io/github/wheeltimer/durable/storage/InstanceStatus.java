package io.github.wheeltimer.durable.storage;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * An instance sharing the durable calls, for operators and take-overs.
 *
 * @param id its id, new at each start
 * @param name its name ({@code wheel-timer.durable.instance-name})
 * @param heartbeat its last heartbeat, by the database's clock
 * @param alive whether that heartbeat is within the lease
 * @param calls how many calls it holds, claimed or running
 * @param methods the durable method ids it knows
 * @param shapes per method id, the argument shape it writes and those it cannot read; {@code null}
 * for an instance of a starter older than the tables' version 2, which does not say
 */
public record InstanceStatus(UUID id, String name, @Nullable Instant heartbeat, boolean alive, long calls,
		List<String> methods, @Nullable Map<String, MethodShapes> shapes) {
}
