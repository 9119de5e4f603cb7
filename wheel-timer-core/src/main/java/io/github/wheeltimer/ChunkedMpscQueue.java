package io.github.wheeltimer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An unbounded many-producer, one-consumer queue of references in linked array chunks: the queue
 * that carries cancelled timeouts to the worker.
 *
 * <p>A producer claims a slot with one atomic add on {@code producerIndex} (which never retries
 * under contention), finds or appends the chunk that holds the slot, and writes the element with
 * release semantics. So {@link #offeredCount()} is exact the moment {@code offer} returns, which is
 * what makes the timer's "cancelled" counter exact, and a cancel allocates nothing but one new
 * chunk every {@value #CHUNK_SIZE} cancels.
 *
 * <p>Producers start from {@code producerChunk}, a hint read <em>before</em> claiming the index:
 * the hint was written by a producer whose index was claimed earlier, so its chunk never lies
 * beyond ours, and walking forward always finds our slot. The consumer owns {@code consumerChunk}
 * and {@code consumerIndex}; it reads a slot with acquire semantics and clears it, so consumed
 * elements are not kept reachable.
 */
final class ChunkedMpscQueue<E> {

	static final int CHUNK_SIZE = 1024;

	private static final VarHandle PRODUCER_INDEX;

	private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Object[].class);

	static {
		try {
			PRODUCER_INDEX = MethodHandles.lookup().findVarHandle(ChunkedMpscQueue.class, "producerIndex", long.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private volatile long producerIndex;

	private volatile Chunk producerChunk;

	private Chunk consumerChunk;

	private long consumerIndex;

	ChunkedMpscQueue() {
		Chunk first = new Chunk(0);
		this.producerChunk = first;
		this.consumerChunk = first;
	}

	void offer(E element) {
		Chunk chunk = this.producerChunk;
		long index = (long) PRODUCER_INDEX.getAndAdd(this, 1L);
		while (index >= chunk.base + CHUNK_SIZE) {
			chunk = chunk.nextOrAppend();
		}
		SLOT.setRelease(chunk.slots, (int) (index - chunk.base), element);
		if (chunk.base > this.producerChunk.base) {
			this.producerChunk = chunk;
		}
	}

	/** How many elements were ever offered; exact once the offers have returned. */
	long offeredCount() {
		return this.producerIndex;
	}

	/** Consumer only. */
	boolean isEmpty() {
		return this.consumerIndex == this.producerIndex;
	}

	/**
	 * Takes the oldest element, waiting out an offer in progress; {@code null} when empty.
	 * Consumer only.
	 */
	@SuppressWarnings("unchecked")
	E poll() {
		long index = this.consumerIndex;
		if (index == this.producerIndex) {
			return null;
		}
		Chunk chunk = this.consumerChunk;
		if (index == chunk.base + CHUNK_SIZE) {
			Chunk next;
			while ((next = chunk.next) == null) {
				Thread.onSpinWait();
			}
			chunk = next;
			this.consumerChunk = chunk;
		}
		int offset = (int) (index - chunk.base);
		Object element;
		while ((element = SLOT.getAcquire(chunk.slots, offset)) == null) {
			Thread.onSpinWait();
		}
		chunk.slots[offset] = null;
		this.consumerIndex = index + 1;
		return (E) element;
	}

	private static final class Chunk {

		private static final VarHandle NEXT;

		static {
			try {
				NEXT = MethodHandles.lookup().findVarHandle(Chunk.class, "next", Chunk.class);
			}
			catch (ReflectiveOperationException ex) {
				throw new ExceptionInInitializerError(ex);
			}
		}

		final long base;

		final Object[] slots = new Object[CHUNK_SIZE];

		volatile Chunk next;

		Chunk(long base) {
			this.base = base;
		}

		Chunk nextOrAppend() {
			Chunk next = this.next;
			if (next != null) {
				return next;
			}
			Chunk appended = new Chunk(this.base + CHUNK_SIZE);
			Chunk witness = (Chunk) NEXT.compareAndExchange(this, null, appended);
			return (witness != null) ? witness : appended;
		}

	}

}
