package io.github.wheeltimer.durable.storage;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;


/**
 * Where the instances sharing the durable calls say they are alive: one row per running
 * instance (per process start), kept by its heartbeat and judged by the store's own clock.
 * Thread-safe.
 */
public interface InstanceRepository {

	/**
	 * Beats; an instance declared dead and deleted meanwhile joins again.
	 * @param methods the durable method ids the instance knows, recorded when it joins
	 * @param shapes what it reads of them ({@link MethodShapes#format}), recorded when it joins
	 * @param shapesChanged whether to record {@code shapes} in this beat too
	 */
	void heartbeat(UUID instance, String name, Collection<String> methods, String shapes, boolean shapesChanged);

	/** Removes an instance's row: it stopped, or it is known to be gone. */
	void unregister(UUID instance);

	/** @return how many rows of instances silent for longer than {@code silence} were removed */
	int deleteSilentFor(Duration silence);

	/**
	 * Reads every instance, each judged alive if it beat within {@code lease}.
	 * @return the instances, by name
	 */
	List<InstanceStatus> instances(Duration lease);

	/**
	 * Reads what the instances that beat within {@code lease} read: a poll shares the calls ahead
	 * with them, and leaves them the calls their versions wrote.
	 * @return per live instance, the shapes it published ({@link MethodShapes#parse}); for an
	 * instance of an older starter, which publishes none, each method it knows with an empty shape
	 */
	List<Map<String, MethodShapes>> alive(Duration lease);

}
