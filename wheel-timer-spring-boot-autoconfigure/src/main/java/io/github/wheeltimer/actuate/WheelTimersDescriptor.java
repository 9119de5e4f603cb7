package io.github.wheeltimer.actuate;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.wheeltimer.Timeout;
import io.github.wheeltimer.WheelSnapshot;
import io.github.wheeltimer.annotation.DelayedMethod;
import io.github.wheeltimer.annotation.DelayedTask;
import io.github.wheeltimer.annotation.UnprocessedCalls;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * Every timer, by bean name, and the durable calls.
 *
 * @param access what this endpoint allows: {@code READ_ONLY}, or {@code UNRESTRICTED} when it
 * takes changes ({@code management.endpoint.wheeltimer.access})
 * @param timers the timers
 * @param durable the durable calls, or {@code null} (left out) when they are off
 */
public record WheelTimersDescriptor(String access, Map<String, WheelTimerDescriptor> timers,
		@Nullable DurableCallsDescriptor durable) implements OperationResponseBody {

	/**
	 * What one timer is doing.
	 *
	 * @param state {@code INIT} (worker not started yet), {@code STARTED} or {@code SHUTDOWN}
	 * @param tickDuration the length of one tick
	 * @param ticksPerWheel the number of buckets of level 0, a power of two
	 * @param tick the tick the hand is on, counted from the timer's creation
	 * @param hand the bucket of level 0 the hand points at
	 * @param pendingTimeouts timeouts that have neither fired nor been cancelled
	 * @param maxPendingTimeouts the limit on pending timeouts, 0 for none
	 * @param counters what happened to the timeouts so far
	 * @param tickLag how far behind the worker is now
	 * @param maxTickLag the worst lag so far
	 * @param meanLateness how late, on average, fired timeouts were handed to run after their
	 * deadline: about half a tick on a timer that keeps up
	 * @param worker the worker thread
	 */
	public record WheelTimerDescriptor(String state, String tickDuration, int ticksPerWheel, long tick, int hand,
			long pendingTimeouts, long maxPendingTimeouts, CountersDescriptor counters, String tickLag,
			String maxTickLag, String meanLateness, WheelSnapshot.Worker worker) {

		static WheelTimerDescriptor of(WheelSnapshot snapshot) {
			WheelSnapshot.Counters counters = snapshot.counters();
			long fired = counters.fired();
			Duration meanLateness = (fired > 0) ? counters.lateness().dividedBy(fired) : Duration.ZERO;
			return new WheelTimerDescriptor(snapshot.state().name(), DurationFormat.iso(snapshot.tickDuration()),
					snapshot.ticksPerWheel(), snapshot.tick(), snapshot.hand(), snapshot.pendingTimeouts(),
					snapshot.maxPendingTimeouts(), new CountersDescriptor(counters), DurationFormat.iso(snapshot.tickLag()),
					DurationFormat.iso(snapshot.maxTickLag()), DurationFormat.iso(meanLateness), snapshot.worker());
		}

	}

	/**
	 * What happened to a timer's timeouts. Every one scheduled ends up completed, failed,
	 * withdrawn, cancelled or unprocessed; until then it is pending or running. A
	 * {@code @DelayedExecution} call counts as its method's run ended, not as its hand-off to the
	 * executor: the timer task hands the run off.
	 *
	 * @param scheduled accepted: in-memory calls, durable calls this instance holds on the wheel or
	 * runs at once (due already when claimed: a backlog, a take-over, a run now or a re-queue), and
	 * plain timer tasks
	 * @param completed ran and returned normally: the method returned, its returned future completed
	 * @param failed threw, or could not start: the method threw, its future failed, its executor
	 * refused an in-memory call, a durable call's arguments could not be read
	 * @param withdrawn fired, then given up before the method ran here: an in-memory call cancelled
	 * while it waited for its executor; a durable call handed back to the database, found cancelled,
	 * replaced or taken over elsewhere by its start gate, or put back on the wheel by it to try again
	 * @param cancelled cancelled by their caller before they fired
	 * @param rejected refused because the timer was stopped or full; never scheduled
	 * @param running fired and not finished: waiting for or running on the executor (a durable call:
	 * at its start gate too)
	 * @param unprocessed still pending when the timer stopped
	 */
	public record CountersDescriptor(long scheduled, long completed, long failed, long withdrawn, long cancelled,
			long rejected, long running, long unprocessed) {

		CountersDescriptor(WheelSnapshot.Counters counters) {
			this(counters.scheduled(), counters.completed(), counters.failed(), counters.withdrawn(),
					counters.cancelled(), counters.rejected(), counters.running(), counters.unprocessed());
		}

	}

	/**
	 * One timer in detail: the fields of {@link WheelTimerDescriptor}, then what is in the wheel.
	 *
	 * @param state see {@link WheelTimerDescriptor}
	 * @param tickDuration see {@link WheelTimerDescriptor}
	 * @param ticksPerWheel see {@link WheelTimerDescriptor}
	 * @param tick see {@link WheelTimerDescriptor}
	 * @param hand see {@link WheelTimerDescriptor}
	 * @param pendingTimeouts see {@link WheelTimerDescriptor}
	 * @param maxPendingTimeouts see {@link WheelTimerDescriptor}
	 * @param counters see {@link WheelTimerDescriptor}
	 * @param tickLag see {@link WheelTimerDescriptor}
	 * @param maxTickLag see {@link WheelTimerDescriptor}
	 * @param meanLateness see {@link WheelTimerDescriptor}
	 * @param worker see {@link WheelTimerDescriptor}
	 * @param buckets level 0 at a glance: how many buckets hold timeouts, and the fullest
	 * @param levels every level of the wheel, level 0 first, with the slots that hold timeouts
	 * @param nextTimeouts the timeouts due first, soonest first, at most
	 * {@value WheelTimerEndpoint#NEXT_TIMEOUTS}; {@code null} (left out) if the worker was too busy to
	 * answer in time
	 * @param delayedMethods the {@code @DelayedExecution} methods whose calls wait on this timer
	 */
	public record WheelTimerDetailsDescriptor(String state, String tickDuration, int ticksPerWheel, long tick,
			int hand, long pendingTimeouts, long maxPendingTimeouts, CountersDescriptor counters, String tickLag,
			String maxTickLag, String meanLateness, WheelSnapshot.Worker worker, BucketsDescriptor buckets,
			List<LevelDescriptor> levels, @Nullable List<NextTimeoutDescriptor> nextTimeouts,
			List<DelayedMethodDescriptor> delayedMethods) implements OperationResponseBody {

		static WheelTimerDetailsDescriptor of(WheelSnapshot snapshot, @Nullable List<Timeout> nextTimeouts,
				List<DelayedMethodDescriptor> delayedMethods) {
			WheelTimerDescriptor timer = WheelTimerDescriptor.of(snapshot);
			List<NextTimeoutDescriptor> next = (nextTimeouts != null) ? nextTimeouts.stream()
				.filter((timeout) -> !timeout.isCancelled() && !timeout.isExpired())
				.map(NextTimeoutDescriptor::of)
				.toList() : null;
			return new WheelTimerDetailsDescriptor(timer.state(), timer.tickDuration(), timer.ticksPerWheel(),
					timer.tick(), timer.hand(), timer.pendingTimeouts(), timer.maxPendingTimeouts(), timer.counters(),
					timer.tickLag(), timer.maxTickLag(), timer.meanLateness(), timer.worker(),
					BucketsDescriptor.of(snapshot.buckets()),
					snapshot.levels().stream().map(LevelDescriptor::of).toList(), next, delayedMethods);
		}

	}

	/**
	 * Level 0 at a glance: its occupied buckets are listed with the {@code levels}.
	 *
	 * @param occupied how many buckets hold timeouts
	 * @param largest the bucket that holds the most, or {@code null} (left out) when all are empty
	 */
	public record BucketsDescriptor(int occupied, @Nullable SlotDescriptor largest) {

		static BucketsDescriptor of(List<WheelSnapshot.Slot> buckets) {
			WheelSnapshot.Slot largest = null;
			for (WheelSnapshot.Slot bucket : buckets) {
				if (largest == null || bucket.timeouts() > largest.timeouts()) {
					largest = bucket;
				}
			}
			return new BucketsDescriptor(buckets.size(), (largest != null) ? SlotDescriptor.of(largest) : null);
		}

	}

	/**
	 * One level of the wheel. Level 0 is the ring of {@code ticksPerWheel} buckets, one tick each,
	 * that fires; each level above has 64 slots, each spanning a whole turn of the level below. A
	 * timeout beyond level 0's turn waits in the slot of the level that holds its deadline, and
	 * moves down, re-filed by its deadline, when that level's hand reaches the slot: at most once
	 * per level on its way to level 0.
	 *
	 * @param index 0 for the buckets, 1 and up for the coarser levels
	 * @param slotSpan how much time one slot covers: the tick at level 0
	 * @param slots how many slots the level has
	 * @param hand the slot the level's hand is in
	 * @param timeouts how many timeouts the level holds
	 * @param nextDue how long until the earliest of them is due, or {@code null} (left out) when
	 * the level is empty
	 * @param moves how many timeouts have moved down from this level so far (0 at level 0)
	 * @param occupied the slots that hold timeouts, in slot order, at most
	 * {@value WheelTimerEndpoint#MAX_LISTED_SLOTS}
	 */
	public record LevelDescriptor(int index, String slotSpan, int slots, int hand, long timeouts,
			@Nullable String nextDue, long moves, List<SlotDescriptor> occupied) {

		static LevelDescriptor of(WheelSnapshot.Level level) {
			List<WheelSnapshot.Slot> occupied = level.occupied();
			if (occupied.size() > WheelTimerEndpoint.MAX_LISTED_SLOTS) {
				occupied = occupied.subList(0, WheelTimerEndpoint.MAX_LISTED_SLOTS);
			}
			Duration nextDue = level.nextDue();
			return new LevelDescriptor(level.index(), DurationFormat.iso(level.slotSpan()), level.slots(), level.hand(),
					level.timeouts(), (nextDue != null) ? DurationFormat.iso(nextDue) : null, level.moves(),
					occupied.stream().map(SlotDescriptor::of).toList());
		}

	}

	/**
	 * A slot that holds timeouts: at level 0, a bucket.
	 *
	 * @param index the slot's position in its level, from 0
	 * @param timeouts how many timeouts it holds
	 * @param dueIn how long until the earliest of them is due; negative when overdue
	 */
	public record SlotDescriptor(int index, int timeouts, String dueIn) {

		static SlotDescriptor of(WheelSnapshot.Slot slot) {
			return new SlotDescriptor(slot.index(), slot.timeouts(), DurationFormat.iso(slot.dueIn()));
		}

	}

	/**
	 * A timeout due soon.
	 *
	 * @param method the {@code @DelayedExecution} method it will call, or {@code null} (left out)
	 * for a plain timer task
	 * @param task the class of a plain timer task, or {@code null} (left out) for a delayed call
	 * @param remainingDelay how long until its deadline; it fires at the end of that tick
	 * @param key the key of a durable call, such as an order's id, or {@code null} (left out) for
	 * a call without one
	 * @param callId the id of a durable call, or {@code null} (left out) for an in-memory call
	 * @param attempt the attempt it runs when it is a {@code @Retryable} retry (2 or more; a durable
	 * call counts every run of its row), or {@code null} (left out) for a first run
	 */
	public record NextTimeoutDescriptor(@Nullable String method, @Nullable String task, String remainingDelay,
			@Nullable String key, @Nullable UUID callId, @Nullable Integer attempt) {

		static NextTimeoutDescriptor of(Timeout timeout) {
			String remainingDelay = DurationFormat.iso(timeout.remainingDelay());
			// Through the interface: a durable call's class is not loaded where durable calls are off.
			return (timeout.task() instanceof DelayedTask call)
					? new NextTimeoutDescriptor(call.method().description(), null, remainingDelay, call.key(), call.id(),
							(call.attempt() > 1) ? call.attempt() : null)
					: new NextTimeoutDescriptor(null, DelayedTask.describe(timeout), remainingDelay, null, null, null);
		}

	}

	/**
	 * A {@code @DelayedExecution} method.
	 *
	 * @param method the method, such as {@code OrderService.cancelIfUnpaid(String)}
	 * @param delay its delay, as resolved at startup
	 * @param calls how many calls this instance's callers made since startup (a durable call
	 * wherever it then runs)
	 * @param completed how many of its runs on this instance returned normally, durable calls run
	 * again after a re-queue or a run now included
	 * @param failed how many of its runs on this instance threw or could not start, likewise
	 * @param inFlight how many are due and queued or running on the executor
	 * @param maxRetries its {@code @Retryable(maxRetries)}, or {@code null} (left out) for a method
	 * whose failed calls are not retried
	 * @param retried how many failed runs on this instance its {@code @Retryable} tried again
	 * @param exhausted how many calls failed for good on this instance after retries
	 */
	public record DelayedMethodDescriptor(String method, String delay, long calls, long completed, long failed,
			int inFlight, @Nullable Long maxRetries, long retried, long exhausted) {

		DelayedMethodDescriptor(DelayedMethod method) {
			this(method.description(), DurationFormat.iso(method.delay()), method.calls(), method.completedCalls(),
					method.failedCalls(), method.inFlight(), (method.retry() != null) ? method.retry().maxRetries() : null,
					method.retriedCalls(), method.exhaustedCalls());
		}

	}

	/**
	 * What a stop did.
	 *
	 * @param timer the timer's bean name
	 * @param state the timer's state afterwards: {@code SHUTDOWN}
	 * @param alreadyStopped whether the timer was stopped before this request (then nothing was
	 * drained or left by it)
	 * @param drainTimeout the drain asked for
	 * @param took how long the stop took; less than the drain when nothing more could fall due in it
	 * @param firedDuringDrain timeouts that fell due and were handed to run while it drained
	 * @param unprocessed timeouts left, now cancelled
	 * @param handedBack how many of them were durable calls, handed back to the database
	 * @param unprocessedByMethod how many were left per method (or task class), largest first, at
	 * most {@value WheelTimerEndpoint#MAX_REPORTED_METHODS}
	 */
	public record StopReportDescriptor(String timer, String state, boolean alreadyStopped, String drainTimeout,
			String took, long firedDuringDrain, int unprocessed, int handedBack,
			Map<String, Integer> unprocessedByMethod) implements OperationResponseBody {

		StopReportDescriptor(String timer, String state, boolean alreadyStopped, String drainTimeout, String took,
				long firedDuringDrain, UnprocessedCalls calls) {
			this(timer, state, alreadyStopped, drainTimeout, took, firedDuringDrain, calls.total(), calls.handedBack(),
					firstEntries(calls.byTask()));
		}

		private static Map<String, Integer> firstEntries(Map<String, Integer> largestFirst) {
			Map<String, Integer> first = new LinkedHashMap<>();
			largestFirst.entrySet()
				.stream()
				.limit(WheelTimerEndpoint.MAX_REPORTED_METHODS)
				.forEach((entry) -> first.put(entry.getKey(), entry.getValue()));
			return first;
		}

	}

}
