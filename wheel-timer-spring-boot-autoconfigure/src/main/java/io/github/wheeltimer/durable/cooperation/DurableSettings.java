package io.github.wheeltimer.durable.cooperation;

import java.time.Duration;

/**
 * How durable calls share the database, from {@code wheel-timer.durable.*}.
 *
 * @param horizon how far ahead of its due time a call moves onto a wheel; calls due sooner are
 * born on the calling instance's wheel
 * @param pollInterval how often an instance claims the calls coming within the horizon
 * @param heartbeatInterval how often an instance tells the database it is alive
 * @param lease how long after its last heartbeat an instance counts as dead and its calls are
 * taken over, by the database's clock
 * @param batchSize the most calls one claim statement takes
 * @param failedRetention how long failed calls are kept for operators
 * @param instanceName how this instance is shown to operators
 * @param instanceNameConfigured whether the name was configured rather than made up: a stable
 * name (a StatefulSet's pod) lets a restarted instance take its previous run's calls at once
 * @param shutdownTimeout the most a stopping instance spends on the database
 */
public record DurableSettings(Duration horizon, Duration pollInterval, Duration heartbeatInterval, Duration lease,
		int batchSize, Duration failedRetention, String instanceName, boolean instanceNameConfigured,
		Duration shutdownTimeout) {
}
