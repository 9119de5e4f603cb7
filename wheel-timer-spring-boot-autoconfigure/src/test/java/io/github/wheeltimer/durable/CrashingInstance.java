package io.github.wheeltimer.durable;

import java.time.Instant;

import io.github.wheeltimer.durable.DurableApp.Orders;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * The main class of the child JVM that {@link DurableCallsCrashTests} kills: an instance of
 * {@link DurableApp} on the database given as the first argument, which makes 30 calls due in
 * 400 ms and 30 due in 1.5 s, says so on its standard output, and keeps running until killed.
 */
public final class CrashingInstance {

	private CrashingInstance() {
	}

	public static void main(String[] args) throws InterruptedException {
		ConfigurableApplicationContext app = DurableApp.start(args[0], "spring.main.keep-alive=true");
		Orders orders = app.getBean(Orders.class);
		Instant calledAt = Instant.now();
		for (int i = 0; i < 30; i++) {
			orders.cancelIfUnpaid("near-" + i, calledAt);
			orders.far("far-" + i, calledAt);
		}
		System.out.println("SCHEDULED");
		System.out.flush();
		Thread.currentThread().join();
	}

}
