package io.github.wheeltimer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A link in the wheel's intrusive lists: the base of {@link HashedWheelTimeout}, and on its own
 * the sentinel of each bucket and the stub of the incoming queue.
 *
 * <p>Ownership of the two links moves with the node. While a timeout waits in the
 * {@link IntrusiveMpscQueue}, {@code next} is the queue's link: written once, with release
 * semantics, by the producer that enqueues after it, and read with acquire semantics by the
 * worker ({@link #NEXT}). Once the worker has taken the node off the queue, both links belong to
 * the worker alone (a bucket's doubly linked ring) and are plain fields: no fences on the
 * worker's hot path. {@code prev} is non-null exactly while the node sits in a bucket.
 */
class WheelNode {

	static final VarHandle NEXT;

	static {
		try {
			NEXT = MethodHandles.lookup().findVarHandle(WheelNode.class, "next", WheelNode.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	WheelNode next;

	WheelNode prev;

}
