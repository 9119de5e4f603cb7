package io.github.wheeltimer.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.sql.init.DatabaseInitializationMode;

/**
 * Configuration of durable delayed calls ({@code @DelayedExecution(durable = true)}), under the
 * {@code wheel-timer.durable} prefix.
 */
@ConfigurationProperties("wheel-timer.durable")
public class WheelTimerDurableProperties {

	/**
	 * Whether to keep durable delayed calls in the application's DataSource. When false, a
	 * durable method fails startup.
	 */
	private boolean enabled = true;

	/**
	 * How far ahead of its due time a durable call moves onto a wheel. A call due sooner goes on
	 * the calling instance's wheel at once; a later one waits in the database only.
	 */
	private Duration horizon = Duration.ofSeconds(10);

	/**
	 * How often each instance claims the calls coming within the horizon. Must be shorter than
	 * the horizon, so a call is claimed before it falls due.
	 */
	private Duration pollInterval = Duration.ofSeconds(2);

	/**
	 * How often each instance renews its lease in the database.
	 */
	private Duration heartbeatInterval = Duration.ofSeconds(2);

	/**
	 * How long after its last heartbeat (by the database's clock) an instance counts as dead: its
	 * unstarted calls are taken over, and calls it was running run again. At least twice the
	 * heartbeat interval.
	 */
	private Duration lease = Duration.ofSeconds(10);

	/**
	 * Most calls one claim statement takes. A poll stops claiming once that many calls already
	 * due wait for the executors, and claims again once half of them started.
	 */
	private int batchSize = 500;

	/**
	 * How long failed calls are kept, with their error, for operators.
	 */
	private Duration failedRetention = Duration.ofDays(7);

	/**
	 * Name of this instance, shown to operators. Defaults to spring.application.name (or
	 * "application"), the process id and the host name. When set, it must be this instance's alone
	 * (a StatefulSet pod's name, ${HOSTNAME}), at most 200 characters: an instance that starts with the name of
	 * one that died takes its calls over without waiting for its lease, once their heartbeat has
	 * been silent for half the lease.
	 */
	private @Nullable String instanceName;

	/**
	 * Maximum time a stopping instance spends waiting for the database: handing its held calls
	 * back, starting and ending the calls it still runs, leaving the instance table. Past it, or
	 * once the database is known unreachable, the rest is left to the lease, as after a crash.
	 */
	private Duration shutdownTimeout = Duration.ofSeconds(5);

	private final Jdbc jdbc = new Jdbc();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getHorizon() {
		return this.horizon;
	}

	public void setHorizon(Duration horizon) {
		this.horizon = horizon;
	}

	public Duration getPollInterval() {
		return this.pollInterval;
	}

	public void setPollInterval(Duration pollInterval) {
		this.pollInterval = pollInterval;
	}

	public Duration getHeartbeatInterval() {
		return this.heartbeatInterval;
	}

	public void setHeartbeatInterval(Duration heartbeatInterval) {
		this.heartbeatInterval = heartbeatInterval;
	}

	public Duration getLease() {
		return this.lease;
	}

	public void setLease(Duration lease) {
		this.lease = lease;
	}

	public int getBatchSize() {
		return this.batchSize;
	}

	public void setBatchSize(int batchSize) {
		this.batchSize = batchSize;
	}

	public Duration getFailedRetention() {
		return this.failedRetention;
	}

	public void setFailedRetention(Duration failedRetention) {
		this.failedRetention = failedRetention;
	}

	public @Nullable String getInstanceName() {
		return this.instanceName;
	}

	public void setInstanceName(@Nullable String instanceName) {
		this.instanceName = instanceName;
	}

	public Duration getShutdownTimeout() {
		return this.shutdownTimeout;
	}

	public void setShutdownTimeout(Duration shutdownTimeout) {
		this.shutdownTimeout = shutdownTimeout;
	}

	public Jdbc getJdbc() {
		return this.jdbc;
	}

	/**
	 * The durable calls' tables.
	 */
	public static class Jdbc {

		/**
		 * When to create the tables, or upgrade them to this version, from the scripts in the jar
		 * (io/github/wheeltimer/durable/schema/<platform>/): on embedded databases only, always
		 * (only the steps the database lacks run), or never (Flyway, Liquibase).
		 */
		private DatabaseInitializationMode initializeSchema = DatabaseInitializationMode.EMBEDDED;

		/**
		 * Prefix of the tables' names: <prefix>CALL, <prefix>INSTANCE and <prefix>SCHEMA_VERSION.
		 */
		private String tablePrefix = "WHEEL_TIMER_";

		/**
		 * Database platform whose SQL and schema scripts to use (postgresql, mysql, mariadb, h2), as
		 * Spring Boot's DatabaseDriver names it. Detected from the DataSource when not set, which
		 * also checks the server's version.
		 */
		private @Nullable String platform;

		public DatabaseInitializationMode getInitializeSchema() {
			return this.initializeSchema;
		}

		public void setInitializeSchema(DatabaseInitializationMode initializeSchema) {
			this.initializeSchema = initializeSchema;
		}

		public @Nullable String getPlatform() {
			return this.platform;
		}

		public void setPlatform(@Nullable String platform) {
			this.platform = platform;
		}

		public String getTablePrefix() {
			return this.tablePrefix;
		}

		public void setTablePrefix(String tablePrefix) {
			this.tablePrefix = tablePrefix;
		}

	}

}
