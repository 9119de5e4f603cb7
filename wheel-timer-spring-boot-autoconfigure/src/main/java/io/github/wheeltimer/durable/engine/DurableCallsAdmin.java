package io.github.wheeltimer.durable.engine;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

import io.github.wheeltimer.durable.CallPage;
import io.github.wheeltimer.durable.CallState;
import io.github.wheeltimer.durable.DurableCalls;
import io.github.wheeltimer.durable.StoredCall;
import io.github.wheeltimer.durable.cooperation.DurableCallsReport;
import io.github.wheeltimer.durable.cooperation.InstancesView;
import io.github.wheeltimer.durable.run.DurableClock;
import io.github.wheeltimer.durable.storage.CallRepository;
import io.github.wheeltimer.durable.storage.FailedCall;
import io.github.wheeltimer.durable.storage.Requeued;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;

/**
 * The {@link DurableCalls} of this instance, and what operators do besides (the endpoint's and
 * the console's reads and changes): checks the arguments, then reads the database, or changes a
 * call through the {@link CallWriter}, which keeps this instance's wheels in step with the rows.
 * Every change joins the caller's transaction on the database, if there is one. Thread-safe: it
 * holds no state of its own.
 */
public final class DurableCallsAdmin implements DurableCalls {

	/** The most calls a page of {@link #list} holds. */
	public static final int MAX_PAGE = 1000;

	private final CallRepository calls;

	private final CallWriter writer;

	private final InstancesView instances;

	private final DurableClock clock;

	DurableCallsAdmin(CallRepository calls, CallWriter writer, InstancesView instances, DurableClock clock) {
		this.calls = calls;
		this.writer = writer;
		this.instances = instances;
		this.clock = clock;
	}

	@Override
	public Optional<StoredCall> find(String methodId, Object key) {
		Objects.requireNonNull(methodId, "methodId must not be null");
		Objects.requireNonNull(key, "key must not be null");
		return Optional.ofNullable(this.writer.find(methodId, key));
	}

	@Override
	public Optional<StoredCall> find(UUID id) {
		Objects.requireNonNull(id, "id must not be null");
		return Optional.ofNullable(this.calls.find(id));
	}

	@Override
	public CallPage list(@Nullable String methodId, @Nullable CallState state, int page, int size) {
		return list(new CallRepository.Filter(methodId, null, state), page, size);
	}

	/**
	 * Reads a page of calls.
	 * @param filter which calls
	 * @param page the page, from 0
	 * @param size the most calls on a page, 1 to {@value #MAX_PAGE}
	 * @return the page
	 * @throws IllegalArgumentException if the page or its size is out of range
	 * @throws DataAccessException if the database cannot be reached
	 */
	public CallPage list(CallRepository.Filter filter, int page, int size) {
		if (page < 0) {
			throw new IllegalArgumentException("page must be 0 or more, was " + page);
		}
		if (size < 1 || size > MAX_PAGE) {
			throw new IllegalArgumentException("size must be between 1 and " + MAX_PAGE + ", was " + size);
		}
		long offset = (long) page * size;
		if (offset > Integer.MAX_VALUE) {
			throw new IllegalArgumentException("page " + page + " of " + size + " calls is beyond the last call");
		}
		long total = this.calls.count(filter);
		List<StoredCall> calls = (offset < total) ? this.calls.list(filter, (int) offset, size) : List.of();
		return new CallPage(calls, page, size, total);
	}

	@Override
	public Optional<StoredCall> reschedule(String methodId, Object key, Instant due) {
		Objects.requireNonNull(methodId, "methodId must not be null");
		Objects.requireNonNull(key, "key must not be null");
		Objects.requireNonNull(due, "due must not be null");
		StoredCall call = this.writer.find(methodId, key);
		return Optional.ofNullable((call != null) ? this.writer.reschedule(call, due) : null);
	}

	@Override
	public Optional<StoredCall> reschedule(UUID id, Instant due) {
		Objects.requireNonNull(id, "id must not be null");
		Objects.requireNonNull(due, "due must not be null");
		StoredCall call = this.calls.find(id);
		return Optional.ofNullable((call != null) ? this.writer.reschedule(call, due) : null);
	}

	@Override
	public boolean cancel(String methodId, Object key) {
		Objects.requireNonNull(methodId, "methodId must not be null");
		Objects.requireNonNull(key, "key must not be null");
		return this.writer.cancel(methodId, key);
	}

	@Override
	public Optional<StoredCall> cancel(UUID id) {
		Objects.requireNonNull(id, "id must not be null");
		StoredCall call = this.calls.find(id);
		return Optional.ofNullable((call != null && this.writer.cancel(call)) ? call : null);
	}

	@Override
	public Instant now() {
		return this.clock.now();
	}

	/**
	 * Deletes the waiting and failed calls of a method that neither this instance nor any live
	 * instance knows (a method renamed or removed): they would wait for ever.
	 * @param methodId the method's durable id
	 * @return how many calls were deleted
	 * @throws IllegalStateException if this instance or a live one knows the method
	 * @throws DataAccessException if the database cannot be reached
	 */
	public int deleteCallsOf(String methodId) {
		return this.writer.deleteCallsOf(methodId, this.instances.instances());
	}

	/**
	 * Reads the database's view for operators: calls by state, the instances, failed calls and
	 * calls of methods no live instance knows.
	 * @param failedLimit how many failed calls to list, newest first
	 * @return the view
	 * @throws DataAccessException if the database cannot be reached
	 */
	public DurableCallsReport report(int failedLimit) {
		return this.instances.report(failedLimit);
	}

	/**
	 * Reads the newest failed calls, with their keys and errors.
	 * @param methodId only this method id's, or {@code null} for all
	 * @param limit how many at most
	 * @return the calls, newest first
	 * @throws DataAccessException if the database cannot be reached
	 */
	public List<FailedCall> failedCalls(@Nullable String methodId, int limit) {
		return this.instances.failed(methodId, limit);
	}

	/**
	 * Counts failed calls.
	 * @param methodId only this method id's, or {@code null} for all
	 * @return how many failed calls the database keeps
	 * @throws DataAccessException if the database cannot be reached
	 */
	public long countFailed(@Nullable String methodId) {
		return this.instances.countFailed(methodId);
	}

	/**
	 * Puts failed calls back to pending, due now, for any instance to run again (an operator
	 * fixed the cause). A call that had a key gets it back, unless a pending call holds it now:
	 * then it stays failed.
	 * @param methodId only the failed calls of this method id, or {@code null} for all
	 * @return how many calls were re-queued, and those left failed for their key
	 * @throws DataAccessException if the database cannot be reached
	 */
	public Requeued requeueFailed(@Nullable String methodId) {
		return this.writer.requeueFailed(methodId);
	}

}
