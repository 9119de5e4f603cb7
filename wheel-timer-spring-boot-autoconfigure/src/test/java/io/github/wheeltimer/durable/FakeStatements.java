package io.github.wheeltimer.durable;

import java.sql.SQLTransientConnectionException;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

import io.github.wheeltimer.durable.storage.DatabaseFailure;

import org.springframework.dao.DataAccessResourceFailureException;

/**
 * The statements a fake repository was sent, counted by its method's name ({@code "claim"},
 * {@code "start"}, ...), failed ones included; and the failures a test injects into the next
 * ones. Thread-safe.
 */
final class FakeStatements {

	/** Guarded by this. */
	private final Map<String, Integer> sent = new HashMap<>();

	/** Guarded by this. */
	private final Map<String, Failure> failures = new HashMap<>();

	private record Failure(int left, Supplier<? extends RuntimeException> exception) {
	}

	/**
	 * What a database that cannot be reached throws: {@link DatabaseFailure#of} says
	 * {@link DatabaseFailure#UNREACHABLE} from the {@link SQLTransientConnectionException} cause.
	 */
	static RuntimeException unreachable() {
		return new DataAccessResourceFailureException("Failed to obtain JDBC Connection (fake outage)",
				new SQLTransientConnectionException("Connection is not available, request timed out (fake)"));
	}

	/** Makes the next {@code times} statements of that method throw. */
	synchronized void failNext(String statement, int times, Supplier<? extends RuntimeException> exception) {
		if (times <= 0) {
			throw new IllegalArgumentException("times must be positive, was " + times);
		}
		this.failures.put(statement, new Failure(times, exception));
	}

	/** Makes every statement of that method throw, until {@link #heal}. */
	void failUntilHealed(String statement, Supplier<? extends RuntimeException> exception) {
		failNext(statement, Integer.MAX_VALUE, exception);
	}

	synchronized void heal(String statement) {
		this.failures.remove(statement);
	}

	/** @return how many statements of that method were sent, failed ones included */
	synchronized int count(String statement) {
		return this.sent.getOrDefault(statement, 0);
	}

	/**
	 * Counts a statement about to run, and throws if a failure was injected for it.
	 * @throws RuntimeException the injected failure
	 */
	void sent(String statement) {
		RuntimeException failure = null;
		synchronized (this) {
			this.sent.merge(statement, 1, Integer::sum);
			Failure next = this.failures.get(statement);
			if (next != null) {
				failure = next.exception().get();
				if (next.left() == 1) {
					this.failures.remove(statement);
				}
				else if (next.left() != Integer.MAX_VALUE) {
					this.failures.put(statement, new Failure(next.left() - 1, next.exception()));
				}
			}
		}
		if (failure != null) {
			throw failure;
		}
	}

}
