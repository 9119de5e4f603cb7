package io.github.wheeltimer.durable;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.github.wheeltimer.annotation.DelayedExecution;
import org.jspecify.annotations.Nullable;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Two versions of one application, as a deploy changes it: the parameter of the durable method
 * {@code reminders.remind} gains a property, {@code currency}. Each version records the runs of
 * its calls in {@code test_deploy_run}, one row per call: a call run twice breaks the primary key.
 * Started beside {@link DurableApp} ({@code DurableApp.start(new Class<?>[] { Deploys.V1.class }, url)}).
 */
final class Deploys {

	/** The method id both versions share: the deploy changed its parameter, not its id. */
	static final String METHOD = "reminders.remind";

	private Deploys() {
	}

	/** Version 1's parameter. */
	record Ref(String id, long amount) {
	}

	/** Version 2's parameter: a property more. */
	record RefWithCurrency(String id, long amount, @Nullable String currency) {
	}

	@Configuration(proxyBeanMethods = false)
	static class V1 {

		@Bean
		RemindersV1 remindersV1(JdbcTemplate jdbc) {
			return new RemindersV1(runs(jdbc));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class V2 {

		@Bean
		RemindersV2 remindersV2(JdbcTemplate jdbc) {
			return new RemindersV2(runs(jdbc));
		}

	}

	static class RemindersV1 {

		private final JdbcTemplate jdbc;

		RemindersV1(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		/**
		 * Due past the test apps' horizon (1 s), after {@code test.deploy-delay} (1.5 s unless a test
		 * sets it): each call is claimed by a poll, not held by its writer.
		 */
		@DelayedExecution(delayString = "${test.deploy-delay:1500ms}", durable = true, id = METHOD)
		public void remind(Ref ref) {
			this.jdbc.update("INSERT INTO test_deploy_run (call_id, version, amount, currency) VALUES (?, 'v1', ?, NULL)",
					ref.id(), ref.amount());
		}

	}

	static class RemindersV2 {

		private final JdbcTemplate jdbc;

		RemindersV2(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		/** Due as {@link RemindersV1#remind(Ref)} is. */
		@DelayedExecution(delayString = "${test.deploy-delay:1500ms}", durable = true, id = METHOD)
		public void remind(RefWithCurrency ref) {
			this.jdbc.update("INSERT INTO test_deploy_run (call_id, version, amount, currency) VALUES (?, 'v2', ?, ?)",
					ref.id(), ref.amount(), ref.currency());
		}

	}

	private static JdbcTemplate runs(JdbcTemplate jdbc) {
		jdbc.execute("CREATE TABLE IF NOT EXISTS test_deploy_run (call_id VARCHAR(100) PRIMARY KEY, version VARCHAR(2)"
				+ " NOT NULL, amount BIGINT NOT NULL, currency VARCHAR(3))");
		return jdbc;
	}

	/** @return each run, as "id version amount currency", sorted */
	static List<String> runs(JdbcTemplate jdbc, String idPrefix) {
		return jdbc
			.queryForList("SELECT call_id, version, amount, currency FROM test_deploy_run WHERE call_id LIKE ?"
					+ " ORDER BY call_id", idPrefix + "%")
			.stream()
			.map(Deploys::run)
			.toList();
	}

	private static String run(Map<String, Object> row) {
		Map<String, Object> lower = new HashMap<>();
		row.forEach((column, value) -> lower.put(column.toLowerCase(Locale.ROOT), value));
		return lower.get("call_id") + " " + lower.get("version") + " " + lower.get("amount") + " "
				+ lower.get("currency");
	}

}
