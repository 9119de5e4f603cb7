package io.github.wheeltimer.annotation;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Records the runs of delayed methods: what ran, with which arguments, on which thread, when. */
final class Invocations {

	static final Duration WAIT = Duration.ofSeconds(10);

	private final BlockingQueue<Invocation> runs = new LinkedBlockingQueue<>();

	void record(String method, Object... arguments) {
		this.runs.add(new Invocation(method, Arrays.asList(arguments), Thread.currentThread().getName(),
				System.nanoTime()));
	}

	/** Waits (bounded) for the next run. */
	Invocation next() throws InterruptedException {
		Invocation invocation = this.runs.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
		assertThat(invocation).as("a delayed method ran within " + WAIT).isNotNull();
		return invocation;
	}

	List<Invocation> all() {
		return List.copyOf(this.runs);
	}

	boolean isEmpty() {
		return this.runs.isEmpty();
	}

	record Invocation(String method, List<Object> arguments, String thread, long nanoTime) {

		Duration since(long startNanos) {
			return Duration.ofNanos(this.nanoTime - startNanos);
		}

	}

}
