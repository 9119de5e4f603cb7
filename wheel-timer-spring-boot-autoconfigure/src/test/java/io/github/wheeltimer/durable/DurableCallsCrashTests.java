package io.github.wheeltimer.durable;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import io.github.wheeltimer.durable.engine.DurableEngine;
import io.github.wheeltimer.durable.run.CallCounts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowCallbackHandler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A real crash: an instance in a child JVM holds durable calls on its wheel and is killed with
 * SIGKILL; a new instance on the same database (PostgreSQL, MariaDB) runs every one of them exactly once, none before
 * its due time. The delayed method is {@code @Transactional}, so its row is finished in the same
 * transaction as its own effects (a row in {@code test_run}, whose primary key would refuse a
 * second run).
 */
class DurableCallsCrashTests {

	private Process child;

	private ConfigurableApplicationContext successor;

	@AfterEach
	void cleanUp() {
		if (this.child != null) {
			this.child.destroyForcibly();
		}
		if (this.successor != null) {
			this.successor.close();
		}
	}

	@ParameterizedTest(name = "on {0}")
	@ValueSource(strings = { "PostgreSQL", "MariaDB" })
	void afterASigkillANewInstanceRunsEveryCallExactlyOnceAndNoneEarly(String database) throws Exception {
		String url = database.equals("PostgreSQL") ? Postgres.newDatabase() : MariaDb.newDatabase("mariadb");
		startChild(url);
		JdbcTemplate jdbc = new JdbcTemplate(TestDatabases.dataSource(url));
		// Killed once the near calls have run, while the far ones wait on the child's wheel.
		await().atMost(Duration.ofSeconds(20))
			.failFast("a far call ran before the kill, in the child JVM: it was too slow for the test's timing",
					() -> count(jdbc, "SELECT COUNT(*) FROM test_run WHERE method = 'far'") > 0)
			.until(() -> count(jdbc, "SELECT COUNT(*) FROM test_run WHERE method = 'cancel'") == 30
					&& count(jdbc, "SELECT COUNT(*) FROM WHEEL_TIMER_CALL WHERE state = 'CLAIMED'") == 30);
		this.child.destroyForcibly();
		assertThat(this.child.waitFor(30, TimeUnit.SECONDS)).isTrue();
		assertThat(this.child.exitValue()).as("killed by SIGKILL").isEqualTo(137);

		this.successor = DurableApp.start(url, DurableApp.farDelay(CrashingInstance.FAR_DELAY));
		await().atMost(Duration.ofSeconds(30)).until(() -> count(jdbc, "SELECT COUNT(*) FROM test_run") == 60);
		await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(5))
			.until(() -> count(jdbc, "SELECT COUNT(*) FROM test_run") == 60
					&& count(jdbc, "SELECT COUNT(*) FROM WHEEL_TIMER_CALL") == 0);
		List<Map<String, Object>> runs = jdbc.queryForList("SELECT * FROM test_run");
		assertThat(runs).extracting((run) -> run.get("call_id")).doesNotHaveDuplicates().hasSize(60);
		assertThat(runs).allSatisfy((run) -> {
			Duration delay = "far".equals(run.get("method")) ? CrashingInstance.FAR_DELAY : Duration.ofMillis(400);
			assertThat(DurableCallsContractTests.instant(run.get("ran_at")))
				.isAfterOrEqualTo(DurableCallsContractTests.instant(run.get("called_at")).plus(delay));
		});
		assertThat(this.successor.getBean(DurableEngine.class).counts().failed()).isZero();
	}

	@ParameterizedTest(name = "on {0}")
	@ValueSource(strings = { "PostgreSQL", "MariaDB" })
	void aSigkillDuringABackoffLeavesEachRetryToRunOnceAtItsTimeWithTheRightAttempt(String database) throws Exception {
		String url = database.equals("PostgreSQL") ? Postgres.newDatabase() : MariaDb.newDatabase("mariadb");
		startChild(url, "retries");
		JdbcTemplate jdbc = new JdbcTemplate(TestDatabases.dataSource(url));
		// Killed once every call's first attempt failed, and their retries wait on the child's wheel.
		await().atMost(Duration.ofSeconds(20))
			.failFast("a retry ran before the kill, in the child JVM: it was too slow for the test's timing",
					() -> count(jdbc, "SELECT COUNT(*) FROM test_run WHERE call_id LIKE '%#2'") > 0)
			.until(() -> count(jdbc, "SELECT COUNT(*) FROM WHEEL_TIMER_CALL WHERE state = 'CLAIMED' AND retries = 1") == 20);
		this.child.destroyForcibly();
		assertThat(this.child.waitFor(30, TimeUnit.SECONDS)).isTrue();
		Map<String, Instant> firstFailed = new HashMap<>();
		jdbc.query("SELECT call_id, ran_at FROM test_run", (RowCallbackHandler) (rs) -> firstFailed
			.put(rs.getString(1).replace("#1", ""), DurableCallsContractTests.instant(rs.getObject(2))));

		this.successor = DurableApp.start(url);
		await().atMost(Duration.ofSeconds(40)).until(() -> count(jdbc, "SELECT COUNT(*) FROM test_run") == 60
				&& count(jdbc, "SELECT COUNT(*) FROM WHEEL_TIMER_CALL") == 0);
		List<Map<String, Object>> runs = jdbc.queryForList("SELECT * FROM test_run");
		assertThat(runs).extracting((run) -> (String) run.get("call_id")).doesNotHaveDuplicates()
			.containsExactlyInAnyOrderElementsOf(IntStream.range(0, 20)
				.boxed()
				.flatMap((i) -> Stream.of("retried-" + i + "#1", "retried-" + i + "#2", "retried-" + i + "#3"))
				.toList());
		assertThat(runs).filteredOn((run) -> ((String) run.get("call_id")).endsWith("#2")).allSatisfy((run) -> {
			String call = ((String) run.get("call_id")).replace("#2", "");
			assertThat(DurableCallsContractTests.instant(run.get("ran_at")))
				.as("the retry of %s, never before its backoff", call)
				.isAfterOrEqualTo(firstFailed.get(call).plusSeconds(5));
		});
		CallCounts counts = this.successor.getBean(DurableEngine.class).counts();
		assertThat(counts.failed()).isZero();
		assertThat(counts.suspectedDuplicates()).as("no run was cut short: the kill came between attempts").isZero();
	}

	/** Starts {@link CrashingInstance} in a JVM of its own, and waits until it made its calls. */
	private void startChild(String... arguments) throws IOException {
		Path output = Files.createTempFile("crashing-instance", ".log");
		List<String> command = ChildJvm.command(CrashingInstance.class, List.of(arguments));
		this.child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
		await().atMost(Duration.ofSeconds(60)).until(() -> Files.readString(output).contains("SCHEDULED")
				|| !this.child.isAlive());
		assertThat(this.child.isAlive()).as("the child JVM is running; its output:%n%s", read(output)).isTrue();
	}

	private static long count(JdbcTemplate jdbc, String sql) {
		try {
			Long count = jdbc.queryForObject(sql, Long.class);
			return (count != null) ? count : 0;
		}
		catch (RuntimeException tablesNotThereYet) {
			return -1;
		}
	}

	private static String read(Path output) throws IOException {
		return Files.readString(output);
	}


}
