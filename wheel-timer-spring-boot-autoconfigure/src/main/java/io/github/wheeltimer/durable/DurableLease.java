package io.github.wheeltimer.durable;

import java.time.Duration;
import java.util.Collection;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.Timeout;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;

/**
 * This instance's lease on its claimed calls: its heartbeat, and what it knows of its own
 * connection to the database.
 * <p>
 * Threads: the heartbeat runs on a private timer on real time (the database judges leases on its
 * own real clock), one beat at a time, each armed by the one before. The poll, the start gates
 * and the endpoint read the state below, and report their own database failures to it; every
 * field is volatile and written whole, so no lock is needed.
 */
final class DurableLease {

	private static final Log logger = LogFactory.getLog(DurableLease.class);

	private static final long DISCONNECTED = Long.MIN_VALUE;

	private final DurableCallStore store;

	private final UUID instance;

	private final String name;

	private final Duration interval;

	private final Duration lease;

	private final HashedWheelTimer timer;

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

	/** The last database failure of a poll, a gate or a heartbeat; {@code null} once one succeeds again. */
	private volatile @Nullable DataAccessException outage;

	DurableLease(DurableCallStore store, UUID instance, DurableSettings settings) {
		this.store = store;
		this.instance = instance;
		this.name = settings.instanceName();
		this.interval = settings.heartbeatInterval();
		this.lease = settings.lease();
		this.timer = HashedWheelTimer.builder()
			.tickDuration(Duration.ofMillis(100))
			.ticksPerWheel(64)
			.threadFactory((task) -> {
				Thread thread = new Thread(task, "wheel-timer-durable-heartbeat");
				thread.setDaemon(true);
				return thread;
			})
			.build();
	}

	/**
	 * Joins the instance table, in the caller's thread (a failure fails the start), and beats
	 * from then on.
	 * @param methods the durable method ids this instance knows, recorded for operators
	 */
	void begin(Collection<String> methods) {
		this.store.heartbeat(this.instance, this.name, methods);
		this.lastBeatNanos = System.nanoTime();
		this.connectedSinceNanos = this.lastBeatNanos;
		this.timer.start();
		arm(methods);
	}

	private void arm(Collection<String> methods) {
		this.timer.newTimeout((timeout) -> beat(methods), this.interval.toNanos(), TimeUnit.NANOSECONDS);
	}

	private void beat(Collection<String> methods) {
		if (!this.beating) {
			return;
		}
		try {
			this.store.heartbeat(this.instance, this.name, methods);
			long now = System.nanoTime();
			if (this.connectedSinceNanos == DISCONNECTED || now - this.lastBeatNanos > 2 * this.interval.toNanos()) {
				this.connectedSinceNanos = now;
			}
			this.lastBeatNanos = now;
			recovered();
		}
		catch (DataAccessException ex) {
			failed(ex, "heartbeat");
		}
		finally {
			if (this.beating) {
				arm(methods);
			}
		}
	}

	/** @return whether this instance has reached the database for a whole lease, without a failed beat */
	boolean connectedForALease() {
		long since = this.connectedSinceNanos;
		return since != DISCONNECTED && System.nanoTime() - since >= this.lease.toNanos();
	}

	/**
	 * Records a failure to reach the database: one warning for an outage, not one per statement.
	 * The others may have failed to beat meanwhile too: this instance takes none of their calls
	 * over until it has been connected again for a whole lease.
	 */
	void failed(DataAccessException ex, String what) {
		this.connectedSinceNanos = DISCONNECTED;
		if (this.outage == null) {
			logger.warn("Durable calls cannot reach their database (" + what + "); calls due meanwhile run once it"
					+ " answers: " + ex.getMessage());
		}
		this.outage = ex;
	}

	/** Records that a poll or a heartbeat reached the database. */
	void recovered() {
		if (this.outage != null) {
			this.outage = null;
			logger.info("Durable calls reach their database again");
		}
	}

	/** @return the last failure to reach the database, or {@code null} if the last attempt succeeded */
	@Nullable DataAccessException outage() {
		return this.outage;
	}

	/** Stops beating; the instance then leaves the instance table. */
	void end() {
		this.beating = false;
		this.timer.stop();
	}

}
