package io.github.wheeltimer.benchmarks;

import java.time.Duration;
import java.util.LinkedHashMap;
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
	public Map<Peer, Measurement> measure(Mode mode) throws Exception {
		Map<Peer, Measurement> results = new LinkedHashMap<>();
		for (Peer peer : Peer.values()) {
			Peer.PeerTimer timer = peer.create(TICK, 512);
			try {
				Object task = timer.task(() -> {
				});
				long before = Heap.usedAfterGc();
				int pairs = mode.scale(3_000_000);
				for (int i = 0; i < pairs; i++) {
					timer.cancel(timer.schedule(task, ScheduleThenCancelBenchmark.THIRTY_SECONDS));
				}
				Thread.sleep(3 * TICK.toMillis());
				double kept = Heap.usedAfterGc() - before;
				double perPair = kept / pairs;
				results.put(peer, new Measurement(perPair, String.format(java.util.Locale.ROOT, "%s (%.1f MB kept)",
						(kept < 8 << 20) ? "flat" : "grows", kept / (1 << 20))));
			}
			finally {
				timer.close();
			}
		}
		return results;
	}

}
