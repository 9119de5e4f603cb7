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
 * worker's hot path.
 *
 * <p>{@code prev} also tells a cancelling thread whether the worker has taken the timeout: it is
 * {@code null} until then, and never again afterwards ({@link #DETACHED} or {@link #NOTIFIED}
 * whenever the node is in no bucket). The worker writes it as it takes a node, then, once per
 * batch, fences and reads the nodes' states; a cancel sets the state, then reads {@code prev}
 * ({@link #PREV}). One of the two sees the other's write: the cancel that saw {@code null} leaves
 * the timeout to the worker's take, which tells its task; one that saw the mark queues it as a
 * cancellation, which the worker skips if its take told the task already ({@link #NOTIFIED}).
 */
class WheelNode {

	static final VarHandle NEXT;

	static final VarHandle PREV;

	static {
		try {
			NEXT = MethodHandles.lookup().findVarHandle(WheelNode.class, "next", WheelNode.class);
			PREV = MethodHandles.lookup().findVarHandle(WheelNode.class, "prev", WheelNode.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	/** The {@code prev} of a taken node that is in no bucket (fired, moved, overdue, or unlinked). */
	static final WheelNode DETACHED = new WheelNode();

	/** The {@code prev} of a node whose task the worker told it was cancelled: it is told once. */
	static final WheelNode NOTIFIED = new WheelNode();

	WheelNode next;

	WheelNode prev;

	/** Worker only: whether the node is linked in a bucket (or a staged list). */
	final boolean isLinked() {
		WheelNode prev = this.prev;
		return prev != null && prev != DETACHED && prev != NOTIFIED;
	}

}
