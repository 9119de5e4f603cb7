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
 * is two instructions long. The exchange also tells the producer whether the queue was empty
 * (the old tail is the stub), which the worker uses to sleep through a stream of far timeouts.
 *
 * <p>The consumer takes in bounded runs: {@link #newest()} marks where a run ends and
 * {@link #pollUpTo} stops there, so that the worker never chases producers along the tail.
 *
 * <p>Memory ordering: the exchange on {@code tail} is a full fence, and the link is a release
 * write read with acquire by the consumer, so the consumer sees every field the producer wrote into the node
 * before enqueueing it. {@code head} is the consumer's alone, and lives two cache lines away from
 * {@code tail} (see the padding classes below): the worker writes it on every take, and sharing a
 * line with the producers' exchange made both sides pay for each other's writes.
 */
final class IntrusiveMpscQueue extends IntrusiveMpscQueueConsumerPadding {

	private static final VarHandle TAIL;

	static {
		try {
			TAIL = MethodHandles.lookup().findVarHandle(IntrusiveMpscQueueProducerSide.class, "tail", WheelNode.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	IntrusiveMpscQueue() {
		super(new WheelNode());
		this.head = this.stub;
	}

	/**
	 * Enqueues {@code node}; called by any thread. The node's {@code next} must be {@code null}.
	 * @return whether the queue held nothing the consumer had not taken: this is its first node
	 */
	boolean offer(WheelNode node) {
		WheelNode previous = (WheelNode) TAIL.getAndSet(this, node);
		WheelNode.NEXT.setRelease(previous, node);
		return previous == this.stub;
	}

	/**
	 * Returns whether the queue holds nothing, including nodes whose enqueue is still in progress.
	 * Called by the consumer.
	 */
	boolean isEmpty() {
		return this.head == this.stub && this.tail == this.stub;
	}

	/**
	 * Returns the newest node enqueued so far, to end a run of {@link #pollUpTo} at. Called by the
	 * consumer.
	 */
	WheelNode newest() {
		return this.tail;
	}

	/**
	 * Takes the oldest node unless the run that ends at {@code newest} (from {@link #newest()}) is
	 * over: the caller stops once this returns {@code newest} itself, or {@code null}. Waits out an
	 * enqueue in progress. Called by the consumer.
	 */
	WheelNode pollUpTo(WheelNode newest) {
		if (newest == this.stub && this.head == this.stub) {
			// The queue was empty, or its older nodes have been taken: the stub is the run's end.
			return null;
		}
		return pollOrWait();
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

/*
 * The queue's fields, each side on its own cache lines. HotSpot lays out a superclass's fields
 * before its subclass's, so each class of this chain puts its fields after the one before it:
 * 128 bytes of padding (two lines, as CPUs fetch lines in adjacent pairs) around the producers'
 * tail and around the consumer's head. The int fills the gap after the object header, where a
 * later field could otherwise be placed.
 */

abstract class IntrusiveMpscQueueProducerPadding {

	int p00;

	long p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15, p16;

}

abstract class IntrusiveMpscQueueProducerSide extends IntrusiveMpscQueueProducerPadding {

	/** Read by producers too, never written: it may share the tail's line. */
	final WheelNode stub;

	volatile WheelNode tail;

	IntrusiveMpscQueueProducerSide(WheelNode stub) {
		this.stub = stub;
		this.tail = stub;
	}

}

abstract class IntrusiveMpscQueueMiddlePadding extends IntrusiveMpscQueueProducerSide {

	long p17, p18, p19, p20, p21, p22, p23, p24, p25, p26, p27, p28, p29, p30, p31, p32;

	IntrusiveMpscQueueMiddlePadding(WheelNode stub) {
		super(stub);
	}

}

abstract class IntrusiveMpscQueueConsumerSide extends IntrusiveMpscQueueMiddlePadding {

	/** Consumer-owned: the next node to hand out, or the stub. */
	WheelNode head;

	IntrusiveMpscQueueConsumerSide(WheelNode stub) {
		super(stub);
	}

}

abstract class IntrusiveMpscQueueConsumerPadding extends IntrusiveMpscQueueConsumerSide {

	long p33, p34, p35, p36, p37, p38, p39, p40, p41, p42, p43, p44, p45, p46, p47, p48;

	IntrusiveMpscQueueConsumerPadding(WheelNode stub) {
		super(stub);
	}

}
