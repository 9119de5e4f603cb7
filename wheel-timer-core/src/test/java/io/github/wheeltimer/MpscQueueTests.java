package io.github.wheeltimer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The two hand-off queues, hammered by several producers while the consumer drains: every
 * element arrives exactly once, and each producer's elements in the order it offered them.
 */
class MpscQueueTests {

	private static final int PRODUCERS = 4;

	private static final int PER_PRODUCER = 200_000;

	@Test
	void intrusiveQueueDeliversEveryNodeOnceInProducerOrder() throws Exception {
		IntrusiveMpscQueue queue = new IntrusiveMpscQueue();
		List<Thread> producers = startProducers((producer, sequence) -> queue.offer(new Item(producer, sequence)));
		receiveAllInProducerOrder(() -> (Item) queue.poll());
		join(producers);
		assertThat(queue.poll()).isNull();
		assertThat(queue.isEmpty()).isTrue();
	}

	@Test
	void chunkedQueueDeliversEveryElementOnceInProducerOrderAndCountsThem() throws Exception {
		ChunkedMpscQueue<Item> queue = new ChunkedMpscQueue<>();
		List<Thread> producers = startProducers((producer, sequence) -> queue.offer(new Item(producer, sequence)));
		receiveAllInProducerOrder(queue::poll);
		join(producers);
		assertThat(queue.poll()).isNull();
		assertThat(queue.isEmpty()).isTrue();
		assertThat(queue.offeredCount()).isEqualTo((long) PRODUCERS * PER_PRODUCER);
	}

	@Test
	void intrusiveQueueCanBeDrainedAndRefilled() {
		IntrusiveMpscQueue queue = new IntrusiveMpscQueue();
		for (int round = 0; round < 3; round++) {
			assertThat(queue.isEmpty()).isTrue();
			Item first = new Item(0, 0);
			Item second = new Item(0, 1);
			queue.offer(first);
			assertThat(queue.isEmpty()).isFalse();
			queue.offer(second);
			assertThat(queue.poll()).isSameAs(first);
			first.next = null;
			assertThat(queue.poll()).isSameAs(second);
			second.next = null;
			assertThat(queue.poll()).isNull();
		}
	}

	private static void receiveAllInProducerOrder(Supplier<Item> poll) {
		int[] next = new int[PRODUCERS];
		int received = 0;
		while (received < PRODUCERS * PER_PRODUCER) {
			Item item = poll.get();
			if (item == null) {
				Thread.onSpinWait();
				continue;
			}
			assertThat(item.sequence).isEqualTo(next[item.producer]);
			next[item.producer]++;
			received++;
		}
	}

	private interface Producer {

		void produce(int producer, int sequence);

	}

	private static List<Thread> startProducers(Producer producer) {
		CountDownLatch go = new CountDownLatch(1);
		List<Thread> threads = new ArrayList<>();
		for (int p = 0; p < PRODUCERS; p++) {
			int id = p;
			Thread thread = new Thread(() -> {
				Latches.awaitQuietly(go);
				for (int i = 0; i < PER_PRODUCER; i++) {
					producer.produce(id, i);
				}
			});
			thread.start();
			threads.add(thread);
		}
		go.countDown();
		return threads;
	}

	private static void join(List<Thread> threads) throws InterruptedException {
		for (Thread thread : threads) {
			thread.join();
		}
	}

	private static final class Item extends WheelNode {

		final int producer;

		final int sequence;

		Item(int producer, int sequence) {
			this.producer = producer;
			this.sequence = sequence;
		}

	}

}
