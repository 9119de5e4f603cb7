package io.github.wheeltimer.durable.run;

/**
 * Counts of this instance's durable calls since it started.
 *
 * @param scheduled calls written by this instance's callers
 * @param claimed calls a poll claimed
 * @param started calls that passed the start gate
 * @param ran calls that ran and whose row is gone
 * @param failed calls that threw or could not be read; their rows are kept
 * @param retried runs that threw and that their method's {@code @Retryable} tries again: the
 * row waits for the next attempt
 * @param fenced held calls the gate stopped: cancelled, replaced or taken over elsewhere
 * @param takenOver calls of dead instances this instance released for everyone
 * @param handedBack claimed calls handed back unstarted (stop, refusal, or arguments this instance
 * cannot read: another version wrote them)
 * @param cancelled calls this instance's callers cancelled (by key, or through the future),
 * wherever they were held
 * @param suspectedDuplicates calls that started here after starting before on an instance whose
 * lease ran out: that run may have done its work too (at least once)
 */
public record CallCounts(long scheduled, long claimed, long started, long ran, long failed, long retried,
		long fenced, long takenOver, long handedBack, long cancelled, long suspectedDuplicates) {
}
