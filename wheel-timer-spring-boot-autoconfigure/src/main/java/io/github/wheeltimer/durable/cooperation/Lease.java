package io.github.wheeltimer.durable.cooperation;

import java.time.Duration;
import java.util.Collection;
import java.util.Objects;
import java.util.UUID;

import io.github.wheeltimer.durable.storage.DatabaseProblems.Source;
import io.github.wheeltimer.durable.storage.DatabaseProblems;
import io.github.wheeltimer.durable.storage.InstanceRepository;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * This instance's lease on its claimed calls: its heartbeat, and what it knows of its own
 * connection to the database.
 * <p>
 * Threads: the heartbeat runs on the {@link DurableThreads}'s heartbeat thread, on real time
 * (the database judges leases on its own real clock), one beat at a time, each armed by the one
 * before. The poll reads the state
 * below, and reports its own database failures to it; every field is volatile and written whole,
 * so no lock is needed. What is wrong with the database is kept by {@link DatabaseProblems}.
 */
public final class Lease {

	private static final Log logger = LogFactory.getLog(Lease.class);

	private static final long DISCONNECTED = Long.MIN_VALUE;

	private final InstanceRepository instances;

	private final DurableThreads scheduler;

	private final UUID instance;

	private final String name;

	private final Duration interval;

	private final Duration lease;

	private final DatabaseProblems problems;

	/**
	 * Since when (System.nanoTime()) the heartbeat has reached the database without a failure;
	 * {@link #DISCONNECTED} before the first beat and after a failed one. Written by the
	 * heartbeat's thread. An instance takes over others' calls only once it has itself been
	 * connected for a whole lease: when the database comes back after an outage, the first
	 * instance to poll must not take every other (live) instance for dead before their heartbeats
	 * had a chance to arrive.
	 */
	private volatile long connectedSinceNanos = DISCONNECTED;

	/**
	 * When the last beat succeeded. A beat that succeeds long after the one before (it waited
	 * for a connection through an outage, say) counts as a reconnection: the others' beats may
	 * have lapsed meanwhile too. Heartbeat's thread only.
	 */
	private long lastBeatNanos;

	/**
	 * Beats go on after the instance stops taking calls, until {@link #end()}: calls still running
	 * while the timers wait for them must not be taken over as a dead instance's.
	 */
	private volatile boolean beating = true;

	/** What this instance reads, published in its row. */
	private @Nullable ArgumentShapes shapes;

	/** The {@link ArgumentShapes#changes()} its row holds. Heartbeat's thread only, after {@link #begin}. */
	private int publishedChanges;

	public Lease(InstanceRepository instances, DurableThreads scheduler, UUID instance, DurableSettings settings,
			DatabaseProblems problems) {
		this.instances = instances;
		this.scheduler = scheduler;
		this.problems = problems;
		this.instance = instance;
		this.name = settings.instanceName();
		this.interval = settings.heartbeatInterval();
		this.lease = settings.lease();
	}

	/**
	 * Joins the instance table, in the caller's thread (a failure fails the start), and beats
	 * from then on.
	 * @param methods the durable method ids this instance knows, recorded for operators
	 * @param shapes what this instance reads of them, recorded for the other instances
	 */
	public void begin(Collection<String> methods, ArgumentShapes shapes) {
		this.shapes = shapes;
		this.publishedChanges = shapes.changes();
		this.instances.heartbeat(this.instance, this.name, methods, shapes.published(), true);
		this.lastBeatNanos = System.nanoTime();
		this.connectedSinceNanos = this.lastBeatNanos;
		// A first beat that cannot be armed fails the start.
		this.scheduler.beat(() -> beat(methods), this.interval);
	}

	private void arm(Collection<String> methods) {
		try {
			this.scheduler.beat(() -> beat(methods), this.interval);
		}
		catch (RuntimeException refused) {
			if (this.beating) {
				logger.warn("Durable calls' heartbeat could not be armed again (" + refused + "); other instances"
						+ " take this instance's calls over once its lease (" + this.lease + ") runs out");
			}
		}
	}

	private void beat(Collection<String> methods) {
		if (!this.beating) {
			return;
		}
		try {
			ArgumentShapes shapes = Objects.requireNonNull(this.shapes);
			// Read before what it counts: a change made meanwhile is published by the next beat.
			int changes = shapes.changes();
			this.instances.heartbeat(this.instance, this.name, methods, shapes.published(),
					changes != this.publishedChanges);
			this.publishedChanges = changes;
			long now = System.nanoTime();
			if (this.connectedSinceNanos == DISCONNECTED || now - this.lastBeatNanos > 2 * this.interval.toNanos()) {
				this.connectedSinceNanos = now;
			}
			this.lastBeatNanos = now;
			this.problems.succeeded(Source.HEARTBEAT);
		}
		catch (RuntimeException ex) {
			// A beat that end() interrupted (waiting for a connection) says nothing of the database.
			if (this.beating) {
				disconnected();
				this.problems.failed(Source.HEARTBEAT, ex);
			}
		}
		finally {
			if (this.beating) {
				arm(methods);
			}
		}
	}

	/** @return whether this instance has reached the database for a whole lease, without a failed beat */
	boolean connectedForALease() {
		return connectedFor(this.lease);
	}

	/** @return whether this instance has reached the database for that long, without a failed beat */
	boolean connectedFor(Duration duration) {
		long since = this.connectedSinceNanos;
		return since != DISCONNECTED && System.nanoTime() - since >= duration.toNanos();
	}

	/**
	 * Records that this instance could not reach the database. The others may have failed to beat
	 * meanwhile too: this instance takes none of their calls over until it has been connected again
	 * for a whole lease.
	 */
	public void disconnected() {
		this.connectedSinceNanos = DISCONNECTED;
	}

	/** Leaves the instance table: this instance stopped. */
	public void leave() {
		this.instances.unregister(this.instance);
	}

	/**
	 * Stops beating; the scheduler's end then interrupts a beat that waits for the database, and
	 * the instance leaves the instance table.
	 */
	public void end() {
		this.beating = false;
	}

}
