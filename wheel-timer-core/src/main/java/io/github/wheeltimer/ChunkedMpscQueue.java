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
 * elements are not kept reachable. It takes in bounded runs ({@link #pollBefore}, up to an
 * {@link #offeredCount()} it read), so that it never chases producers along the tail, and never
 * reads their index while it takes. The two sides' fields sit on cache lines of their own (see
 * the padding classes below), as the queue's for new timeouts do.
 */
final class ChunkedMpscQueue<E> extends ChunkedMpscQueueConsumerPadding {

	static final int CHUNK_SIZE = 1024;

	private static final VarHandle PRODUCER_INDEX;

	private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Object[].class);

	static {
		try {
			PRODUCER_INDEX = MethodHandles.lookup()
				.findVarHandle(ChunkedMpscQueueProducerSide.class, "producerIndex", long.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	ChunkedMpscQueue() {
		super(new Chunk(0));
	}

	void offer(E element) {
		Chunk hint = this.producerChunk;
		long index = (long) PRODUCER_INDEX.getAndAdd(this, 1L);
		Chunk chunk = hint;
		while (index >= chunk.base + CHUNK_SIZE) {
			chunk = chunk.nextOrAppend();
		}
		SLOT.setRelease(chunk.slots, (int) (index - chunk.base), element);
		if (chunk != hint) {
			// A racing producer may have moved the hint further; moving it back is harmless, as
			// it still holds an index claimed before any later producer's.
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

	/** Whether fewer than {@code end} elements have been taken. Consumer only. */
	boolean hasBefore(long end) {
		return this.consumerIndex < end;
	}

	/**
	 * Takes the oldest element, waiting out an offer in progress; {@code null} when empty.
	 * Consumer only.
	 */
	E poll() {
		return pollBefore(this.producerIndex);
	}

	/**
	 * Takes the oldest element if fewer than {@code end} have been taken, waiting out an offer in
	 * progress; {@code null} once {@code end} have been. {@code end} is an {@link #offeredCount()}
	 * read before. Consumer only.
	 */
	@SuppressWarnings("unchecked")
	E pollBefore(long end) {
		long index = this.consumerIndex;
		if (index >= end) {
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

	static final class Chunk {

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
			Chunk witness = (Chunk) NEXT.compareAndExchange(this, (Chunk) null, appended);
			return (witness != null) ? witness : appended;
		}

	}

}

/*
 * The queue's fields, each side on its own cache lines: see IntrusiveMpscQueue's padding classes.
 */

abstract class ChunkedMpscQueueProducerPadding {

	int p00;

	long p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15, p16;

}

abstract class ChunkedMpscQueueProducerSide extends ChunkedMpscQueueProducerPadding {

	volatile long producerIndex;

	volatile ChunkedMpscQueue.Chunk producerChunk;

	ChunkedMpscQueueProducerSide(ChunkedMpscQueue.Chunk first) {
		this.producerChunk = first;
	}

}

abstract class ChunkedMpscQueueMiddlePadding extends ChunkedMpscQueueProducerSide {

	long p17, p18, p19, p20, p21, p22, p23, p24, p25, p26, p27, p28, p29, p30, p31, p32;

	ChunkedMpscQueueMiddlePadding(ChunkedMpscQueue.Chunk first) {
		super(first);
	}

}

abstract class ChunkedMpscQueueConsumerSide extends ChunkedMpscQueueMiddlePadding {

	ChunkedMpscQueue.Chunk consumerChunk;

	long consumerIndex;

	ChunkedMpscQueueConsumerSide(ChunkedMpscQueue.Chunk first) {
		super(first);
		this.consumerChunk = first;
	}

}

abstract class ChunkedMpscQueueConsumerPadding extends ChunkedMpscQueueConsumerSide {

	long p33, p34, p35, p36, p37, p38, p39, p40, p41, p42, p43, p44, p45, p46, p47, p48;

	ChunkedMpscQueueConsumerPadding(ChunkedMpscQueue.Chunk first) {
		super(first);
	}

}
