package io.github.wheeltimer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.Consumer;

/**
 * The ring of buckets. Only the worker thread changes it; any thread may read its per-bucket
 * statistics for a {@link WheelSnapshot}.
 *
 * <p>Tick {@code k} is the interval {@code (k * tick, (k + 1) * tick]} of time since the timer's
 * origin: it holds the deadlines that its end is the first boundary at or after. A timeout whose
 * deadline falls in tick {@code k} sits in bucket {@code k & mask} and runs when the worker
 * processes tick {@code k}, which it does at {@code (k + 1) * tick} or later: never before the
 * deadline, and on time for a deadline that is itself a boundary (as every deadline is under a
 * virtual clock that stops at boundaries), not a tick after it. A bucket holds the timeouts of
 * every tick congruent to it, so each
 * visit fires only those whose deadline has passed, and keeps the others for a later revolution
 * (their "remaining rounds" are derived from the deadline, not stored).
 *
 * <p>Each bucket is a doubly linked ring through a sentinel, so a cancelled timeout is unlinked in
 * O(1) without knowing its neighbours' bucket. The bucket of a linked timeout is always
 * {@code tickOf(deadline) & mask}: timeouts already overdue when they reach the worker are run at
 * once instead of being linked, so no entry is ever placed anywhere else.
 *
 * <p>Statistics: {@code counts} is exact; {@code earliest}/{@code latest} bound the deadlines in a
 * bucket. They are recomputed exactly whenever the worker walks the bucket and only widened in
 * between (a cancellation does not narrow them), so the worker may wake for a bucket whose earliest
 * timeout was cancelled, but never sleeps past one that is due. They are written with opaque
 * stores and read with opaque loads by snapshot readers: each value is one the worker wrote, but
 * different buckets may be seen at slightly different moments. {@code occupied} has one bit per
 * bucket, set while the bucket holds anything, so the search for the next due tick and the
 * snapshot skip empty buckets 64 at a time: their cost follows the occupied buckets, not the
 * wheel size.
 */
final class Wheel {

	private static final VarHandle INT_ELEMENT = MethodHandles.arrayElementVarHandle(int[].class);

	private static final VarHandle LONG_ELEMENT = MethodHandles.arrayElementVarHandle(long[].class);

	private static final int BITS_PER_WORD = 64;

	private final WheelNode[] sentinels;

	private final int[] counts;

	private final long[] earliest;

	private final long[] latest;

	private final long[] occupied;

	private final int mask;

	private final long tickNanos;

	/** Timeouts linked in all buckets; worker only. */
	private long size;

	Wheel(int ticksPerWheel, long tickNanos) {
		this.sentinels = new WheelNode[ticksPerWheel];
		for (int i = 0; i < ticksPerWheel; i++) {
			WheelNode sentinel = new WheelNode();
			sentinel.next = sentinel;
			sentinel.prev = sentinel;
			this.sentinels[i] = sentinel;
		}
		this.counts = new int[ticksPerWheel];
		this.earliest = new long[ticksPerWheel];
		this.latest = new long[ticksPerWheel];
		this.occupied = new long[(ticksPerWheel + BITS_PER_WORD - 1) / BITS_PER_WORD];
		this.mask = ticksPerWheel - 1;
		this.tickNanos = tickNanos;
	}

	int ticksPerWheel() {
		return this.sentinels.length;
	}

	boolean isEmpty() {
		return this.size == 0;
	}

	/** The tick whose interval holds {@code deadline}: the one that ends at or first after it. */
	long tickOf(long deadline) {
		return Math.floorDiv(deadline - 1, this.tickNanos);
	}

	void add(HashedWheelTimeout timeout) {
		add(timeout, tickOf(timeout.deadline));
	}

	/** Links a timeout whose deadline falls in {@code tick} (computed once by the caller). */
	void add(HashedWheelTimeout timeout, long tick) {
		int bucket = (int) (tick & this.mask);
		WheelNode sentinel = this.sentinels[bucket];
		WheelNode last = sentinel.prev;
		timeout.prev = last;
		timeout.next = sentinel;
		last.next = timeout;
		sentinel.prev = timeout;
		int count = this.counts[bucket];
		long deadline = timeout.deadline;
		if (count == 0) {
			setBounds(bucket, deadline, deadline);
		}
		else if (deadline < this.earliest[bucket]) {
			LONG_ELEMENT.setOpaque(this.earliest, bucket, deadline);
		}
		else if (deadline > this.latest[bucket]) {
			LONG_ELEMENT.setOpaque(this.latest, bucket, deadline);
		}
		setCount(bucket, count + 1);
		this.size++;
	}

