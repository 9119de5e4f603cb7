package io.github.wheeltimer.autoconfigure;

import java.util.HashSet;
import java.util.Set;

import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of the {@code wheeltimer} endpoint, besides what Actuator reads for every
 * endpoint ({@code management.endpoint.wheeltimer.access}, exposure, caching).
 */
@ConfigurationProperties("management.endpoint.wheeltimer")
public class WheelTimerEndpointProperties {

	/**
	 * When to show the arguments of durable calls; they may hold personal data, so they are
	 * hidden unless allowed, as the env endpoint's values are.
	 */
	private Show showArguments = Show.NEVER;

	/**
	 * Roles that see the arguments of durable calls when show-arguments is when-authorized. When
	 * empty, any authenticated user sees them.
	 */
	private Set<String> roles = new HashSet<>();

	public Show getShowArguments() {
		return this.showArguments;
	}

	public void setShowArguments(Show showArguments) {
		this.showArguments = showArguments;
	}

	public Set<String> getRoles() {
		return this.roles;
	}

	public void setRoles(Set<String> roles) {
		this.roles = roles;
	}

}
