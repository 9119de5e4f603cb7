package io.github.wheeltimer.test.docs;

import java.util.concurrent.TimeUnit;

import io.github.wheeltimer.annotation.DelayedExecution;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Service;

// docs/annotation.md, "`@DelayedExecution` reference" (calls from inside the bean), from here to the end: DocsExamplesTests keeps them the same.
// example: start
@Service
public class OrderService {

	private final Orders orders;

	private final ObjectProvider<OrderService> self;   // the bean's proxy, looked up on use

	public OrderService(Orders orders, ObjectProvider<OrderService> self) {
		this.orders = orders;
		this.self = self;
	}

	public void create(String orderId) {
		orders.save(orderId);
		this.self.getObject().cancelIfUnpaid(orderId);   // delayed: through the proxy
	}

	@DelayedExecution(delay = 30, timeUnit = TimeUnit.MINUTES, durable = true, key = "#orderId")
	public void cancelIfUnpaid(String orderId) {
		orders.cancelUnlessPaid(orderId);
	}
}
// example: end
