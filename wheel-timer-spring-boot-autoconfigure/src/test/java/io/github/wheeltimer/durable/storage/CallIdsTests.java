package io.github.wheeltimer.durable.storage;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class CallIdsTests {

	@Test
	void anIdIsAVersion7UuidThatCarriesTheMillisecondItWasMadeIn() {
		long before = System.currentTimeMillis();
		UUID id = CallIds.next();
		long after = System.currentTimeMillis();
		assertThat(id.version()).isEqualTo(7);
		assertThat(id.variant()).isEqualTo(2);
		assertThat(id.getMostSignificantBits() >>> 16).isBetween(before, after);
	}

	@Test
	void idsOfLaterMillisecondsSortAfterAsTheDatabasesCompareThem() throws Exception {
		UUID first = CallIds.next();
		long made = first.getMostSignificantBits() >>> 16;
		while (System.currentTimeMillis() == made) {
			Thread.onSpinWait();
		}
		UUID later = CallIds.next();
		// PostgreSQL and H2 compare a UUID's bytes unsigned; MySQL and MariaDB store its text.
		assertThat(Long.compareUnsigned(later.getMostSignificantBits(), first.getMostSignificantBits())).isPositive();
		assertThat(later.toString()).isGreaterThan(first.toString());
	}

	@Test
	void idsMadeByManyThreadsAtOnceAreUnique() throws Exception {
		int threads = 8;
		int each = 50_000;
		Set<UUID> ids = ConcurrentHashMap.newKeySet();
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<?>> made = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				made.add(pool.submit(() -> {
					start.await();
					for (int i = 0; i < each; i++) {
						ids.add(CallIds.next());
					}
					return null;
				}));
			}
			start.countDown();
			for (Future<?> done : made) {
				done.get(30, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(ids).hasSize(threads * each);
	}

}
