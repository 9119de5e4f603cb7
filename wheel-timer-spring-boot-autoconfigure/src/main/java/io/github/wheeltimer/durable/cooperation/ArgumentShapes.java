package io.github.wheeltimer.durable.cooperation;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import io.github.wheeltimer.durable.Tries;
import io.github.wheeltimer.durable.arguments.ArgumentCodec;
import io.github.wheeltimer.durable.arguments.DurableMethod;
import io.github.wheeltimer.durable.arguments.DurableMethods;
import io.github.wheeltimer.durable.storage.CallRepository.MethodShape;
import io.github.wheeltimer.durable.storage.CallRepository;
import io.github.wheeltimer.durable.storage.InstanceStatus;
import io.github.wheeltimer.durable.storage.MethodShapes;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Which calls this instance reads, when several versions of the application share the calls (a
 * rolling deploy, a rollback): each row records the argument shape of the version that wrote it,
 * and each instance publishes, in its row, its own shape of each method and the shapes it found
 * it cannot read. From that:
 * <ul>
 * <li>a call written by another version that is alive is left to that version: it reads it as it
 * was written, with nothing defaulted or dropped;</li>
 * <li>a call whose writer's version is gone is read by whichever instance can: the poll tries its
 * arguments as it claims it, and one it cannot read goes back to pending at once, and calls of
 * that method and shape are not claimed here again (this instance's code does not change while it
 * runs);</li>
 * <li>a call that every live instance knowing its method has found unreadable waits, and is
 * reported, until an instance that reads it starts.</li>
 * </ul>
 * Threads: the poll thread adds what this instance cannot read and replaces its view of the other
 * live instances; the heartbeat thread reads what to publish; report readers read both. The
 * unreadable shapes are a concurrent map of concurrent sets, and the view an immutable map behind
 * a volatile field, so each reader sees a whole state.
 */
public final class ArgumentShapes {

	private static final Log logger = LogFactory.getLog(ArgumentShapes.class);

	private final DurableMethods methods;

	/** By method id: the shapes this instance tried and cannot read. Added to by the poll thread only. */
	private final Map<String, Set<String>> unreadable = new ConcurrentHashMap<>();

	/** Bumped by each addition to {@link #unreadable}, after it: what the heartbeat publishes anew. */
	private volatile int changes;

	/**
	 * By method id: the shapes other live versions write, as the last poll read them (this
	 * instance's own left out): empty while every instance runs one version.
	 */
	private volatile Map<String, Set<String>> liveWriters = Map.of();

	/** The methods a live instance of an older starter knows: it records no shapes. */
	private volatile Set<String> olderStarterMethods = Set.of();

	public ArgumentShapes(DurableMethods methods) {
		this.methods = methods;
	}

	/**
	 * Notes the live instances, at each poll.
	 * @param live the shapes each live instance published; an instance of an older starter, which
	 * publishes none, has an empty shape for each method it knows (it is left nothing: it claims
	 * what it claims; while one is live, new calls of its methods record no shape, see
	 * {@link #written})
	 */
	void live(Collection<Map<String, MethodShapes>> live) {
		Map<String, Set<String>> writers = new HashMap<>();
		Set<String> olderStarter = new HashSet<>();
		for (Map<String, MethodShapes> instance : live) {
			instance.forEach((method, shapes) -> {
				if (shapes.shape().isEmpty()) {
					olderStarter.add(method);
				}
				else if (!shapes.shape().equals(own(method))) {
					writers.computeIfAbsent(method, (id) -> new HashSet<>()).add(shapes.shape());
				}
			});
		}
		this.liveWriters = writers;
		this.olderStarterMethods = olderStarter;
	}

	/**
	 * The shape a new call records: this version's, unless a live instance of an older starter
	 * knows its method. That one replaces a call by its key without recording a shape, so the row
	 * would keep this version's shape over the older one's arguments, and this version would not
	 * try them as another version's; with no shape recorded, every version tries it. A call made
	 * before the poll sees an older starter join keeps this version's shape: a replace from that
	 * one then fails it when it runs, as a row changed by hand.
	 */
	public String written(DurableMethod method) {
		return this.olderStarterMethods.contains(method.id()) ? "" : method.shape();
	}

	/**
	 * Whether an operator's change (run now, a reschedule within the horizon) may hold a call on
	 * this instance: one of its own shape, or one whose writer's version is not live and whose
	 * arguments this instance reads. Any other is left to the polls, as a new claim would be.
	 */
	public boolean mayHold(DurableMethod method, String shape, String arguments) {
		if (!foreign(method, shape)) {
			return true;
		}
		return !this.liveWriters.getOrDefault(method.id(), Set.of()).contains(shape)
				&& whyUnreadable(method, arguments) == null;
	}

