package io.github.wheeltimer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.Consumer;

/**
 * The wheel's structure: the hand, level 0's ring of one-tick buckets, and the coarser levels
 * above it (Varghese and Lauck's hierarchical wheel, with Tokio's aligned placement and Caffeine's
 * re-filing by exact deadline). Only the worker thread changes it; any thread may read its
 * statistics for a {@link WheelSnapshot} and {@link #nextDueTick()}.
 *
 * <h2>Ticks and the hand</h2>
 * Tick {@code k} is the interval {@code (k * tick, (k + 1) * tick]} of time since the timer's
 * origin: it holds the deadlines that its end is the first boundary at or after. The
 * <em>hand</em> is the next tick the worker processes: every tick before it has fired. A tick
 * fires at its end or later, so nothing fires before its deadline, and a deadline that is itself a
 * boundary fires at that boundary.
 *
 * <h2>Placement</h2>
 * Ticks are cut into aligned <em>turns</em> of {@code buckets} ticks (a power of two). Level 0
 * holds the ticks of the turn the hand is in, each in its own bucket, so a bucket holds exactly one
 * tick and everything in it is due when it fires: there are no rounds to count. Level 1 has 64
 * slots of one turn each, level 2 has 64 slots of 64 turns, and so on: enough fixed levels for the
 * furthest representable deadline. A timeout's place is a function of the hand and its tick alone:
 * the highest group of bits in which they differ names the level, the tick's bits in that group the
 * slot ({@link #indexOf}). So nothing extra is stored in the timeout, and a cancel finds the slot
 * whose count it decrements in O(1), provided the hand never passes the start of an occupied
 * slot: {@link #advance} moves every slot down when the hand reaches its start, re-filing each
 * timeout by its own deadline into a finer level. Only level 0 fires, so never-early holds by
 * construction, and a timeout moves down at most once per level: a far timeout costs a few moves
 * and one fire, however many turns it waits.
 *
 * <h2>Staging the next turn</h2>
 * Moving a slot down is one pass over its timeouts: at a turn boundary, the level-1 slot of the
 * new turn may hold a burst (a 1 ms wheel given 200,000 timeouts at once moves 100,000 there, about
 * 4 ms of work). So while the hand is in a turn, each pass of the worker also sorts a bounded
 * number of the next turn's timeouts into one list per bucket ({@link #stage}), and the boundary
 * only splices those lists into the buckets. Staged timeouts still belong to their level-1 slot:
 * its count includes them, and a cancel of one of them first finishes the staging, so that the
 * cancel knows which list to leave (each timeout is staged once, so that costs no more in total).
 * The worker stages only when it is awake anyway: a sparse wheel moves its slot at the boundary,
 * as it would have.
 *
 * <h2>Statistics</h2>
 * Arrays indexed by slot, level 0's buckets first, then 64 slots per upper level: {@code counts}
 * is exact; {@code earliest} is a lower bound of the slot's deadlines (set when the slot gains its
 * first timeout, lowered by later ones, not raised by a cancel), so the worker may wake for a
 * slot whose earliest timeout was cancelled, but never sleeps past one that is due. {@code
 * occupied} has one bit per slot, set while it holds anything: the search for the next due tick
 * skips empty buckets 64 at a time, and an upper level is one word. All are written with opaque
 * stores and read with opaque loads by other threads: each value is one the worker wrote, but
 * different slots may be seen at slightly different moments.
 */
final class Wheel {

	private static final VarHandle INT_ELEMENT = MethodHandles.arrayElementVarHandle(int[].class);

	private static final VarHandle LONG_ELEMENT = MethodHandles.arrayElementVarHandle(long[].class);

	private static final VarHandle HAND;

