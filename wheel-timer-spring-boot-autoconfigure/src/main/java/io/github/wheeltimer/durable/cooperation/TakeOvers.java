package io.github.wheeltimer.durable.cooperation;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.wheeltimer.durable.arguments.DurableMethod;
import io.github.wheeltimer.durable.arguments.DurableMethods;
import io.github.wheeltimer.durable.run.CallCounters;
import io.github.wheeltimer.durable.storage.CallRepository;
import io.github.wheeltimer.durable.storage.ClaimedCall;
import io.github.wheeltimer.durable.storage.InstanceRepository;
import io.github.wheeltimer.durable.storage.InstanceStatus;
import io.github.wheeltimer.durable.storage.StoredText;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Taking over the calls of instances that died: those whose lease ran out, and, sooner, those of
 * this instance's previous run (same configured name); and what a call claimed late waited for,
 * which its log line says.
 * <p>
 * Threads: the poll thread, one poll at a time, so the notes need no lock; the predecessors and
 * the start are written on the starting thread before the first poll, and published by it.
 */
final class TakeOvers {

	private static final Log logger = LogFactory.getLog(TakeOvers.class);

	/** How long a take-over's note is kept for a call another instance may claim instead. */
	static final long NOTE_NANOS = TimeUnit.MINUTES.toNanos(1);

	/**
	 * The most calls of dead instances remembered at once, to say in a late call's log line which
	 * instance's lease it waited for: beyond that, the line says it less precisely.
	 */
	static final int MAX_TAKE_OVER_NOTES = 10_000;

	private final CallRepository calls;

	private final InstanceRepository instances;

	private final DurableMethods methods;

	private final ArgumentShapes shapes;

	private final CallCounters counters;

	private final Lease lease;

	private final DurableSettings settings;

	private final UUID instance;

	/**
	 * The instance rows that had this instance's configured name when it started, with the
	 * heartbeat each had then: its previous run, whose calls it takes as soon as that heartbeat is
	 * seen to have stopped. Filled before the first poll.
	 */
	private final Map<UUID, Instant> predecessors = new ConcurrentHashMap<>();

	/**
	 * Polls only: the calls this instance's take-overs put back, by id, with what held them, until a
	 * poll claims them here (what the log line of a late call says it waited for) or for a minute
	 * (another instance claimed them).
	 */
	private final Map<UUID, TakeOver> takenOver = new HashMap<>();

	/** When this instance started, by the application's clock: a call due before waited for it. */
	private volatile Instant startedAt = Instant.MIN;

	/** Whether other instances' rows were there when this one started, alive or not: written before the first poll. */
	private volatile boolean othersAtStart;

	TakeOvers(CallRepository calls, InstanceRepository instances, DurableMethods methods, ArgumentShapes shapes,
			CallCounters counters, Lease lease, DurableSettings settings, UUID instance) {
		this.calls = calls;
		this.instances = instances;
		this.methods = methods;
		this.shapes = shapes;
		this.counters = counters;
		this.lease = lease;
		this.settings = settings;
		this.instance = instance;
	}

	/**
	 * Notes the instance rows there are as this instance starts: whether another instance shared
	 * the calls (what the line of a call due before this start says it waited for), and those of
	 * this instance's configured name, its previous runs. On the starting thread, before this
	 * instance joins the instance table.
	 */
	void notePredecessors() {
		List<InstanceStatus> others = this.instances.instances(this.settings.lease());
		this.othersAtStart = !others.isEmpty();
		if (this.settings.instanceNameConfigured()) {
			String name = StoredText.of(this.settings.instanceName(), CallRepository.NAME_LENGTH);
			others.stream()
				.filter((other) -> other.name().equals(name) && other.heartbeat() != null
						&& !other.id().equals(this.instance))
				.forEach((other) -> this.predecessors.put(other.id(), other.heartbeat()));
		}
	}

	/** @param at when this instance started, by the application's clock; before the first poll */
	void started(Instant at) {
		this.startedAt = at;
	}

	/**
	 * Takes the calls of this instance's previous run: an instance whose name is configured (a
	 * StatefulSet's pod, a systemd unit) restarted after a crash knows that an instance row of its
	 * own name is its predecessor, and need not wait for its lease. Only once that row's heartbeat
	 * is seen to have stopped (older than half the lease and unchanged since this instance
	 * started), and once this instance has itself reached the database for two heartbeat
	 * intervals: a live replica that shares the name (a mistake, warned about) beats meanwhile.
	 */
	void takeOverPredecessors() {
		Duration twoBeats = this.settings.heartbeatInterval().multipliedBy(2).plusMillis(100);
		if (this.predecessors.isEmpty() || !this.lease.connectedFor(twoBeats)) {
			return;
		}
		Duration half = this.settings.lease().dividedBy(2);
		// The shortest lease allowed is two beats: then half of it would be a single beat.
		List<InstanceStatus> others = this.instances.instances((half.compareTo(twoBeats) >= 0) ? half : twoBeats);
		// A row gone meanwhile (the normal take-over removed it) leaves nothing to wait for.
		this.predecessors.keySet().retainAll(others.stream().map(InstanceStatus::id).toList());
		for (InstanceStatus other : others) {
			Instant seen = this.predecessors.get(other.id());
			if (seen == null) {
				continue;
			}
			if (!Objects.equals(seen, other.heartbeat())) {
				this.predecessors.remove(other.id());
				logger.warn("Another live instance is named '" + other.name() + "', as this one: its calls are not"
						+ " taken over at this start. Give each instance a name of its own"
						+ " (wheel-timer.durable.instance-name), such as its pod's name");
			}
			else if (!other.alive()) {
				this.predecessors.remove(other.id());
				List<UUID> taken = this.calls.takeOverCallsOf(other.id());
				this.counters.countTakenOver(taken.size());
				noteTakeOver(taken, "it was held by the previous run of this instance, '" + other.name() + "' ("
						+ other.id() + "), whose heartbeat stopped at " + other.heartbeat()
						+ "; this instance took it over at its start, once it had seen that heartbeat stopped");
				logger.info("Took over " + taken.size() + " durable calls of the previous run of instance '"
						+ other.name() + "', whose heartbeat stopped at " + other.heartbeat());
				// Its row goes too; should this fail, the clean-up removes it with the other silent ones.
				this.instances.unregister(other.id());
			}
		}
	}

