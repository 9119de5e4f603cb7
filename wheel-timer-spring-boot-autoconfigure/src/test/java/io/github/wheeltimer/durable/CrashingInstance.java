package io.github.wheeltimer.durable;

import java.time.Duration;
import java.time.Instant;

import io.github.wheeltimer.durable.DurableApp.Orders;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * The main class of the child JVM that {@link DurableCallsCrashTests} kills: an instance of
 * {@link DurableApp} on the database given as the first argument, which makes 30 calls due in
 * 400 ms and 30 due in {@link #FAR_DELAY}, says so on its standard output, and keeps running until
 * killed. Its horizon holds the far calls on its wheel from their start, so that they are there to
 * be lost for as long as they wait, however slowly a loaded machine runs the near ones.
 * With {@code retries} as the second argument it makes 20 calls instead that fail twice, each
 * retried 5 s after a failure, held on its wheel meanwhile (a horizon of 10 s).
 */
public final class CrashingInstance {

	/** Long enough that the near calls end well before it, on a machine as loaded as CI's. */
	static final Duration FAR_DELAY = Duration.ofSeconds(5);

	private CrashingInstance() {
	}

	public static void main(String[] args) throws InterruptedException {
		if (args.length > 1 && args[1].equals("retries")) {
			ConfigurableApplicationContext app = DurableApp.start(args[0], "spring.main.keep-alive=true",
					"wheel-timer.durable.horizon=10s", "test.retry-delay=5s");
			Orders orders = app.getBean(Orders.class);
			for (int i = 0; i < 20; i++) {
				orders.flaky("retried-" + i, 3);
			}
			System.out.println("SCHEDULED");
			System.out.flush();
			Thread.currentThread().join();
		}
		ConfigurableApplicationContext app = DurableApp.start(args[0], "spring.main.keep-alive=true",
				"wheel-timer.durable.horizon=10s", DurableApp.farDelay(FAR_DELAY));
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
