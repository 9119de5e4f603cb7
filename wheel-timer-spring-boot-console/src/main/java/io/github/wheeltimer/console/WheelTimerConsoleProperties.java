package io.github.wheeltimer.console;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of the operator console, under {@code wheel-timer.console}.
 */
@ConfigurationProperties("wheel-timer.console")
public class WheelTimerConsoleProperties {

	/**
	 * Whether to serve the operator console. It shows and changes only what the wheeltimer endpoint
	 * allows the browser, so whatever secures Actuator secures the console.
	 */
	private boolean enabled;

	/**
	 * Path of the console's page, below the servlet context path: starts with '/', does not end
	 * with one, and holds no '*', '?', '{' or '}'. Its scripts and styles are served below it.
	 */
	private String path = "/wheel-timer";

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getPath() {
		return this.path;
	}

	public void setPath(String path) {
		this.path = path;
	}

}
