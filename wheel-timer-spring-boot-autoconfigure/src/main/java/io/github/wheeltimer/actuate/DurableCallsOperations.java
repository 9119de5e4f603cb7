package io.github.wheeltimer.actuate;

import org.jspecify.annotations.Nullable;

/**
 * What the {@code wheeltimer} endpoint reads and changes of the durable calls. The endpoint knows
 * only this interface and its plain descriptors, so that it loads nothing of durable calls (nor
 * Spring JDBC) in an application without them; {@link JdbcDurableCallsOperations} is the one
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
	WheelTimerEndpoint.FailedCallsDescriptor failed(@Nullable String methodId);

	/**
	 * Puts failed calls back to pending, due now.
	 * @param methodId only this method id's, or {@code null} for all
	 * @return what was re-queued
	 */
	WheelTimerEndpoint.RequeueDescriptor requeue(@Nullable String methodId);

}