	/** At every poll: a dead instance's calls wait at most its lease and one poll. */
	void takeOverDeadOwners() {
		if (!this.lease.connectedForALease()) {
			return;
		}
		Map<UUID, UUID> taken = this.calls.takeOverDeadOwners();
		if (taken.isEmpty()) {
			return;
		}
		this.counters.countTakenOver(taken.size());
		logger.info("Took over " + taken.size() + " durable calls of instances whose lease ran out");
		// One more statement, only when there was something to take over: what the late ones waited for.
		Map<UUID, InstanceStatus> owners = new HashMap<>();
		this.instances.instances(this.settings.lease()).forEach((owner) -> owners.put(owner.id(), owner));
		Map<UUID, List<UUID>> byOwner = new LinkedHashMap<>();
		taken.forEach((id, owner) -> byOwner.computeIfAbsent(owner, (key) -> new ArrayList<>()).add(id));
		byOwner.forEach((owner, ids) -> noteTakeOver(ids, waitedForTheLeaseOf(owner, owners.get(owner))));
	}

	/** What a call of a dead instance waited for, said once per instance and shared by its calls. */
	private String waitedForTheLeaseOf(UUID id, @Nullable InstanceStatus owner) {
		String died = (owner != null)
				? "instance '" + owner.name() + "' (" + id + "), which died holding it with its last heartbeat at "
						+ owner.heartbeat()
				: "instance " + id + ", which died holding it and is no longer listed";
		return "it waited for the lease of " + died + "; this instance took it over once that lease ("
				+ this.settings.lease() + ") had run out";
	}

	/**
	 * Why a call claimed late was not claimed in time, as far as this instance can tell: what its
	 * log line says if it starts late.
	 * @return the reason, or {@code null} if it is claimed in time (late, it waited here)
	 */
	@Nullable String lateBecause(ClaimedCall row, Instant now) {
		TakeOver takeOver = this.takenOver.remove(row.id());
		if (takeOver != null) {
			return takeOver.reason();
		}
		if (Duration.between(row.due(), now).compareTo(this.settings.horizon()) <= 0) {
			return null;
		}
		if (row.tries().cutShort()) {
			return "it had started on an instance that then died, or lost its lease, before the call ended: it"
					+ " waited for that lease to run out, and for an instance to take the call over";
		}
		DurableMethod method = this.methods.find(row.methodId());
		if (method != null && !row.shape().isEmpty() && this.shapes.foreign(method, row.shape())) {
			return "it was written by another version of the application (argument shape "
					+ ArgumentShapes.shapeName(row.shape()) + "): it may have waited while no live instance that"
					+ " reads it claimed it (its version stopped, or was rolled back), or for any instance to run";
		}
		if (row.due().isBefore(this.startedAt)) {
			return this.othersAtStart
					? "it fell due before this instance started (at " + this.startedAt + "), while other instances"
							+ " shared the calls: the one that held it died, and its lease (" + this.settings.lease()
							+ ") had to run out before another took it over, or none could claim it then (its database"
							+ " failed, or calls due before it held the claims back)"
					: "no instance was running to claim it when it fell due; this instance started at " + this.startedAt;
		}
		return "this instance was running when it fell due but did not claim it then: another instance held it and"
				+ " did not start it (it died, and its lease had to run out, or it stopped), or this instance's polls"
				+ " could not claim it (its database failed, or calls due before it held its claims back)";
	}

	/**
	 * Remembers what held the calls a take-over put back, for the log line of those that start
	 * late here; up to {@link #MAX_TAKE_OVER_NOTES}.
	 */
	private void noteTakeOver(Iterable<UUID> ids, String reason) {
		long now = System.nanoTime();
		for (UUID id : ids) {
			if (this.takenOver.size() >= MAX_TAKE_OVER_NOTES) {
				return;
			}
			this.takenOver.put(id, new TakeOver(reason, now));
		}
	}

	/** What held a call a take-over put back, and when that was noted (System.nanoTime()). */
	private record TakeOver(String reason, long notedNanos) {
	}

	/** Forgets the notes of calls no poll claimed here within a minute: another instance did. */
	void forgetOldNotes(long nowNanos) {
		this.takenOver.values().removeIf((note) -> nowNanos - note.notedNanos() >= NOTE_NANOS);
	}

}
