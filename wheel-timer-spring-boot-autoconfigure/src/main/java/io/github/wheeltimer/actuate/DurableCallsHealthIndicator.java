package io.github.wheeltimer.actuate;

import io.github.wheeltimer.durable.cooperation.StrandedCalls;
import io.github.wheeltimer.durable.engine.DurableEngine;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The health of durable delayed calls: {@code DOWN} while their database cannot be reached (calls
 * made meanwhile fail in their caller's thread, and calls due meanwhile run once it answers) or
 * lacks their tables, as the last poll, heartbeat or call found it; {@code UP} otherwise. Details:
 * the calls this instance holds; the pending calls that wait for an instance that is not running
 * (of a method no live instance knows, or written by a version whose arguments no live instance
 * can read), as the last once-a-minute clean-up counted them; and the failure. It reads what the
 * last poll and heartbeat saw: no statement of its own.
 */
public class DurableCallsHealthIndicator extends AbstractHealthIndicator {

	private final DurableEngine durable;

	/**
	 * Creates the indicator.
	 * @param durable this instance's durable calls
	 */
	public DurableCallsHealthIndicator(DurableEngine durable) {
		super("Durable calls health check failed");
		this.durable = durable;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		String problem = this.durable.problem();
		if (problem != null) {
			builder.down().withDetail("failure", problem);
		}
		else {
			builder.up();
		}
		StrandedCalls waiting = this.durable.waiting();
		builder.withDetail("instance", this.durable.instance().toString())
			.withDetail("heldHere", this.durable.held())
			.withDetail("waitingForUnknownMethods", waiting.unknownMethods())
			.withDetail("waitingUnreadable", waiting.unreadable());
	}

}
