package io.github.wheeltimer.actuate;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * The durable calls as the {@code wheeltimer} endpoint shows them: the database's view (calls by
 * state, the oldest overdue call, the instances sharing the database, failed calls with their
 * reason, calls of methods no live instance knows) and this instance's own counts. Its types are
 * the endpoint's own, plain Java: an application without durable calls (and without Spring JDBC)
 * serializes the endpoint's answers without loading anything of theirs.
 *
 * @param now the application's clock (a test's virtual clock too): what due times compare with
 * @param calls the calls in the database, by state: {@code PENDING}, {@code CLAIMED},
 * {@code RUNNING}, {@code FAILED}
 * @param byMethod the calls in the database by method id, then by state
 * @param oldestOverdue the due time of the oldest pending call past its due time, or {@code null}
 * @param heldHere calls on this instance's wheels
 * @param instances the instances sharing the database, alive or not yet removed
 * @param failed the newest failed calls
 * @param unknownMethods pending calls per method id that no live instance knows: they wait for an
 * instance that does (a method renamed or removed, or added by a deploy not yet running)
 * @param unreadable pending calls written by a version of the application whose arguments no live
 * instance can read, per method and argument shape: they wait for an instance that reads them
 * @param counts this instance's counts since it started
 * @param databaseError what is wrong with the database, or {@code null}
 */
