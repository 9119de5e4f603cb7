package io.github.wheeltimer.durable.storage;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The time a stopping instance spends on its database: statements run side by side within one
 * budget, one that outlives it is interrupted, and once the database is known unreachable the rest
 * are skipped without being tried.
 */
class ShutdownBudgetTests {

	private final DatabaseProblems problems = new DatabaseProblems();

	@Test
	void aStatementThatOutlivesTheBudgetIsInterruptedAndTheRestAreSkipped() {
		ShutdownBudget budget = new ShutdownBudget(Duration.ofMillis(300), this.problems);
		AtomicBoolean interrupted = new AtomicBoolean();
		CountDownLatch never = new CountDownLatch(1);
		try {
			assertThat(budget.run(() -> {
				try {
					never.await(30, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					interrupted.set(true);
				}
			})).isFalse();
			// On real time, as the budget is: the interrupt reaches the statement on its own thread.
			await().atMost(Duration.ofSeconds(5)).untilTrue(interrupted);
			AtomicInteger ran = new AtomicInteger();
			assertThat(budget.run(ran::incrementAndGet)).isFalse();
			assertThat(ran).hasValue(0);
			assertThat(budget.skipped())
				.isEqualTo("the database did not answer within wheel-timer.durable.shutdown-timeout (PT0.3S)");
		}
		finally {
			budget.close();
		}
	}

	@Test
	void statementsRunSideBySideAndNothingIsSkippedWhileTheyPass() throws Exception {
		ShutdownBudget budget = new ShutdownBudget(Duration.ofSeconds(30), this.problems);
		CountDownLatch slowMayEnd = new CountDownLatch(1);
		ExecutorService callers = Executors.newSingleThreadExecutor();
		try {
			// A start gate held up by the database does not hold up the others' statements.
			Future<Boolean> slow = callers.submit(() -> budget.run(() -> waitFor(slowMayEnd)));
			AtomicInteger ran = new AtomicInteger();
			for (int i = 0; i < 3; i++) {
				assertThat(budget.run(ran::incrementAndGet)).isTrue();
			}
			assertThat(ran).hasValue(3);
			assertThat(slow).isNotDone();
			slowMayEnd.countDown();
			assertThat(slow.get(10, TimeUnit.SECONDS)).isTrue();
			assertThat(budget.skipped()).isNull();
		}
		finally {
			slowMayEnd.countDown();
			callers.shutdownNow();
			budget.close();
		}
	}

	@Test
	void aStatementAfterTheBudgetClosedIsSkippedNotFailed() {
		ShutdownBudget budget = new ShutdownBudget(Duration.ofSeconds(5), this.problems);
		budget.close();
		assertThat(budget.run(() -> {
		})).isFalse();
		assertThat(budget.skipped()).isEqualTo("the instance had stopped");
	}

	private static void waitFor(CountDownLatch latch) {
		try {
			latch.await(30, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Test
	void aDatabaseKnownUnreachableIsNotTriedAndOneFoundUnreachableStopsTheRest() {
		this.problems.failed(DatabaseProblems.Source.HEARTBEAT, new CannotGetJdbcConnectionException("no connection"));
		ShutdownBudget known = new ShutdownBudget(Duration.ofSeconds(5), this.problems);
		AtomicInteger ran = new AtomicInteger();
		try {
			assertThat(known.run(ran::incrementAndGet)).isFalse();
			assertThat(ran).hasValue(0);
			assertThat(known.skipped()).startsWith("the database was known to be unreachable");
		}
		finally {
			known.close();
		}
		ShutdownBudget found = new ShutdownBudget(Duration.ofSeconds(5), new DatabaseProblems());
		try {
			assertThat(found.run(() -> {
				throw new CannotGetJdbcConnectionException("Connection refused");
			})).isFalse();
			assertThat(found.run(ran::incrementAndGet)).isFalse();
			assertThat(ran).hasValue(0);
			assertThat(found.skipped()).isEqualTo("the database could not be reached (Connection refused)");
		}
		finally {
			found.close();
		}
	}

	@Test
	void aStatementTheDatabaseRefusesFailsInTheStoppingThread() {
		ShutdownBudget budget = new ShutdownBudget(Duration.ofSeconds(5), this.problems);
		try {
			assertThatExceptionOfType(DataIntegrityViolationException.class).isThrownBy(() -> budget.run(() -> {
				throw new DataIntegrityViolationException("refused");
			}));
			assertThat(budget.run(() -> {
			})).isTrue();
			assertThat(budget.skipped()).isNull();
		}
		finally {
			budget.close();
		}
	}

}