	static {
		try {
			HAND = MethodHandles.lookup().findVarHandle(Wheel.class, "hand", long.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	/** Slots per upper level: one occupancy word each. */
	static final int SLOTS = 64;

	private static final int SLOT_BITS = 6;

	private final long tickNanos;

	private final int buckets;

	private final int bucketBits;

	/** Where the upper levels' slots begin in the arrays: a whole number of occupancy words. */
	private final int firstSlot;

	private final int upperLevels;

	private final WheelNode[] sentinels;

	private final int[] counts;

	private final long[] earliest;

	private final long[] occupied;

	/** Timeouts moved down out of each level (index 0 stays 0); worker writes, opaque. */
	private final long[] moves;

	/*
	 * Staging, worker only: the next turn's level-1 slot, sorted into one list per bucket ahead of
	 * its start. Allocated on first use, as many wheels never need a level above 0.
	 */

	/** One list per bucket of the next turn. */
	private WheelNode[] staged;

	private int[] stagedCounts;

	private long[] stagedEarliest;

	/** One bit per bucket that has a staged list. */
	private long[] stagedOccupied;

	/** The level-1 slot being staged, or -1. */
	private int stagingSlot = -1;

	/** The next tick to fire; worker writes, opaque. */
	private long hand;

	/** Timeouts linked anywhere in the wheel; worker only. */
	private long size;

	Wheel(int buckets, long tickNanos) {
		this.tickNanos = tickNanos;
		this.buckets = buckets;
		this.bucketBits = Integer.numberOfTrailingZeros(buckets);
		this.firstSlot = Math.max(buckets, SLOTS);
		long tickBits = 64 - Long.numberOfLeadingZeros(tickOf(Long.MAX_VALUE));
		this.upperLevels = (int) Math.max(0, (tickBits - this.bucketBits + SLOT_BITS - 1) / SLOT_BITS);
		int slots = this.firstSlot + this.upperLevels * SLOTS;
		this.sentinels = sentinels(slots);
		this.counts = new int[slots];
		this.earliest = new long[slots];
		this.occupied = new long[slots / SLOTS];
		this.moves = new long[1 + this.upperLevels];
	}

	int buckets() {
		return this.buckets;
	}

	/** The next tick to fire, from any thread. */
	long hand() {
		return (long) HAND.getOpaque(this);
	}

	/** Sets the hand of an empty wheel: where the worker starts. */
	void startAt(long tick) {
		setHand(tick);
	}

	/** The tick whose interval holds {@code deadline}: the one that ends at or first after it. */
	long tickOf(long deadline) {
		return Math.floorDiv(deadline - 1, this.tickNanos);
	}

	/** When {@code tick} ends, in nanos since the origin; {@link Long#MAX_VALUE} past the last. */
	long endOf(long tick) {
		return (tick >= Long.MAX_VALUE / this.tickNanos) ? Long.MAX_VALUE : (tick + 1) * this.tickNanos;
	}

	/** Links a timeout whose deadline falls in {@code tick}, at or after the hand. */
	void add(HashedWheelTimeout timeout, long tick) {
		link(indexOf(tick), timeout);
		this.size++;
	}

	/** Unlinks a timeout that is in the wheel ({@link WheelNode#isLinked()}). */
	void remove(HashedWheelTimeout timeout) {
		long tick = tickOf(timeout.deadline);
		int index = indexOf(tick);
		if (index == this.stagingSlot) {
			// Staged or not: once the staging is finished it is in its bucket's list, or it was
			// dropped (and counted) as cancelled on the way.
			stage(Integer.MAX_VALUE);
			if (!timeout.isLinked()) {
				return;
			}
			int bucket = (int) tick & (this.buckets - 1);
			unlink(timeout);
			setStagedCount(bucket, this.stagedCounts[bucket] - 1);
			if (this.counts[index] == 1) {
				this.stagingSlot = -1;
			}
		}
		else {
			unlink(timeout);
		}
		setCount(index, this.counts[index] - 1);
		this.size--;
	}

	/**
	 * Sorts up to {@code budget} timeouts of the next turn's level-1 slot into their buckets'
	 * staged lists, if that slot holds any; a cancelled one found on the way leaves the wheel.
	 * Worker only, between passes (or when a cancel or a move needs the staging finished).
	 */
	void stage(int budget) {
		int slot = this.stagingSlot;
		if (slot < 0) {
			slot = indexOf((this.hand | (this.buckets - 1)) + 1);
			if (slot < this.firstSlot || slot >= this.firstSlot + SLOTS || this.counts[slot] == 0) {
				// Empty, or the next turn starts a new level-2 slot: moved down at the boundary.
				return;
			}
			if (this.staged == null) {
				this.staged = sentinels(this.buckets);
				this.stagedCounts = new int[this.buckets];
				this.stagedEarliest = new long[this.buckets];
				this.stagedOccupied = new long[(this.buckets + SLOTS - 1) / SLOTS];
			}
			this.stagingSlot = slot;
		}
		WheelNode sentinel = this.sentinels[slot];
		for (int i = 0; i < budget; i++) {
			WheelNode node = sentinel.next;
			if (node == sentinel) {
				return;
			}
			HashedWheelTimeout timeout = (HashedWheelTimeout) node;
			unlink(timeout);
			if (!timeout.isPending()) {
				// Its cancellation, still queued, finds it unlinked.
				setCount(slot, this.counts[slot] - 1);
				this.size--;
				if (this.counts[slot] == 0) {
					this.stagingSlot = -1;
					return;
				}
				continue;
			}
			int bucket = (int) tickOf(timeout.deadline) & (this.buckets - 1);
			linkAfter(this.staged[bucket].prev, timeout);
			int count = this.stagedCounts[bucket];
			if (count == 0 || timeout.deadline < this.stagedEarliest[bucket]) {
				this.stagedEarliest[bucket] = timeout.deadline;
			}
			setStagedCount(bucket, count + 1);
		}
	}

	/** Moves the staged lists into the buckets: the hand is at the start of their turn. */
	private void spliceStaged(int slot) {
		stage(Integer.MAX_VALUE);
		long moved = 0;
		for (int bucket = nextStaged(0); bucket >= 0; bucket = nextStaged(bucket + 1)) {
			WheelNode from = this.staged[bucket];
			WheelNode into = this.sentinels[bucket];
			// The buckets of a turn the hand has just reached are empty.
			assert this.counts[bucket] == 0 : "bucket " + bucket + " holds " + this.counts[bucket];
			into.next = from.next;
			into.prev = from.prev;
			from.next.prev = into;
			from.prev.next = into;
			from.next = from;
			from.prev = from;
			int count = this.stagedCounts[bucket];
			LONG_ELEMENT.setOpaque(this.earliest, bucket, this.stagedEarliest[bucket]);
			INT_ELEMENT.setOpaque(this.counts, bucket, count);
			setBit(this.occupied, bucket, true);
			setStagedCount(bucket, 0);
			moved += count;
		}
		assert moved == this.counts[slot] : moved + " staged, " + this.counts[slot] + " counted";
		setCount(slot, 0);
		this.stagingSlot = -1;
		LONG_ELEMENT.setOpaque(this.moves, 1, this.moves[1] + moved);
	}

	private int nextStaged(int from) {
		return nextSet(this.stagedOccupied, from, this.buckets);
	}

	private void setStagedCount(int bucket, int count) {
		this.stagedCounts[bucket] = count;
		if (count <= 1) {
			setBit(this.stagedOccupied, bucket, count == 1);
		}
	}

	/**
	 * Where a timeout of {@code tick} belongs with the hand where it is: its bucket if the tick is
	 * in the hand's turn, otherwise the slot, at the level of the highest 6-bit group of turn
	 * numbers in which they differ, that holds the tick.
	 */
	private int indexOf(long tick) {
		long turns = (tick ^ this.hand) >>> this.bucketBits;
		if (turns == 0) {
			return (int) tick & (this.buckets - 1);
		}
		int level = (63 - Long.numberOfLeadingZeros(turns)) / SLOT_BITS;
		int slot = (int) (tick >>> (this.bucketBits + level * SLOT_BITS)) & (SLOTS - 1);
		return this.firstSlot + level * SLOTS + slot;
	}

	/**
	 * Moves the hand towards {@code clockTick}, event by event: each occupied bucket before it
	 * fires, and each occupied upper slot whose start it reaches moves down. Returns after the
	 * first tick that fired something, so that the worker can look at the clock and the stop
	 * between ticks. Empty ticks and empty slots cost nothing, however many the hand passes.
	 * {@code onDue} may run user code, which can reach the wheel only through the timer's queues.
	 * @return the tick that fired, or -1 once the hand is at {@code clockTick} with nothing fired
	 */
	long advance(long clockTick, Consumer<HashedWheelTimeout> onDue) {
		while (true) {
			long hand = this.hand;
			// Level 0 first: its ticks are all in the hand's turn, before any upper slot starts.
			int bucket = nextOccupied((int) hand & (this.buckets - 1), this.buckets);
			if (bucket >= 0) {
				long tick = (hand & -this.buckets) | bucket;
				if (tick >= clockTick) {
					setHand(clockTick);
					return -1;
				}
				setHand(tick);
				int fired = fire(bucket, tick, onDue);
				setHand(tick + 1);
				if (fired > 0) {
					return tick;
				}
				continue;
			}
			int slot = nextOccupiedUpperSlot();
			long start = (slot < 0) ? Long.MAX_VALUE : startOf(slot);
			if (start > clockTick) {
				setHand(clockTick);
				return -1;
			}
			setHand(start);
			moveDown(slot);
		}
	}

	/** Fires a bucket: everything pending in it is due, as it holds one tick only. */
	private int fire(int bucket, long tick, Consumer<HashedWheelTimeout> onDue) {
		WheelNode sentinel = this.sentinels[bucket];
		WheelNode node = sentinel.next;
		this.size -= this.counts[bucket];
		detach(bucket);
		long end = endOf(tick);
		int fired = 0;
		while (node != sentinel) {
			HashedWheelTimeout timeout = (HashedWheelTimeout) node;
			node = timeout.next;
			timeout.prev = WheelNode.DETACHED;
			timeout.next = null;
			if (!timeout.isPending()) {
				continue;
			}
			if (timeout.deadline > end) {
				// Cannot happen while placement is right; if it did, re-filing keeps it from firing early.
				assert false : timeout.deadline + " in the bucket of tick " + tick;
				add(timeout, tickOf(timeout.deadline));
				continue;
			}
			fired++;
			onDue.accept(timeout);
		}
		return fired;
	}

	/** Re-files every pending timeout of an upper slot the hand has reached, by its own deadline. */
	private void moveDown(int slot) {
		if (slot == this.stagingSlot) {
			spliceStaged(slot);
			return;
		}
		WheelNode sentinel = this.sentinels[slot];
		WheelNode node = sentinel.next;
		this.size -= this.counts[slot];
		detach(slot);
		long moved = 0;
		while (node != sentinel) {
			HashedWheelTimeout timeout = (HashedWheelTimeout) node;
			node = timeout.next;
			if (timeout.isPending()) {
				add(timeout, tickOf(timeout.deadline));
				moved++;
			}
			else {
				// Its cancellation, still queued, finds it unlinked.
				timeout.prev = WheelNode.DETACHED;
				timeout.next = null;
			}
		}
		int level = 1 + (slot - this.firstSlot) / SLOTS;
		LONG_ELEMENT.setOpaque(this.moves, level, this.moves[level] + moved);
	}

	/** Empties a slot at once; the caller walks the detached chain, which ends at the sentinel. */
	private void detach(int slot) {
		WheelNode sentinel = this.sentinels[slot];
		sentinel.next = sentinel;
		sentinel.prev = sentinel;
		setCount(slot, 0);
	}

	/**
	 * The lowest occupied upper slot: it starts before any other (see the class comment); or -1.
	 * Opaque loads, for readers of {@link #nextDueTick()} too.
	 */
	private int nextOccupiedUpperSlot() {
		int firstWord = this.firstSlot / SLOTS;
		for (int level = 0; level < this.upperLevels; level++) {
			long bits = (long) LONG_ELEMENT.getOpaque(this.occupied, firstWord + level);
			if (bits != 0) {
				return this.firstSlot + level * SLOTS + Long.numberOfTrailingZeros(bits);
			}
		}
		return -1;
	}

	/** The first tick of an upper slot, in the hand's context: later than the hand. */
	private long startOf(int slot) {
		int level = (slot - this.firstSlot) / SLOTS;
		int shift = this.bucketBits + level * SLOT_BITS;
		long context = (shift + SLOT_BITS >= 64) ? 0 : this.hand & (-1L << (shift + SLOT_BITS));
		return context | ((long) (slot & (SLOTS - 1)) << shift);
	}

	/**
	 * Returns the earliest tick that may have a timeout due, or {@link Long#MAX_VALUE} when the
	 * wheel is empty. May answer early (see the class comment), never late. Any thread: opaque
	 * loads only, and absolute deadlines, so a reader that sees the hand and the slots a moment
	 * apart is wrong by that moment at most. Costs a look at level 0's occupancy words from the hand
	 * on, then one word per upper level.
	 */
	long nextDueTick() {
		int hand = (int) hand() & (this.buckets - 1);
		int slot = nextOccupied(hand, this.buckets);
		if (slot < 0) {
			slot = nextOccupiedUpperSlot();
		}
		return (slot < 0) ? Long.MAX_VALUE : tickOf((long) LONG_ELEMENT.getOpaque(this.earliest, slot));
	}

	/**
	 * Returns up to {@code limit} pending timeouts that fall due first, soonest first. Worker only:
	 * it walks the links. Slots are visited in the order they fall due (level 0 from the hand, then
	 * each upper level from its lowest slot), so the walk stops at the first slot whose earliest
	 * deadline is later than the latest of a full answer; its worst case is every pending timeout.
	 */
	List<Timeout> soonest(int limit) {
		if (this.size == 0 || limit == 0) {
			return List.of();
		}
		Comparator<HashedWheelTimeout> byDeadline = Comparator.comparingLong((timeout) -> timeout.deadline);
		PriorityQueue<HashedWheelTimeout> latestFirst = new PriorityQueue<>(Math.min(limit, 1024), byDeadline.reversed());
		int from = (int) this.hand & (this.buckets - 1);
		for (int slot = nextOccupied(from, this.sentinels.length); slot >= 0;
				slot = nextOccupied(slot + 1, this.sentinels.length)) {
			if (latestFirst.size() == limit && this.earliest[slot] >= latestFirst.peek().deadline) {
				break;
			}
			if (slot == this.stagingSlot) {
				stage(Integer.MAX_VALUE);
				for (int bucket = nextStaged(0); bucket >= 0; bucket = nextStaged(bucket + 1)) {
					keepSoonest(this.staged[bucket], latestFirst, limit);
				}
			}
			keepSoonest(this.sentinels[slot], latestFirst, limit);
		}
		List<HashedWheelTimeout> soonestFirst = new ArrayList<>(latestFirst);
		soonestFirst.sort(byDeadline);
		return Collections.unmodifiableList(soonestFirst);
	}

	private static void keepSoonest(WheelNode sentinel, PriorityQueue<HashedWheelTimeout> latestFirst, int limit) {
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

	/** Unlinks every timeout and hands it to {@code action}; used when the timer stops. */
	void removeAll(Consumer<HashedWheelTimeout> action) {
		if (this.stagingSlot >= 0) {
			// Back into their slot first, so that one walk below finds every timeout.
			stage(Integer.MAX_VALUE);
			WheelNode slot = this.sentinels[this.stagingSlot];
			for (int bucket = nextStaged(0); bucket >= 0; bucket = nextStaged(bucket + 1)) {
				WheelNode list = this.staged[bucket];
				while (list.next != list) {
					WheelNode node = list.next;
					unlink(node);
					linkAfter(slot.prev, node);
				}
				setStagedCount(bucket, 0);
			}
			this.stagingSlot = -1;
		}
		for (int slot = nextOccupied(0, this.sentinels.length); slot >= 0;
				slot = nextOccupied(slot + 1, this.sentinels.length)) {
			WheelNode sentinel = this.sentinels[slot];
			WheelNode node = sentinel.next;
			detach(slot);
			while (node != sentinel) {
				HashedWheelTimeout timeout = (HashedWheelTimeout) node;
				node = timeout.next;
				timeout.prev = WheelNode.DETACHED;
				timeout.next = null;
				action.accept(timeout);
			}
		}
		this.size = 0;
	}

	/** Timeouts moved down between levels so far, from any thread: one opaque load per level. */
	long moves() {
		long moves = 0;
		for (int level = 1; level <= this.upperLevels; level++) {
			moves += (long) LONG_ELEMENT.getOpaque(this.moves, level);
		}
		return moves;
	}

	/**
	 * Reads the levels, from any thread.
	 * @param now the clock's reading, from which the slots' due times are counted
	 */
	List<WheelSnapshot.Level> levels(long now) {
		long hand = hand();
		List<WheelSnapshot.Level> levels = new ArrayList<>(1 + this.upperLevels);
		levels.add(level(0, 0, this.buckets, (int) hand & (this.buckets - 1), this.tickNanos, now));
		for (int level = 1; level <= this.upperLevels; level++) {
			int shift = this.bucketBits + (level - 1) * SLOT_BITS;
			long span = (shift >= 63 || this.tickNanos > (Long.MAX_VALUE >>> shift)) ? Long.MAX_VALUE
					: this.tickNanos << shift;
			levels.add(level(level, this.firstSlot + (level - 1) * SLOTS, SLOTS, (int) (hand >>> shift) & (SLOTS - 1),
					span, now));
		}
		return levels;
	}

	private WheelSnapshot.Level level(int level, int first, int slots, int hand, long spanNanos, long now) {
		List<WheelSnapshot.Slot> occupied = new ArrayList<>();
		long timeouts = 0;
		long nextDue = Long.MAX_VALUE;
		for (int slot = nextOccupied(first, first + slots); slot >= 0; slot = nextOccupied(slot + 1, first + slots)) {
			int count = (int) INT_ELEMENT.getOpaque(this.counts, slot);
			if (count > 0) {
				long due = endOf(tickOf((long) LONG_ELEMENT.getOpaque(this.earliest, slot)));
				occupied.add(new WheelSnapshot.Slot(slot - first, count, Duration.ofNanos(due - now)));
				timeouts += count;
				nextDue = Math.min(nextDue, due);
			}
		}
		return new WheelSnapshot.Level(level, Duration.ofNanos(spanNanos), slots, hand, timeouts,
				(nextDue == Long.MAX_VALUE) ? null : Duration.ofNanos(nextDue - now),
				(long) LONG_ELEMENT.getOpaque(this.moves, level), occupied);
	}

	private static WheelNode[] sentinels(int count) {
		WheelNode[] sentinels = new WheelNode[count];
		for (int i = 0; i < count; i++) {
			WheelNode sentinel = new WheelNode();
			sentinel.next = sentinel;
			sentinel.prev = sentinel;
			sentinels[i] = sentinel;
		}
		return sentinels;
	}

	private void setHand(long tick) {
		HAND.setOpaque(this, tick);
	}

	private void link(int slot, HashedWheelTimeout timeout) {
		linkAfter(this.sentinels[slot].prev, timeout);
		int count = this.counts[slot];
		if (count == 0 || timeout.deadline < this.earliest[slot]) {
			LONG_ELEMENT.setOpaque(this.earliest, slot, timeout.deadline);
		}
		setCount(slot, count + 1);
	}

	/** Publishes a slot's count, and its occupied bit when the count leaves or reaches zero. */
	private void setCount(int slot, int count) {
		INT_ELEMENT.setOpaque(this.counts, slot, count);
		if (count <= 1) {
			setBit(this.occupied, slot, count == 1);
		}
	}

	/** Sets or clears one bit of an occupancy bitmap; the worker is each bitmap's only writer. */
	private static void setBit(long[] words, int index, boolean on) {
		int word = index / SLOTS;
		long bit = 1L << index;
		LONG_ELEMENT.setOpaque(words, word, on ? (words[word] | bit) : (words[word] & ~bit));
	}

	/**
	 * Returns the first occupied slot from {@code from} up to, not including, {@code end}, or -1.
	 * Opaque loads: the worker and other readers alike (for the worker they cost plain loads).
	 */
	private int nextOccupied(int from, int end) {
		return nextSet(this.occupied, from, end);
	}

	/** The first set bit of a bitmap from {@code from} up to, not including, {@code end}, or -1. */
	private static int nextSet(long[] words, int from, int end) {
		if (from >= end) {
			return -1;
		}
		int word = from / SLOTS;
		long bits = (long) LONG_ELEMENT.getOpaque(words, word) & (-1L << from);
		while (bits == 0) {
			if (++word * SLOTS >= end) {
				return -1;
			}
			bits = (long) LONG_ELEMENT.getOpaque(words, word);
		}
		int index = word * SLOTS + Long.numberOfTrailingZeros(bits);
		return (index < end) ? index : -1;
	}

	/** Links {@code node} after {@code last}, the last node of a ring (or its sentinel). */
	private static void linkAfter(WheelNode last, WheelNode node) {
		WheelNode sentinel = last.next;
		node.prev = last;
		node.next = sentinel;
		last.next = node;
		sentinel.prev = node;
	}

	/** Never {@code null}: that would tell a cancelling thread the worker had not taken the node. */
	private static void unlink(WheelNode node) {
		node.prev.next = node.next;
		node.next.prev = node.prev;
		node.prev = WheelNode.DETACHED;
		node.next = null;
	}

}
