package io.github.wheeltimer.durable;

import java.lang.reflect.Field;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

/**
 * A test-side workaround for a gap in {@link DurableCalls#busy()} under virtual time: a poll that
 * falls due on the scheduler's wheel is handed to the poll thread, and counted busy only once
 * that thread begins it ({@code ClaimPoller.launchPoll}). In between, no poll is armed and none
 * counts as in progress, so an advance may move the clock on and the poll then runs late, at
 * whatever virtual time it finds (see {@code ClaimPollerTests}'s disabled test).
 * <p>
 * Replaces the scheduler's poll executor, by reflection and before the start, with one that
 * counts the tasks handed to it and not finished, for the ticker to wait for too. Remove once
 * {@code busy()} counts a poll from the moment it falls due.
 */
final class PollHandOffs extends AbstractExecutorService {

	private final ExecutorService polls;

	private final AtomicInteger unfinished = new AtomicInteger();

	private PollHandOffs(ExecutorService polls) {
		this.polls = polls;
	}

	static PollHandOffs install(DurableCalls durable) {
		try {
			Field schedulerField = DurableCalls.class.getDeclaredField("scheduler");
			schedulerField.setAccessible(true);
			DurableScheduler scheduler = (DurableScheduler) schedulerField.get(durable);
			Field pollsField = DurableScheduler.class.getDeclaredField("polls");
			pollsField.setAccessible(true);
			PollHandOffs handOffs = new PollHandOffs((ExecutorService) pollsField.get(scheduler));
			pollsField.set(scheduler, handOffs);
			return handOffs;
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("DurableScheduler changed: its poll executor cannot be replaced", ex);
		}
	}

	/** @return what an advance still waits for, or {@code null} */
	@Nullable String busy() {
		int count = this.unfinished.get();
		return (count > 0) ? count + " task(s) handed to the durable calls' poll thread" : null;
	}

	@Override
	public void execute(Runnable task) {
		this.unfinished.incrementAndGet();
		try {
			this.polls.execute(() -> {
				try {
					task.run();
				}
				finally {
					this.unfinished.decrementAndGet();
				}
			});
		}
		catch (RuntimeException refused) {
			this.unfinished.decrementAndGet();
			throw refused;
		}
	}

	@Override
	public void shutdown() {
		this.polls.shutdown();
	}

	@Override
	public List<Runnable> shutdownNow() {
		List<Runnable> never = this.polls.shutdownNow();
		this.unfinished.addAndGet(-never.size());
		return never;
	}

	@Override
	public boolean isShutdown() {
		return this.polls.isShutdown();
	}

	@Override
	public boolean isTerminated() {
		return this.polls.isTerminated();
	}

	@Override
	public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
		return this.polls.awaitTermination(timeout, unit);
	}

}
