package io.github.wheeltimer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The queue that carries new timeouts from the scheduling threads to the worker: many
 * producers, one consumer, no locks, and no allocation, because the timeout itself is the queue
 * node (Dmitry Vyukov's intrusive MPSC queue, with a stub node that is re-enqueued when the
 * queue runs dry).
 *
 * <p>A producer swaps itself in as the tail (one atomic exchange, which never retries under
 * contention), then links the old tail to itself. Between those two steps the queue is
 * "in progress": the consumer sees a tail it cannot reach yet and must wait a moment; that window
 * is two instructions long.
 *
 * <p>Memory ordering: the exchange on {@code tail} is a full fence, and the link is a release
 * write read with acquire by the consumer, so the consumer sees every field the producer wrote into the node
 * before enqueueing it. {@code head} is the consumer's alone.
 */
final class IntrusiveMpscQueue {

	private static final VarHandle TAIL;

	static {
		try {
			TAIL = MethodHandles.lookup().findVarHandle(IntrusiveMpscQueue.class, "tail", WheelNode.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final WheelNode stub = new WheelNode();

	private volatile WheelNode tail = this.stub;

	/** Consumer-owned: the next node to hand out, or the stub. */
	private WheelNode head = this.stub;

	/**
	 * Enqueues {@code node}; called by any thread. The node's {@code next} must be {@code null}.
	 */
	void offer(WheelNode node) {
		WheelNode previous = (WheelNode) TAIL.getAndSet(this, node);
		WheelNode.NEXT.setRelease(previous, node);
	}

	/**
	 * Returns whether the queue holds nothing, including nodes whose enqueue is still in progress.
	 * Called by the consumer.
	 */
	boolean isEmpty() {
		return this.head == this.stub && this.tail == this.stub;
	}

	/**
	 * Takes the oldest node, or returns {@code null} when the queue is empty or its oldest node is
	 * still being linked in; {@link #isEmpty()} tells the two apart. Called by the consumer.
	 */
	WheelNode poll() {
		WheelNode first = this.head;
		WheelNode next = nextOf(first);
		if (first == this.stub) {
			if (next == null) {
				return null;
			}
			this.head = next;
			first = next;
			next = nextOf(next);
		}
		if (next != null) {
			this.head = next;
			return first;
		}
		if (first != this.tail) {
			return null;
		}
		// first is the last node: put the stub behind it so that first can leave the queue.
		this.stub.next = null;
		offer(this.stub);
		next = nextOf(first);
		if (next != null) {
			this.head = next;
			return first;
		}
		return null;
	}

	private static WheelNode nextOf(WheelNode node) {
		return (WheelNode) WheelNode.NEXT.getAcquire(node);
	}

	/**
	 * Takes the oldest node, waiting out an enqueue in progress; {@code null} only when empty.
	 * Called by the consumer.
	 */
	WheelNode pollOrWait() {
		WheelNode node;
		while ((node = poll()) == null) {
			if (isEmpty()) {
				return null;
			}
			Thread.onSpinWait();
		}
		return node;
	}

}
