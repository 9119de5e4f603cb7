package io.github.wheeltimer.durable.storage;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The ids of new calls: time-ordered UUIDs, version 7 of RFC 9562 (the Unix time in milliseconds,
 * then 74 random bits), so that the primary key's index takes each new call at its right-hand
 * end, as it takes the calls made just before. A random UUID lands on a random page of that index:
 * with ten million calls waiting, the index outgrows the database's cache, and every call's insert
 * (and its gate and delete, by id) would read a page back in. The random bits come from
 * {@link ThreadLocalRandom}: an id needs to be unique, not secret (whoever may act on a call by
 * its id reaches the operators' endpoint, which has its own security). Thread-safe.
 */
public final class CallIds {

	/** The version nibble, 7, in the most significant half. */
	private static final long VERSION = 0x7000L;

	/** The variant bits, {@code 10}, in the least significant half. */
	private static final long VARIANT = 0x8000_0000_0000_0000L;

	private CallIds() {
	}

	/** @return a new id, after those made in earlier milliseconds */
	public static UUID next() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		long most = (System.currentTimeMillis() << 16) | VERSION | (random.nextInt() & 0x0fff);
		long least = VARIANT | (random.nextLong() >>> 2);
		return new UUID(most, least);
	}

}
