package io.github.wheeltimer.aot;

import java.util.concurrent.CompletableFuture;

import io.github.wheeltimer.annotation.DelayedExecution;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * The delayed methods: each run is a row of {@code aot_run}, in the same database as the durable
 * calls, so that runs are seen across a restart.
 */
@Service
public class Reminders {

	private final JdbcTemplate jdbc;

	public Reminders(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
		jdbc.execute("CREATE TABLE IF NOT EXISTS aot_run (what VARCHAR(200) NOT NULL)");
	}

	@DelayedExecution(delay = 100)
	public void ping(String text) {
		record("ping " + text);
	}

	@DelayedExecution(delay = 20, timer = "retries")
	public CompletableFuture<String> retry(String text) {
		record("retry " + text);
		return CompletableFuture.completedFuture("retried " + text);
	}

	@DelayedExecution(delayString = "${features.order-timeout}", durable = true, key = "#order.id")
	@Transactional
	public void cancelIfUnpaid(Order order) {
		record("cancel " + order.id() + " " + order.total());
	}

	private void record(String what) {
		this.jdbc.update("INSERT INTO aot_run (what) VALUES (?)", what);
	}

}
