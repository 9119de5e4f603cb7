package io.github.wheeltimer.inmemory;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.wheeltimer.annotation.DelayedExecution;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * A web application with Actuator and in-memory delayed calls only, as a user of the starter
 * without a database writes it: a {@code void} method, a method returning a future on the named
 * timer {@code retries}, and a method whose 30-minute delay keeps its calls pending.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class InMemoryTestApplication {

	@Bean
	Orders orders() {
		return new Orders();
	}

	@Bean
	Shipping shipping() {
		return new Shipping();
	}

	static class Orders {

		private final AtomicInteger pings = new AtomicInteger();

		@DelayedExecution(delayString = "30m")
		public CompletableFuture<String> cancelIfUnpaid(String orderId) {
			return CompletableFuture.completedFuture(orderId);
		}

		@DelayedExecution(delay = 50)
		public void ping() {
			this.pings.incrementAndGet();
		}

		public int pings() {
			return this.pings.get();
		}

	}

	static class Shipping {

		@DelayedExecution(delay = 20, timer = "retries")
		public CompletableFuture<String> retry(String orderId) {
			return CompletableFuture.completedFuture("sent " + orderId);
		}

	}

}
