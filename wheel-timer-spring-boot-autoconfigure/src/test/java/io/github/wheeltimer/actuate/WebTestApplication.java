package io.github.wheeltimer.actuate;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.wheeltimer.annotation.DelayedExecution;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * A web application with Actuator and two kinds of delayed call, as a user would write it.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class WebTestApplication {

	@Bean
	Orders orders() {
		return new Orders();
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

}