public record DurableCallsDescriptor(Instant now, Map<String, Long> calls, Map<String, Map<String, Long>> byMethod,
		@Nullable Instant oldestOverdue, int heldHere, List<InstanceDescriptor> instances,
		List<FailedCallDescriptor> failed, Map<String, Long> unknownMethods, List<UnreadableDescriptor> unreadable,
		CountsDescriptor counts, @Nullable String databaseError) {

	/**
	 * Pending calls of one method that no live instance can read.
	 *
	 * @param methodId the method's durable id
	 * @param shape the argument shape of the version that wrote them; empty for calls written before
	 * the tables recorded shapes
	 * @param count how many
	 * @param oldestDue the earliest due time among them
	 */
	public record UnreadableDescriptor(String methodId, String shape, long count, @Nullable Instant oldestDue) {
	}

	/**
	 * A durable call as its row holds it.
	 *
	 * @param id the call's id; a rescheduled waiting call gets a new one
	 * @param methodId the method's durable id
	 * @param key its key, or {@code null}; a running or failed call keeps showing the key it was
	 * made with
	 * @param state {@code PENDING}, {@code CLAIMED}, {@code RUNNING} or {@code FAILED}
	 * @param due when it is due, by the application's clock
	 * @param attempts how many times it started, ever: retries and runs before an operator re-queued
	 * it included
	 * @param failures how many of those runs failed
	 * @param retries the {@code @Retryable} retries of its current round: a waiting call with retries
	 * is a retry, due at {@code due}, after the failure at {@code failedAt} with {@code error}
	 * @param maxRetries its method's {@code @Retryable(maxRetries)}, or {@code null} (left out) for a
	 * method not retried, or one this instance does not know
	 * @param owner the instance holding it, or {@code null}
	 * @param ownerName that instance's name, or {@code null}
	 * @param traceParent the caller's span as a W3C {@code traceparent}, or {@code null}
	 * @param created when it was written, by the database's clock
	 * @param failedAt when it failed (a waiting retry: when its last attempt failed), or {@code null}
	 * @param error why it failed (a waiting retry: why its last attempt failed), or {@code null}
	 * @param arguments its arguments as the JSON array stored, or {@code ******} when
	 * {@code management.endpoint.wheeltimer.show-arguments} hides them
	 */
	public record CallDescriptor(UUID id, String methodId, @Nullable String key, String state, Instant due,
			int attempts, int failures, int retries, @Nullable Long maxRetries, @Nullable UUID owner,
			@Nullable String ownerName, @Nullable String traceParent, @Nullable Instant created,
			@Nullable Instant failedAt, @Nullable String error, String arguments) implements OperationResponseBody {

		/** What hidden arguments show, as Spring Boot's sanitized values do. */
		public static final String HIDDEN = "******";

		CallDescriptor withArgumentsHidden() {
			return new CallDescriptor(this.id, this.methodId, this.key, this.state, this.due, this.attempts,
					this.failures, this.retries, this.maxRetries, this.owner, this.ownerName, this.traceParent,
					this.created, this.failedAt, this.error, HIDDEN);
		}

	}

	/**
	 * A page of durable calls.
	 *
	 * @param methodId the method id they were filtered by, or {@code null}
	 * @param key the key they were filtered by, or {@code null}
	 * @param state the state they were filtered by, or {@code null}
	 * @param page the page, from 0
	 * @param size the most calls a page holds
	 * @param total how many calls match, on all pages
	 * @param now the application's clock, for the due times
	 * @param calls the calls on this page
	 */
	public record CallPageDescriptor(@Nullable String methodId, @Nullable String key, @Nullable String state, int page,
			int size, long total, Instant now, List<CallDescriptor> calls) implements OperationResponseBody {

		CallPageDescriptor withArgumentsHidden() {
			return new CallPageDescriptor(this.methodId, this.key, this.state, this.page, this.size, this.total,
					this.now, this.calls.stream().map(CallDescriptor::withArgumentsHidden).toList());
		}

	}

	/**
	 * What a delete of the calls of a method no live instance knows did.
	 *
	 * @param methodId the method's durable id
	 * @param deleted how many waiting and failed calls were deleted
	 */
	public record DeletedCallsDescriptor(String methodId, int deleted) implements OperationResponseBody {
	}

	/**
	 * An instance sharing the database.
	 *
	 * @param id its id, new at each start
	 * @param name its name ({@code wheel-timer.durable.instance-name})
	 * @param heartbeat its last heartbeat, by the database's clock
	 * @param alive whether that heartbeat is within the lease
	 * @param calls how many calls it holds, claimed or running
	 * @param methods the durable method ids it knows
	 * @param shapes its argument shape of each of those methods, by method id: instances whose shapes
	 * differ run different versions of the method's parameters, and each runs the calls its own
	 * version wrote while it lives; {@code null} for an instance of an older starter
	 */
	public record InstanceDescriptor(UUID id, String name, @Nullable Instant heartbeat, boolean alive, long calls,
			List<String> methods, @Nullable Map<String, String> shapes) {
	}

	/**
	 * A call whose method threw, or whose row could not be run.
	 *
	 * @param id the call's id
	 * @param methodId the method's durable id
	 * @param key its key, or {@code null} if it had none; given back when it is re-queued
	 * @param attempts how many times it started, ever: retries and runs before an operator re-queued
	 * it included
	 * @param failedAt when it failed, by the database's clock
	 * @param error why
	 */
	public record FailedCallDescriptor(UUID id, String methodId, @Nullable String key, int attempts,
			@Nullable Instant failedAt, @Nullable String error) {
	}

	/**
	 * This instance's counts of durable calls since it started.
	 *
	 * @param scheduled calls written by its callers
	 * @param claimed calls its polls claimed
	 * @param started calls that passed the start gate
	 * @param ran calls that ran and whose row is gone
	 * @param failed calls that threw or could not be read
	 * @param retried runs that threw and that their {@code @Retryable} tries again
	 * @param fenced held calls the gate stopped: cancelled, replaced or taken over elsewhere
	 * @param takenOver calls of dead instances it released
	 * @param handedBack claimed calls handed back unstarted: at a stop, refused, or written by another
	 * version whose arguments this instance cannot read
	 * @param cancelled calls its callers cancelled
	 * @param suspectedDuplicates calls that started here after starting on an instance whose lease
	 * ran out
	 */
	public record CountsDescriptor(long scheduled, long claimed, long started, long ran, long failed, long retried,
			long fenced, long takenOver, long handedBack, long cancelled, long suspectedDuplicates) {
	}

	/**
	 * What a re-queue of failed durable calls did.
	 *
	 * @param method the method id whose failed calls were re-queued, or {@code null} for all
	 * @param requeued how many calls are pending again
	 * @param keyInUse the failed calls left failed because a pending call of the same method holds
	 * their key now (a newer call replaced them, as it would have replaced them pending); cancel
	 * that call first to run one of them again
	 */
	public record RequeueDescriptor(@Nullable String method, int requeued,
			List<FailedCallDescriptor> keyInUse) implements OperationResponseBody {
	}

	/**
	 * The failed durable calls.
	 *
	 * @param method the method id whose failed calls these are, or {@code null} for all
	 * @param total how many failed calls the database keeps (for
	 * {@code wheel-timer.durable.failed-retention})
	 * @param newest the newest of them, at most 100
	 */
	public record FailedCallsDescriptor(@Nullable String method, long total,
			List<FailedCallDescriptor> newest) implements OperationResponseBody {
	}

}
