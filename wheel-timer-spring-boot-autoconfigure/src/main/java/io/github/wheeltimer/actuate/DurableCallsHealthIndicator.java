package io.github.wheeltimer.actuate;

import io.github.wheeltimer.durable.DurableCalls;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.dao.DataAccessException;

/**
 * The health of durable delayed calls: {@code DOWN} while their database cannot be reached (the
 * last poll or heartbeat failed; calls made meanwhile fail in their caller's thread, and calls due
 * meanwhile run once it answers), {@code UP} otherwise. Details: the calls this instance holds, and
 * the failure. It reads what the last poll and heartbeat saw: no statement of its own.
 */
public class DurableCallsHealthIndicator extends AbstractHealthIndicator {

	private final DurableCalls durable;

	/**
	 * Creates the indicator.
	 * @param durable this instance's durable calls
	 */
	public DurableCallsHealthIndicator(DurableCalls durable) {
		super("Durable calls health check failed");
		this.durable = durable;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		DataAccessException outage = this.durable.outage();
		if (outage != null) {
			builder.down().withDetail("failure", "The database cannot be reached: " + outage.getMessage());
		}
		else {
			builder.up();
		}
		builder.withDetail("instance", this.durable.instance().toString()).withDetail("heldHere", this.durable.held());
	}

}