	/** Unlinks a timeout that is in a bucket ({@code prev != null}). */
	void remove(HashedWheelTimeout timeout) {
		int bucket = (int) (tickOf(timeout.deadline) & this.mask);
		unlink(timeout);
		setCount(bucket, this.counts[bucket] - 1);
		this.size--;
	}

	/**
	 * Processes {@code tick}: unlinks the cancelled timeouts of its bucket and hands each one whose
	 * deadline has passed to {@code onDue}, already unlinked. {@code onDue} may run user code, but
	 * that code can only reach the wheel through the timer's queues, never directly.
	 * @return how many timeouts were due
	 */
	int expire(long tick, Consumer<HashedWheelTimeout> onDue) {
		int bucket = (int) (tick & this.mask);
		int count = this.counts[bucket];
		long limit = (tick + 1) * this.tickNanos;
		if (count == 0 || this.earliest[bucket] > limit) {
			// Nothing due: the bucket's timeouts wait for later revolutions (earliest is a lower
			// bound, and cancelled ones leave through the cancellation queue, not through here).
			return 0;
		}
		int due = 0;
		WheelNode sentinel = this.sentinels[bucket];
		long earliest = Long.MAX_VALUE;
		long latest = Long.MIN_VALUE;
		WheelNode node = sentinel.next;
		while (node != sentinel) {
			HashedWheelTimeout timeout = (HashedWheelTimeout) node;
			node = timeout.next;
			boolean cancelled = !timeout.isPending();
			if (cancelled || timeout.deadline <= limit) {
				unlink(timeout);
				count--;
				this.size--;
				setCount(bucket, count);
				if (!cancelled) {
					due++;
					onDue.accept(timeout);
				}
			}
			else {
				earliest = Math.min(earliest, timeout.deadline);
				latest = Math.max(latest, timeout.deadline);
			}
		}
		setBounds(bucket, earliest, latest);
		return due;
	}

	/**
	 * Returns the earliest tick at or after {@code fromTick} that has a timeout due, or
	 * {@link Long#MAX_VALUE} when the wheel is empty. May answer early (see the class comment),
	 * never late. Costs one look at each occupied bucket up to the answer. Worker only.
	 */
	long nextDueTick(long fromTick) {
		return (this.size == 0) ? Long.MAX_VALUE : findNextDueTick(fromTick);
	}

	/**
	 * {@link #nextDueTick} from any thread: opaque loads only, so a reader sees bounds the worker
	 * wrote, perhaps a moment apart. Costs one look at each occupancy word up to the answer.
	 */
	long findNextDueTick(long fromTick) {
		long best = Long.MAX_VALUE;
		int hand = (int) (fromTick & this.mask);
		for (int bucket = firstOccupiedFrom(hand); bucket >= 0; bucket = nextOccupiedFrom(bucket, hand)) {
			long tick = fromTick + ((bucket - hand) & this.mask);
			if (tick >= best) {
				break;
			}
			long due = Math.max(tickOf((long) LONG_ELEMENT.getOpaque(this.earliest, bucket)), tick);
			if (due == tick) {
				return tick;
			}
			best = Math.min(best, due);
		}
		return best;
	}

	/**
	 * Returns up to {@code limit} pending timeouts that fall due first, soonest first. Worker only:
	 * it walks the buckets' links. Buckets are visited in the order the hand reaches them, and a
	 * bucket whose earliest deadline is later than the latest of a full result is skipped, so the
	 * walk usually ends after the first few occupied buckets; its worst case is every pending
	 * timeout, each costing a heap comparison.
	 */
	List<Timeout> soonest(long fromTick, int limit) {
		if (this.size == 0 || limit == 0) {
			return List.of();
		}
		Comparator<HashedWheelTimeout> byDeadline = Comparator.comparingLong((timeout) -> timeout.deadline);
		PriorityQueue<HashedWheelTimeout> latestFirst = new PriorityQueue<>(Math.min(limit, 1024), byDeadline.reversed());
		int hand = (int) (fromTick & this.mask);
		for (int bucket = firstOccupiedFrom(hand); bucket >= 0; bucket = nextOccupiedFrom(bucket, hand)) {
			if (latestFirst.size() == limit && this.earliest[bucket] >= latestFirst.peek().deadline) {
				continue;
			}
			WheelNode sentinel = this.sentinels[bucket];
			for (WheelNode node = sentinel.next; node != sentinel; node = node.next) {
				HashedWheelTimeout timeout = (HashedWheelTimeout) node;
				if (!timeout.isPending()) {
					continue;
				}
				if (latestFirst.size() < limit) {
					latestFirst.add(timeout);
				}
				else if (timeout.deadline < latestFirst.peek().deadline) {
					latestFirst.poll();
					latestFirst.add(timeout);
				}
			}
		}
		List<HashedWheelTimeout> soonestFirst = new ArrayList<>(latestFirst);
		soonestFirst.sort(byDeadline);
		return Collections.unmodifiableList(soonestFirst);
	}

