package io.github.wheeltimer.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The second half of row C2: after millions of schedule-then-cancel pairs, does the timer give the
 * memory back? Measures the used heap, after a full GC, once a tick has passed since the last pair.
 */
final class HeapFlatness implements PlainRow {

	private static final Duration TICK = Duration.ofMillis(100);

	@Override
	public String id() {
		return "C2h";
	}

	@Override
	public String title() {
		return "heap kept after 3M schedule+cancel pairs";
	}

	@Override
	public Map<Peer, Measurement> measure(Mode mode) {
		int pairs = mode.scale(3_000_000);
		return Lateness.eachPeer(id(), List.of(Peer.values()), (peer) -> measure(peer, pairs));
	}

	private static Measurement measure(Peer peer, int pairs) throws InterruptedException {
		Peer.PeerTimer timer = peer.create(TICK, 512);
		try {
			Object task = timer.task(() -> {
			});
			long before = Heap.usedAfterGc();
			for (int i = 0; i < pairs; i++) {
				timer.cancel(timer.schedule(task, ScheduleThenCancelBenchmark.THIRTY_SECONDS));
			}
			Thread.sleep(3 * TICK.toMillis());
			double kept = Heap.usedAfterGc() - before;
			return new Measurement(kept / pairs, String.format(Locale.ROOT, "%s (%.1f MB kept)",
					(kept < 8 << 20) ? "flat" : "grows", kept / (1 << 20)));
		}
		finally {
			Lateness.closeAndJoin(timer);
		}
	}

}
