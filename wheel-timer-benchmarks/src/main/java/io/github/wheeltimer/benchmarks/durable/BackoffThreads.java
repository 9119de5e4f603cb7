package io.github.wheeltimer.benchmarks.durable;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Row F1's threads blocked: every {@link #PERIOD_MILLIS} ms, the threads of this JVM whose stack is
 * sleeping ({@code Thread.sleep}) inside retry or backoff code, Spring's
 * ({@code org.springframework.core.retry}, {@code org.springframework.resilience}) or the
 * system's own; the most seen at once is the figure. A system that waits out a backoff on a
 * thread shows one such thread per call waiting; one that turns the backoff into a due time shows
 * none. Only what the system's threads do while F1 runs is sampled: the systems of a pass run one
 * after the other, each closed before the next starts.
 * <p>
 * Sampling is a look every 50 ms, not a trace: a sleep shorter than that can slip between two
 * looks, but a backoff of a second cannot.
 */
final class BackoffThreads implements AutoCloseable {

	static final long PERIOD_MILLIS = 50;

	private final Predicate<StackTraceElement> retryFrame;

	private final Thread sampler;

	private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

	private volatile boolean stopped;

	private int most;

	private int samples;

	private String example;

	private BackoffThreads(Predicate<StackTraceElement> systemRetryFrame) {
		this.retryFrame = (frame) -> isSpringRetry(frame) || systemRetryFrame.test(frame);
		this.sampler = new Thread(this::sample, "r1-backoff-sampler");
		this.sampler.setDaemon(true);
	}

	/**
	 * Starts sampling.
	 * @param systemRetryFrame whether a frame is of the system's own retry or backoff code
	 */
	static BackoffThreads sample(Predicate<StackTraceElement> systemRetryFrame) {
		BackoffThreads sampling = new BackoffThreads(systemRetryFrame);
		// The peak of live threads is reported beside it: a system that blocks no thread for its
		// backoff may still start threads for it.
		sampling.threads.resetPeakThreadCount();
		sampling.sampler.start();
		return sampling;
	}

	private void sample() {
		while (!this.stopped) {
			long next = System.nanoTime() + PERIOD_MILLIS * 1_000_000;
			int blocked = 0;
			String seen = null;
			for (Map.Entry<Thread, StackTraceElement[]> thread : Thread.getAllStackTraces().entrySet()) {
				if (thread.getKey() != this.sampler && sleepsInRetry(thread.getValue())) {
					blocked++;
					seen = thread.getKey().getName();
				}
			}
			synchronized (this) {
				this.samples++;
				if (blocked > this.most) {
					this.most = blocked;
					this.example = seen;
				}
			}
			long wait = (next - System.nanoTime()) / 1_000_000;
			if (wait > 0) {
				try {
					Thread.sleep(wait);
				}
				catch (InterruptedException ex) {
					return;
				}
			}
		}
	}

	private boolean sleepsInRetry(StackTraceElement[] stack) {
		boolean sleeping = false;
		boolean retrying = false;
		for (StackTraceElement frame : stack) {
			// Thread.sleep is native in 17; later JDKs sleep in Thread.sleep0 or sleepNanos beneath it.
			sleeping |= frame.getClassName().equals("java.lang.Thread") && frame.getMethodName().startsWith("sleep");
			retrying |= this.retryFrame.test(frame);
		}
		return sleeping && retrying;
	}

	private static boolean isSpringRetry(StackTraceElement frame) {
		return frame.getClassName().startsWith("org.springframework.core.retry.")
				|| frame.getClassName().startsWith("org.springframework.resilience.");
	}

	/** @return the most threads seen sleeping in a backoff at once */
	synchronized int most() {
		return this.most;
	}

	/** @return how many times the threads were looked at */
	synchronized int samples() {
		return this.samples;
	}

	/** @return a thread seen sleeping in a backoff when the most were, or {@code null} */
	synchronized String example() {
		return this.example;
	}

	/** @return the most live threads of this JVM at once since sampling started */
	int peakThreads() {
		return this.threads.getPeakThreadCount();
	}

	/** Stops sampling; the figures stay. */
	@Override
	public void close() throws InterruptedException {
		this.stopped = true;
		this.sampler.join();
	}

}
