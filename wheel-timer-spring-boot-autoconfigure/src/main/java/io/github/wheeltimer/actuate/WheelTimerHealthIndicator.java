package io.github.wheeltimer.actuate;

import java.time.Duration;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.WheelSnapshot;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The health of one {@link HashedWheelTimer}:
 * <ul>
 * <li>{@code UP} while its worker runs, or before it has started;</li>
 * <li>{@code OUT_OF_SERVICE} once it has been stopped, by an operator or by the application's
 * shutdown: it refuses new calls;</li>
 * <li>{@code DOWN} when its worker thread died unexpectedly (nothing fires any more), or when the
 * worker is further behind than the allowed tick lag (timeouts fire that much late, or a task
 * blocks the worker thread).</li>
 * </ul>
 * Details: {@code state}, {@code pendingTimeouts}, {@code tickLag}, {@code maxTickLag}, and the
 * {@code failure} of a dead worker.
 */
public class WheelTimerHealthIndicator extends AbstractHealthIndicator {

	private final HashedWheelTimer timer;

	private final Duration maxTickLag;

	/**
	 * Creates the indicator.
	 * @param timer the timer
	 * @param maxTickLag the tick lag beyond which the timer is {@code DOWN}
	 */
	public WheelTimerHealthIndicator(HashedWheelTimer timer, Duration maxTickLag) {
		super("Wheel timer health check failed");
		this.timer = timer;
		this.maxTickLag = maxTickLag;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		WheelSnapshot snapshot = this.timer.snapshot();
		String failure = snapshot.worker().failure();
		if (failure != null) {
			builder.down().withDetail("failure", "The worker thread died: " + failure);
		}
		else if (snapshot.tickLag().compareTo(this.maxTickLag) > 0) {
			builder.down()
				.withDetail("failure", "The worker is " + DurationFormat.iso(snapshot.tickLag())
						+ " behind, more than the " + DurationFormat.iso(this.maxTickLag)
						+ " allowed (management.health.wheeltimer.max-tick-lag)");
		}
		else if (snapshot.state() == WheelSnapshot.State.SHUTDOWN) {
			builder.outOfService();
		}
		else {
			builder.up();
		}
		builder.withDetail("state", snapshot.state().name())
			.withDetail("pendingTimeouts", snapshot.pendingTimeouts())
			.withDetail("tickLag", DurationFormat.iso(snapshot.tickLag()))
			.withDetail("maxTickLag", DurationFormat.iso(snapshot.maxTickLag()));
	}

}
