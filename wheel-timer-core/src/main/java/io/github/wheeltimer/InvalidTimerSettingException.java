package io.github.wheeltimer;

/**
 * Thrown by {@link HashedWheelTimer.Builder#build()} when a setting is out of range. It names the
 * setting as the builder does ({@code tickDuration}, {@code ticksPerWheel}), so that a caller
 * that took the value from somewhere else, such as a configuration property, can say where the
 * bad value came from without repeating the timer's checks.
 */
public class InvalidTimerSettingException extends IllegalArgumentException {

	private static final long serialVersionUID = 1L;

	private final String setting;

	private final transient Object value;

	private final String reason;

	InvalidTimerSettingException(String setting, Object value, String reason) {
		super(setting + " " + reason + ", was " + value);
		this.setting = setting;
		this.value = value;
		this.reason = reason;
	}

	/**
	 * Returns the name of the builder method whose value is wrong, such as {@code tickDuration}.
	 * @return the setting's name
	 */
	public String getSetting() {
		return this.setting;
	}

	/**
	 * Returns the value that was refused.
	 * @return the value
	 */
	public Object getValue() {
		return this.value;
	}

	/**
	 * Returns what the setting must be, without its name and value, such as
	 * {@code "must be at least 1ms"}.
	 * @return the rule the value breaks
	 */
	public String getReason() {
		return this.reason;
	}

}
