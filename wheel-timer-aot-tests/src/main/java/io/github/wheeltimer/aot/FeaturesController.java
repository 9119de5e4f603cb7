package io.github.wheeltimer.aot;

import java.math.BigDecimal;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.wheeltimer.durable.DurableCalls;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/** What the tests do to the application, over HTTP. */
@RestController
public class FeaturesController {

	private final Reminders reminders;

	private final DurableCalls durableCalls;

	private final JdbcTemplate jdbc;

	public FeaturesController(Reminders reminders, DurableCalls durableCalls, JdbcTemplate jdbc) {
		this.reminders = reminders;
		this.durableCalls = durableCalls;
		this.jdbc = jdbc;
	}

	@PostMapping("/pings/{text}")
	public void ping(@PathVariable String text) {
		this.reminders.ping(text);
	}

	@PostMapping("/retries/{text}")
	public String retry(@PathVariable String text) throws ExecutionException, InterruptedException, TimeoutException {
		return this.reminders.retry(text).get(10, TimeUnit.SECONDS);
	}

	@PostMapping("/orders/{id}")
	public void order(@PathVariable String id) {
		this.reminders.cancelIfUnpaid(new Order(id, new BigDecimal("9.90")));
	}

	@DeleteMapping("/orders/{id}")
	public boolean pay(@PathVariable String id) {
		return this.durableCalls.cancel("Reminders.cancelIfUnpaid", id);
	}

	@GetMapping("/runs")
	public List<String> runs() {
		return this.jdbc.queryForList("SELECT what FROM aot_run ORDER BY what", String.class);
	}

}