	/** The first occupied bucket in the order the hand reaches them from {@code hand}, or -1. */
	private int firstOccupiedFrom(int hand) {
		int bucket = nextOccupied(hand);
		return (bucket >= 0) ? bucket : nextOccupiedBefore(0, hand);
	}

	/** The occupied bucket the hand reaches after {@code bucket}, not passing {@code hand} again; or -1. */
	private int nextOccupiedFrom(int bucket, int hand) {
		if (bucket >= hand) {
			int next = nextOccupied(bucket + 1);
			return (next >= 0) ? next : nextOccupiedBefore(0, hand);
		}
		return nextOccupiedBefore(bucket + 1, hand);
	}

	private int nextOccupiedBefore(int from, int end) {
		int bucket = nextOccupied(from);
		return (bucket < end) ? bucket : -1;
	}

	/**
	 * Returns the first occupied bucket at or after {@code from}, or -1. Opaque loads: the worker
	 * and snapshot readers alike (for the worker they cost what plain loads do).
	 */
	private int nextOccupied(int from) {
		if (from > this.mask) {
			return -1;
		}
		int word = from / BITS_PER_WORD;
		long bits = (long) LONG_ELEMENT.getOpaque(this.occupied, word) & (-1L << (from % BITS_PER_WORD));
		while (bits == 0) {
			if (++word == this.occupied.length) {
				return -1;
			}
			bits = (long) LONG_ELEMENT.getOpaque(this.occupied, word);
		}
		return word * BITS_PER_WORD + Long.numberOfTrailingZeros(bits);
	}

	/** Publishes a bucket's count, and its occupied bit when the count leaves or reaches zero. */
	private void setCount(int bucket, int count) {
		INT_ELEMENT.setOpaque(this.counts, bucket, count);
		if (count <= 1) {
			int word = bucket / BITS_PER_WORD;
			long bit = 1L << (bucket % BITS_PER_WORD);
			long bits = (count == 1) ? (this.occupied[word] | bit) : (this.occupied[word] & ~bit);
			LONG_ELEMENT.setOpaque(this.occupied, word, bits);
		}
	}

	/** Unlinks every timeout and hands it to {@code action}; used when the timer stops. */
	void removeAll(Consumer<HashedWheelTimeout> action) {
		for (int bucket = 0; bucket <= this.mask; bucket++) {
			WheelNode sentinel = this.sentinels[bucket];
			WheelNode node = sentinel.next;
			while (node != sentinel) {
				HashedWheelTimeout timeout = (HashedWheelTimeout) node;
				node = timeout.next;
				unlink(timeout);
				action.accept(timeout);
			}
			setCount(bucket, 0);
			setBounds(bucket, Long.MAX_VALUE, Long.MIN_VALUE);
		}
		this.size = 0;
	}

	/**
	 * Reads the non-empty buckets; safe from any thread.
	 * @param currentTick the tick the hand is on, from which remaining rounds are counted
	 */
	List<WheelSnapshot.Bucket> occupancy(long currentTick) {
		List<WheelSnapshot.Bucket> buckets = new ArrayList<>();
		int ticksPerWheel = this.sentinels.length;
		for (int bucket = nextOccupied(0); bucket >= 0; bucket = nextOccupied(bucket + 1)) {
			int count = (int) INT_ELEMENT.getOpaque(this.counts, bucket);
			if (count > 0) {
				long nextVisit = currentTick + ((bucket - currentTick) & this.mask);
				long earliestTick = tickOf((long) LONG_ELEMENT.getOpaque(this.earliest, bucket));
				long latestTick = tickOf((long) LONG_ELEMENT.getOpaque(this.latest, bucket));
				long minRounds = Math.max(0, (earliestTick - nextVisit) / ticksPerWheel);
				long maxRounds = Math.max(minRounds, (latestTick - nextVisit) / ticksPerWheel);
				buckets.add(new WheelSnapshot.Bucket(bucket, count, minRounds, maxRounds));
			}
		}
		return buckets;
	}

	private void setBounds(int bucket, long earliest, long latest) {
		LONG_ELEMENT.setOpaque(this.earliest, bucket, earliest);
		LONG_ELEMENT.setOpaque(this.latest, bucket, latest);
	}

	private static void unlink(WheelNode node) {
		node.prev.next = node.next;
		node.next.prev = node.prev;
		node.prev = null;
		node.next = null;
	}

}
