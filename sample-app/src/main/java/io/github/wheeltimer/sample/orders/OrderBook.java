package io.github.wheeltimer.sample.orders;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import org.springframework.stereotype.Component;

/**
 * The orders, in memory. Every change goes through {@link ConcurrentMap#compute}, so a payment
 * and the delayed cancellation racing for the same order are settled one after the other: the
 * second sees what the first did.
 */
@Component
public class OrderBook {

	private final AtomicLong lastNumber = new AtomicLong(1000);

	private final ConcurrentMap<String, Order> orders = new ConcurrentHashMap<>();

	Order add(Function<String, Order> orderWithId) {
		Order order = orderWithId.apply(Long.toString(this.lastNumber.incrementAndGet()));
		this.orders.put(order.id(), order);
		return order;
	}

	void remove(String id) {
		this.orders.remove(id);
	}

	/**
	 * Returns the order with the given id, if there is one.
	 * @param id the order's id
	 * @return the order
	 */
	public Optional<Order> find(String id) {
		return Optional.ofNullable(this.orders.get(id));
	}

	/**
	 * Returns the most recent orders, newest first.
	 * @param limit how many at most
	 * @return the orders
	 */
	public List<Order> newest(int limit) {
		return this.orders.values()
			.stream()
			.sorted(Comparator.comparingLong((Order order) -> Long.parseLong(order.id())).reversed())
			.limit(limit)
			.toList();
	}

	/**
	 * Changes an order atomically.
	 * @return the order before and after the change
	 * @throws OrderNotFoundException if there is no such order
	 */
	Change update(String id, UnaryOperator<Order> change) {
		Order[] before = new Order[1];
		Order after = this.orders.computeIfPresent(id, (key, order) -> {
			before[0] = order;
			return change.apply(order);
		});
		if (after == null) {
			throw new OrderNotFoundException(id);
		}
		return new Change(before[0], after);
	}

	record Change(Order before, Order after) {

		boolean changed() {
			return this.before != this.after;
		}

	}

}
