package io.github.wheeltimer.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of the {@code wheelTimer} health contributor.
 */
@ConfigurationProperties("management.health.wheeltimer")
public class WheelTimerHealthIndicatorProperties {

	/**
	 * How far behind a timer's worker may fall before the timer is reported DOWN.
	 */
	private Duration maxTickLag = Duration.ofSeconds(10);

	public Duration getMaxTickLag() {
		return this.maxTickLag;
	}

	public void setMaxTickLag(Duration maxTickLag) {
		this.maxTickLag = maxTickLag;
	}

}
