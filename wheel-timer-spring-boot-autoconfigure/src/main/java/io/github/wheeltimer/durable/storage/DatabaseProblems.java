package io.github.wheeltimer.durable.storage;

import java.util.EnumMap;
import java.util.Map;
import java.util.stream.Collectors;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * What this instance knows to be wrong with its database, by what found it out, so that each
 * problem is said once: one line when it begins, one when it ends, and the health indicator shows
 * it in between. A problem ends when the source that found it succeeds again: a heartbeat that
 * passes while every poll fails on a dropped table does not end the poll's problem, so nothing
 * flaps.
 * <p>
 * Threads: the poll's thread, the heartbeat's and the executors' threads (start gates, writes)
 * report here, the health indicator and the endpoint read. Changes are made under this object's
 * lock, so that two threads finding the same outage log it once; the success of a statement, on
 * every call's path, costs one volatile read while nothing is wrong.
 */
public final class DatabaseProblems {

	private static final Log logger = LogFactory.getLog(DatabaseProblems.class);

	/** What found a problem out. */
	public enum Source {

		POLL("poll"), HEARTBEAT("heartbeat"), CALLS("a call's start gate or write");

		private final String description;

		Source(String description) {
			this.description = description;
		}

	}

	private record Problem(DatabaseFailure kind, String message) {
	}

	/** Guarded by this. */
	private final Map<Source, Problem> current = new EnumMap<>(Source.class);

	/** Whether {@link #current} holds anything: read without the lock on every success. */
	private volatile boolean any;

	/**
	 * Records a failure; logs it if no problem of its kind was known.
	 * @return what kind of failure it was
	 */
	public DatabaseFailure failed(Source source, RuntimeException ex) {
		DatabaseFailure kind = DatabaseFailure.of(ex);
		failed(source, kind, ex);
		return kind;
	}

	/** Records a failure already classified; logs it if no problem of its kind was known. */
	public void failed(Source source, DatabaseFailure kind, RuntimeException ex) {
		synchronized (this) {
			boolean known = this.current.values().stream().anyMatch((problem) -> problem.kind() == kind);
			this.current.put(source, new Problem(kind, describe(kind, ex)));
			this.any = true;
			if (!known) {
				began(kind, source, ex);
			}
		}
	}

	/** Records that a statement of {@code source} passed: the problem it had found, if any, is over. */
	public void succeeded(Source source) {
		if (!this.any) {
			return;
		}
		synchronized (this) {
			Problem over = this.current.remove(source);
			this.any = !this.current.isEmpty();
			if (over != null && this.current.values().stream().noneMatch((problem) -> problem.kind() == over.kind())) {
				ended(over.kind());
			}
		}
	}

	/** @return whether the database is known to be unreachable now */
	public boolean unreachable() {
		if (!this.any) {
			return false;
		}
		synchronized (this) {
			return this.current.values().stream().anyMatch((problem) -> problem.kind() == DatabaseFailure.UNREACHABLE);
		}
	}

	/** @return what is wrong, for operators, or {@code null} if nothing is */
	public @Nullable String describe() {
		if (!this.any) {
			return null;
		}
		synchronized (this) {
			return this.current.isEmpty() ? null
					: this.current.values().stream().map(Problem::message).distinct().collect(Collectors.joining("; "));
		}
	}

	private static String describe(DatabaseFailure kind, RuntimeException ex) {
		return switch (kind) {
			case UNREACHABLE -> "The database cannot be reached: " + ex.getMessage();
			case SCHEMA -> "The durable calls' tables are missing or incomplete: " + ex.getMessage();
			case TRANSIENT, REFUSED -> "A statement of durable calls failed: " + ex.getMessage();
		};
	}

	private static void began(DatabaseFailure kind, Source source, RuntimeException ex) {
		switch (kind) {
			case UNREACHABLE -> logger.warn("Durable calls cannot reach their database (" + source.description
					+ "); calls due meanwhile run once it answers: " + ex.getMessage());
			case SCHEMA -> logger.error("Durable calls' tables are missing or incomplete (" + source.description
					+ "); no call is claimed or run until they are back (see wheel-timer.durable.jdbc.initialize-schema): "
					+ ex.getMessage());
			case TRANSIENT -> logger.warn("A statement of durable calls failed and is tried again (" + source.description
					+ "): " + ex.getMessage());
			case REFUSED -> logger.error("A statement of durable calls failed (" + source.description + ")", ex);
		}
	}

	private static void ended(DatabaseFailure kind) {
		switch (kind) {
			case UNREACHABLE -> logger.info("Durable calls reach their database again");
			case SCHEMA -> logger.info("Durable calls' tables are usable again");
			case TRANSIENT, REFUSED -> logger.info("Durable calls' statements pass again");
		}
	}

}