	/**
	 * Tries a row's arguments, as this version reads them.
	 * @return why this instance cannot read them; {@code null} if it can, or if no version can (not
	 * a JSON array of arguments: held here, such a row runs into its failure, and is kept failed)
	 */
	static @Nullable String whyUnreadable(DurableMethod method, String arguments) {
		try {
			method.arguments().read(arguments);
			return null;
		}
		catch (ArgumentCodec.Malformed malformed) {
			return null;
		}
		catch (RuntimeException | LinkageError unreadable) {
			// IllegalArgumentException from the codec; anything else from a deserializer of the
			// application's (a class it needs may be missing).
			return String.valueOf(unreadable.getMessage());
		}
	}

	/**
	 * The method and shape pairs a claim leaves: those of other live versions, and those this
	 * instance cannot read. Empty while every instance runs one version.
	 * @param claimable the methods the claim takes
	 * @return the pairs to leave
	 */
	List<MethodShape> skipped(Collection<String> claimable) {
		Map<String, Set<String>> writers = this.liveWriters;
		if (writers.isEmpty() && this.unreadable.isEmpty()) {
			return List.of();
		}
		List<MethodShape> skipped = new ArrayList<>();
		for (String id : claimable) {
			Set<String> leave = new HashSet<>(writers.getOrDefault(id, Set.of()));
			leave.addAll(this.unreadable.getOrDefault(id, Set.of()));
			leave.forEach((shape) -> skipped.add(new MethodShape(id, shape)));
		}
		return skipped;
	}

	/**
	 * Whether the poll must try a claimed row's arguments before holding it: it was written by
	 * another version (or before shapes were recorded).
	 */
	boolean foreign(DurableMethod method, String shape) {
		return !shape.equals(method.shape());
	}

	/**
	 * A claimed row of another version could not be read here: calls of that method and shape are
	 * left to other instances from now on. Logged once per method and shape.
	 * @param reason why, naming the property and the types
	 */
	void cannotRead(DurableMethod method, String shape, String reason) {
		if (this.unreadable.computeIfAbsent(method.id(), (id) -> ConcurrentHashMap.newKeySet()).add(shape)) {
			this.changes++;
			logger.warn("Durable calls of method id '" + method.id() + "' written by another version of the"
					+ " application (argument shape " + shapeName(shape) + "; this instance's is " + method.shape()
					+ ") cannot be read here: " + reason + ". This instance leaves them to an instance that reads"
					+ " them; until one is live, they wait");
		}
	}

	/** @return how many times the unreadable shapes changed: a heartbeat publishes them again when this moves */
	int changes() {
		return this.changes;
	}

	/** @return what this instance publishes in its row: its own shape of each method and what it cannot read */
	String published() {
		Map<String, MethodShapes> byMethod = new LinkedHashMap<>();
		for (String id : this.methods.ids()) {
			byMethod.put(id, new MethodShapes(own(id), this.unreadable.getOrDefault(id, Set.of())));
		}
		return MethodShapes.format(byMethod);
	}

	/**
	 * The method and shape pairs of waiting calls that no live instance reads: every live instance
	 * that knows the method (this one included) published that it cannot read them. An instance of
	 * an older starter that knows the method may read anything, and so leaves nothing unreadable.
	 * @param instances the instances, as just read
	 * @param self this instance's id, whose own view is fresher than its row
	 * @return the pairs, none in the common case of one version
	 */
	List<MethodShape> unreadableByEveryone(List<InstanceStatus> instances, UUID self) {
		Set<MethodShape> candidates = new LinkedHashSet<>();
		this.unreadable
			.forEach((method, shapes) -> shapes.forEach((shape) -> candidates.add(new MethodShape(method, shape))));
		for (InstanceStatus instance : instances) {
			Map<String, MethodShapes> shapes = instance.shapes();
			if (instance.alive() && shapes != null && !instance.id().equals(self)) {
				shapes.forEach((method, own) -> own.unreadable()
					.forEach((shape) -> candidates.add(new MethodShape(method, shape))));
			}
		}
		return candidates.stream()
			.filter((pair) -> readByNone(pair.methodId(), pair.shape(), instances, self))
			.toList();
	}

	private boolean readByNone(String method, String shape, List<InstanceStatus> instances, UUID self) {
		boolean known = false;
		if (this.methods.find(method) != null) {
			known = true;
			if (!this.unreadable.getOrDefault(method, Set.of()).contains(shape)) {
				return false;
			}
		}
		for (InstanceStatus instance : instances) {
			if (!instance.alive() || instance.id().equals(self) || !instance.methods().contains(method)) {
				continue;
			}
			known = true;
			Map<String, MethodShapes> shapes = instance.shapes();
			MethodShapes own = (shapes != null) ? shapes.get(method) : null;
			if (own == null || own.shape().equals(shape) || !own.unreadable().contains(shape)) {
				return false;
			}
		}
		return known;
	}

	private String own(String id) {
		DurableMethod method = this.methods.find(id);
		return (method != null) ? method.shape() : "";
	}

	/** A shape as messages name it, the empty one and {@link CallRepository#UNREAD} said in words. */
	static String shapeName(String shape) {
		if (shape.isEmpty()) {
			return "unrecorded (written by a starter that records none)";
		}
		return shape.equals(CallRepository.UNREAD)
				? "'" + CallRepository.UNREAD + "' (written by a starter that records none, and found unreadable)" : shape;
	}

}
