package io.github.wheeltimer.actuate;

import java.time.Instant;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * What the {@code wheeltimer} endpoint reads and changes of the durable calls. The endpoint knows
 * only this interface and its plain descriptors, so that it loads nothing of durable calls (nor
 * Spring JDBC) in an application without them; {@link DefaultDurableCallsOperations} is the one
 * implementation, made only where durable calls are on.
 */
public interface DurableCallsOperations {

	/**
	 * Reads the database's view and this instance's counts; never throws: a database that cannot
	 * be read is said in {@link DurableCallsDescriptor#databaseError()}.
	 * @return the durable calls
	 */
	DurableCallsDescriptor describe();

	/**
	 * Reads the newest failed calls.
	 * @param methodId only this method id's, or {@code null} for all
	 * @return the failed calls
	 */
	DurableCallsDescriptor.FailedCallsDescriptor failed(@Nullable String methodId);

	/**
	 * Puts failed calls back to pending, due now.
	 * @param methodId only this method id's, or {@code null} for all
	 * @return what was re-queued
	 */
	DurableCallsDescriptor.RequeueDescriptor requeue(@Nullable String methodId);

	/**
	 * Reads a page of calls.
	 * @param methodId only this method id's, or {@code null}
	 * @param key only those made with this key (of any method without a method id), or {@code null}
	 * @param state only those in this state ({@code PENDING}, {@code CLAIMED}, {@code RUNNING},
	 * {@code FAILED}), or {@code null}
	 * @param page the page, from 0
	 * @param size the most calls on a page
	 * @return the page
	 * @throws IllegalArgumentException naming what is out of range
	 */
	DurableCallsDescriptor.CallPageDescriptor calls(@Nullable String methodId, @Nullable String key,
			@Nullable String state, int page, int size);

	/**
	 * Reads one call.
	 * @param id the call's id
	 * @return the call, or {@code null} if there is none
	 */
	DurableCallsDescriptor.@Nullable CallDescriptor call(UUID id);

	/**
	 * Moves a waiting call to a new due time, or a failed one back to wait for it.
	 * @param id the call's id
	 * @param due when it runs, or {@code null} for now
	 * @return the call as it is now, or {@code null} if it is neither waiting nor failed
	 * @throws IllegalStateException if it failed and a waiting call holds its key
	 */
	DurableCallsDescriptor.@Nullable CallDescriptor reschedule(UUID id, @Nullable Instant due);

	/**
	 * Cancels a waiting call, or deletes a failed one.
	 * @param id the call's id
	 * @return the call as it was, or {@code null} if it is neither waiting nor failed
	 */
	DurableCallsDescriptor.@Nullable CallDescriptor cancel(UUID id);

	/**
	 * Deletes the waiting and failed calls of a method no live instance knows.
	 * @param methodId the method's durable id
	 * @return what was deleted
	 * @throws IllegalStateException if an instance knows the method
	 */
	DurableCallsDescriptor.DeletedCallsDescriptor deleteCallsOf(String methodId);

}
